package tools

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/guard"
)

// mediaTarget checks an item/episode pair: a podcast needs an episode id
// (Audiobookshelf's progress route without one answers the first episode
// that matches), a book takes none. It returns the item and the episode's
// duration in seconds (the book's when no episode).
func (d *Deps) mediaTarget(ctx context.Context, itemID string, episodeID *string) (*absItem, float64, *mcp.CallToolResult) {
	_, it, res := d.getItemEpisode(ctx, itemID, episodeID)
	if res != nil {
		return nil, 0, res
	}
	if it.MediaType == "podcast" {
		if episodeID == nil {
			ids := make([]string, 0, 5)
			for i, e := range it.Media.Episodes {
				if i == 5 {
					ids = append(ids, "…")
					break
				}
				ids = append(ids, e.ID)
			}
			return nil, 0, errorResult(`argument "episode_id": library item %s is a podcast, so episode_id is required (for example %s; get_library_item lists them all). Nothing was sent to Audiobookshelf.`, itemID, strings.Join(ids, ", "))
		}
		for i := range it.Media.Episodes {
			if e := &it.Media.Episodes[i]; e.ID == *episodeID {
				return it, e.duration(), nil
			}
		}
		return nil, 0, errorResult(`argument "episode_id": podcast %s has no episode %s (get_library_item lists its episodes). Nothing was sent to Audiobookshelf.`, itemID, *episodeID)
	}
	if episodeID != nil {
		return nil, 0, errorResult(`argument "episode_id": library item %s is a book, which has no episodes; leave episode_id out. Nothing was sent to Audiobookshelf.`, itemID)
	}
	return it, it.Media.Duration, nil
}

func (d *Deps) readProgress(ctx context.Context, itemID string, episodeID *string) (*response, *mcp.CallToolResult) {
	return d.send(ctx, false, func(ctx context.Context) (*http.Response, error) {
		if episodeID != nil {
			return d.API.GetEpisodeMediaProgress(ctx, itemID, *episodeID)
		}
		return d.API.GetMediaProgress(ctx, itemID)
	})
}

func target(itemID string, episodeID *string) string {
	if episodeID != nil {
		return fmt.Sprintf("episode %s of item %s", *episodeID, itemID)
	}
	return "library item " + itemID
}

// GetMediaProgress is get_media_progress. It asks for the progress first
// and reads the item only when the answer alone cannot be trusted: a 404
// (never started, or a wrong id, or a podcast without episode_id, or a book
// with one: the item tells which), or a record of an episode when none was
// asked for (Audiobookshelf answers a podcast's id alone with whichever
// episode's record it finds first). A record for the item, or for the
// episode asked for, is the answer, in one request.
func GetMediaProgress(ctx context.Context, d *Deps, a toolargs.GetMediaProgress) (*mcp.CallToolResult, error) {
	r, res := d.readProgress(ctx, a.LibraryItemID, a.EpisodeID)
	if res != nil {
		return res, nil
	}
	var p absProgress
	if r.Status/100 == 2 {
		if res := decode(r.Body, &p); res != nil {
			return res, nil
		}
	}
	if r.Status == http.StatusNotFound || (r.Status/100 == 2 && a.EpisodeID == nil && p.EpisodeID != nil && *p.EpisodeID != "") {
		if _, _, res := d.mediaTarget(ctx, a.LibraryItemID, a.EpisodeID); res != nil {
			return res, nil
		}
	}
	if r.Status == http.StatusNotFound {
		out := map[string]any{"library_item_id": a.LibraryItemID, "started": false, "note": "No progress recorded: never started."}
		if a.EpisodeID != nil {
			out["episode_id"] = *a.EpisodeID
		}
		return jsonResult(out), nil
	}
	if r.Status/100 != 2 {
		return statusError(r, target(a.LibraryItemID, a.EpisodeID), false), nil
	}
	return jsonResult(progressOf(&p)), nil
}

// PlanSetMediaProgress plans set_media_progress. It reads the item with
// the current progress record: the answer carries what the call replaces
// and the call that puts it back, and a call that would clear a finished
// date (which the tool cannot give back) asks first (effect
// clears_finished_date, tools.yaml).
func PlanSetMediaProgress(ctx context.Context, d *Deps, a toolargs.SetMediaProgress) (*Plan, *mcp.CallToolResult) {
	it, duration, res := d.mediaTarget(ctx, a.LibraryItemID, a.EpisodeID)
	if res != nil {
		return nil, res
	}
	what := target(a.LibraryItemID, a.EpisodeID)
	if a.CurrentTime != nil && duration > 0 && *a.CurrentTime > duration+1 {
		return nil, errorResult(`argument "current_time": %s lasts %d s, so current_time must be from 0 to %d; got %g. Nothing was sent to Audiobookshelf.`,
			what, seconds(duration), seconds(duration), *a.CurrentTime)
	}
	// The record as it is now: Audiobookshelf's item answer carries the
	// user's record of the item (of the episode asked for).
	rec := it.UserMediaProgress
	if rec != nil && a.EpisodeID != nil && (rec.EpisodeID == nil || *rec.EpisodeID != *a.EpisodeID) {
		rec = nil
	}
	bodies, res := progressBodies(a, duration, rec)
	if res != nil {
		return nil, res
	}
	plan := &Plan{Targets: []string{a.LibraryItemID}}
	if a.EpisodeID != nil {
		plan.Targets = append(plan.Targets, *a.EpisodeID)
	}
	if loss := finishedLoss(rec, bodies, what); loss != "" {
		plan.Effects = append(plan.Effects, EffectClearsFinishedDate)
		plan.Action = loss
		if len(bodies) > 1 && bodies[1].CurrentTime != nil {
			plan.Consequences = []string{fmt.Sprintf("Then the position is set to %d s.", seconds(*bodies[1].CurrentTime))}
		}
		plan.Read = struct {
			ID          string  `json:"id"`
			LastUpdate  int64   `json:"lastUpdate"`
			CurrentTime float64 `json:"currentTime"`
			IsFinished  bool    `json:"isFinished"`
			FinishedAt  *int64  `json:"finishedAt"`
		}{rec.ID, rec.LastUpdate, rec.CurrentTime, rec.IsFinished, rec.FinishedAt}
	}
	prev, putBack := progressPutBack(rec, a)
	plan.Execute = func(ctx context.Context) (*mcp.CallToolResult, error) {
		for _, body := range bodies {
			_, res := d.mutate(ctx, what, func(ctx context.Context) (*http.Response, error) {
				if a.EpisodeID != nil {
					return d.API.UpdateEpisodeMediaProgress(ctx, a.LibraryItemID, *a.EpisodeID, body)
				}
				return d.API.UpdateMediaProgress(ctx, a.LibraryItemID, body)
			})
			if res != nil {
				return res, nil
			}
		}
		r, res := d.readProgress(ctx, a.LibraryItemID, a.EpisodeID)
		if res != nil || r.Status/100 != 2 {
			return jsonResult(map[string]any{"updated": true, "note": "The progress was set; reading it back failed.", "previous": prev}), nil
		}
		var p absProgress
		if res := decode(r.Body, &p); res != nil {
			return res, nil
		}
		out := map[string]any{"updated": true, "progress": progressOf(&p), "previous": prev}
		switch {
		case plan.Effect(EffectClearsFinishedDate):
			out["note"] = "The finished date it had (previous.finished_at) cannot be given back from here."
		case rec == nil && guard.ValidID(p.ID):
			out["put_back"] = &PutBack{Tool: "delete_media_progress", Arguments: map[string]any{"media_progress_id": p.ID},
				Note: "There was no record before; deleting the new one asks the person first."}
		case putBack != nil:
			out["put_back"] = putBack
		}
		return jsonResult(out), nil
	}
	return plan, nil
}

// EffectClearsFinishedDate is set_media_progress's effect that makes it
// ask (tools.yaml): the call clears a finished date, or moves a finished
// record's position where moving it back would clear it.
const EffectClearsFinishedDate = "clears_finished_date"

// finishedLoss says what the bodies would do to a finished record's
// finished date that cannot be undone from here ("" when nothing), as
// MediaProgress.applyProgressUpdate applies them: isFinished false clears
// it; a new position more than finishWindow before the end clears it; and
// a new position inside the window on a record that sits outside it could
// not be moved back without clearing it.
func finishedLoss(rec *absProgress, bodies []abs.MediaProgressUpdate, what string) string {
	if rec == nil || !rec.IsFinished {
		return ""
	}
	// The record keeps its own duration (progressBodies sends none for a
	// record that exists), and Audiobookshelf measures the end by it.
	d := rec.Duration
	for _, b := range bodies {
		if b.IsFinished != nil && !*b.IsFinished {
			return fmt.Sprintf("This will mark the progress of %s not finished: Audiobookshelf clears its finished date and sets its position to 0 s.", what)
		}
		if b.CurrentTime == nil || *b.CurrentTime == rec.CurrentTime {
			continue
		}
		if d <= 0 || d-*b.CurrentTime >= finishWindow {
			return fmt.Sprintf("This will move the position of finished %s to %d s, more than %g s before the end: Audiobookshelf then marks it not finished and clears its finished date.", what, seconds(*b.CurrentTime), finishWindow)
		}
		if d-rec.CurrentTime >= finishWindow {
			return fmt.Sprintf("This will move the position of finished %s from %d s to %d s; moving it back to %d s later would make Audiobookshelf clear its finished date.", what, seconds(rec.CurrentTime), seconds(*b.CurrentTime), seconds(rec.CurrentTime))
		}
	}
	return ""
}

// progressPutBack is what set_media_progress replaces and the call that
// gives it back (nil without a record: then the put-back deletes the new
// one). A call that moves the position or the finished state gives back
// position, progress and the continue-listening flag (Audiobookshelf
// resets the flag when the position moves), and un-finishes first when the
// record was not finished (that put-back asks, as it clears the finished
// date the call made).
func progressPutBack(rec *absProgress, a toolargs.SetMediaProgress) (prev any, pb *PutBack) {
	if rec == nil {
		return map[string]any{"started": false}, nil
	}
	args := map[string]any{"library_item_id": a.LibraryItemID}
	if a.EpisodeID != nil {
		args["episode_id"] = *a.EpisodeID
	}
	args["hide_from_continue_listening"] = rec.HideFromContinueListening
	note := ""
	if a.CurrentTime != nil || a.Progress != nil || a.IsFinished != nil {
		args["current_time"] = rec.CurrentTime
		args["progress"] = rec.Progress
		if !rec.IsFinished {
			args["is_finished"] = false
			if a.IsFinished != nil && *a.IsFinished || a.CurrentTime != nil || a.Progress != nil {
				note = "If the call finished the record, this put-back clears that new finished date, so it asks the person first."
			}
		}
	}
	return progressOf(rec), &PutBack{Tool: "set_media_progress", Arguments: args, Note: note}
}

// finishWindow is how close to the end Audiobookshelf counts a position as
// finished (MediaProgress.applyProgressUpdate, markAsFinishedTimeRemaining).
const finishWindow = 10.0

// progressBodies turns set_media_progress's arguments into the PATCH bodies
// that do what was asked, given how Audiobookshelf applies them
// (MediaProgress.applyProgressUpdate): with isFinished present it ignores
// progress; un-finishing drops currentTime and resets the position to 0; a
// position outside the last 10 s un-finishes a finished record; and it never
// computes progress from currentTime. So: finishing sends isFinished alone,
// un-finishing goes first and a new position follows in a second request,
// and progress and position are always sent together.
//
// The item's duration goes only into a new record: a record that exists
// keeps its own (Audiobookshelf's player set it; a rescan may have changed
// the item's since, or a client left it 0), because the put-back, a
// set_media_progress call too, could not give an overwritten one back.
// Audiobookshelf measures the last 10 s by the record's duration.
func progressBodies(a toolargs.SetMediaProgress, duration float64, rec *absProgress) ([]abs.MediaProgressUpdate, *mcp.CallToolResult) {
	var dur *float64
	end := duration
	if rec != nil {
		end = rec.Duration
	} else if duration > 0 {
		dur = &duration
	}
	pos := abs.MediaProgressUpdate{Duration: dur}
	switch {
	case a.CurrentTime != nil:
		t := *a.CurrentTime
		pos.CurrentTime = &t
		if a.Progress != nil {
			pos.Progress = a.Progress
		} else if duration > 0 {
			p := min(1, t/duration)
			pos.Progress = &p
		}
	case a.Progress != nil:
		pos.Progress = a.Progress
		if duration > 0 {
			t := *a.Progress * duration
			pos.CurrentTime = &t
		}
	}
	hasPos := pos.CurrentTime != nil || pos.Progress != nil
	if a.IsFinished != nil && *a.IsFinished {
		if hasPos && (pos.CurrentTime == nil || end-*pos.CurrentTime >= finishWindow) {
			return nil, errorResult(`arguments "is_finished" and "current_time"/"progress": Audiobookshelf un-finishes an item whose position is more than %g s before the end, so give is_finished true alone (or a position within the last %g s). Nothing was sent to Audiobookshelf.`, finishWindow, finishWindow)
		}
		return []abs.MediaProgressUpdate{{IsFinished: a.IsFinished, Duration: dur, HideFromContinueListening: a.HideFromContinueListening}}, nil
	}
	var bodies []abs.MediaProgressUpdate
	if a.IsFinished != nil { // false: un-finish first, as its own request
		bodies = append(bodies, abs.MediaProgressUpdate{IsFinished: a.IsFinished, Duration: dur})
	}
	if hasPos || a.HideFromContinueListening != nil {
		pos.HideFromContinueListening = a.HideFromContinueListening
		bodies = append(bodies, pos)
	}
	return bodies, nil
}

// PlanDeleteMediaProgress plans delete_media_progress: it finds the record
// among the user's progress so the question can say whose it is.
func PlanDeleteMediaProgress(ctx context.Context, d *Deps, a toolargs.DeleteMediaProgress) (*Plan, *mcp.CallToolResult) {
	recs, res := d.progressRecords(ctx)
	if res != nil {
		return nil, res
	}
	var rec *absProgress
	for i := range recs {
		if recs[i].ID == a.MediaProgressID {
			rec = &recs[i]
		}
	}
	if rec == nil {
		hint := ""
		for _, p := range recs {
			if p.LibraryItemID == a.MediaProgressID {
				hint = fmt.Sprintf(" %s is a library item id; its progress record id is %s.", a.MediaProgressID, p.ID)
				break
			}
		}
		return nil, errorResult(`argument "media_progress_id": the user has no progress record %s.%s Take the record id (field id) from get_media_progress. Nothing was changed.`, a.MediaProgressID, hint)
	}
	// Everything that goes into the question is an id checked as such,
	// whatever Audiobookshelf answered: a record whose ids are not plain ids
	// is refused before anything is asked or sent.
	ids := map[string]string{"id": rec.ID, "libraryItemId": rec.LibraryItemID}
	if rec.EpisodeID != nil && *rec.EpisodeID != "" {
		ids["episodeId"] = *rec.EpisodeID
	}
	for _, field := range []string{"id", "libraryItemId", "episodeId"} {
		if v, ok := ids[field]; ok && !guard.ValidID(v) {
			return nil, errorResult("progress record %s: Audiobookshelf answered with a %s that is not a plain id (letters, digits and _ . : - only), so it cannot be put into the question; it is not shown. Check the record in Audiobookshelf's own interface. Nothing was changed.", a.MediaProgressID, field)
		}
	}
	of := "library item " + rec.LibraryItemID
	if rec.EpisodeID != nil && *rec.EpisodeID != "" {
		of = fmt.Sprintf("episode %s of library item %s", *rec.EpisodeID, rec.LibraryItemID)
	}
	state := fmt.Sprintf("at %d s, %d%%", seconds(rec.CurrentTime), pct(rec.Progress))
	if rec.IsFinished {
		state = "finished"
	}
	targets := []string{rec.ID, rec.LibraryItemID}
	if ep, ok := ids["episodeId"]; ok {
		targets = append(targets, ep)
	}
	return &Plan{
		Targets: targets,
		Action:  fmt.Sprintf("This will delete progress record %s of %s (%s).", rec.ID, of, state),
		// The record's last update, with what the question says about it:
		// listening moves lastUpdate, and a record made again after this
		// one is deleted has another id.
		Read: struct {
			ID          string  `json:"id"`
			LastUpdate  int64   `json:"lastUpdate"`
			CurrentTime float64 `json:"currentTime"`
			IsFinished  bool    `json:"isFinished"`
		}{rec.ID, rec.LastUpdate, rec.CurrentTime, rec.IsFinished},
		Execute: func(ctx context.Context) (*mcp.CallToolResult, error) {
			_, res := d.mutate(ctx, "progress record "+rec.ID, func(ctx context.Context) (*http.Response, error) {
				return d.API.DeleteMediaProgress(ctx, rec.ID)
			})
			if res != nil {
				return res, nil
			}
			return jsonResult(map[string]any{"deleted": true, "media_progress_id": rec.ID, "library_item_id": rec.LibraryItemID}), nil
		},
	}, nil
}

package progress

import (
	"context"
	"fmt"
	"net/http"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/guard"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/compact"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/naming"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// PlanSetMediaProgress plans set_media_progress. It reads the item with
// the current progress record: the answer carries what the call replaces
// and the call that puts it back, and a call that would clear a finished
// date (which the tool cannot give back) asks first (effect
// clears_finished_date, tools.yaml).
func PlanSetMediaProgress(ctx context.Context, d *kit.Deps, a toolargs.SetMediaProgress) (*kit.Plan, error) {
	it, duration, err := mediaTarget(ctx, d, a.LibraryItemID, a.EpisodeID)
	if err != nil {
		return nil, err
	}
	what := target(a.LibraryItemID, a.EpisodeID)
	if a.CurrentTime != nil && duration > 0 && *a.CurrentTime > duration+1 {
		return nil, kit.Errorf(kit.NotSent, `argument "current_time": %s lasts %d s, so current_time must be from 0 to %d; got %g.`,
			what, compact.Seconds(duration), compact.Seconds(duration), *a.CurrentTime)
	}
	// The record as it is now: Audiobookshelf's item answer carries the
	// user's record of the item (of the episode asked for).
	rec := it.UserMediaProgress
	if rec != nil && a.EpisodeID != nil && (rec.EpisodeID == nil || *rec.EpisodeID != *a.EpisodeID) {
		rec = nil
	}
	bodies, err := progressBodies(a, duration, rec)
	if err != nil {
		return nil, err
	}
	plan := &kit.Plan{Targets: []string{a.LibraryItemID}}
	if a.EpisodeID != nil {
		plan.Targets = append(plan.Targets, *a.EpisodeID)
	}
	if loss := finishedLoss(rec, bodies, naming.ItemNamed(it, a.LibraryItemID, a.EpisodeID)); loss != "" {
		plan.Effects = append(plan.Effects, EffectClearsFinishedDate)
		plan.Action = loss
		if len(bodies) > 1 && bodies[1].CurrentTime != nil {
			plan.Consequences = []string{fmt.Sprintf("Then the position is set to %d s.", compact.Seconds(*bodies[1].CurrentTime))}
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
			_, err := d.Mutate(ctx, what, func(ctx context.Context) (*http.Response, error) {
				if a.EpisodeID != nil {
					return d.API.UpdateEpisodeMediaProgress(ctx, a.LibraryItemID, *a.EpisodeID, body)
				}
				return d.API.UpdateMediaProgress(ctx, a.LibraryItemID, body)
			})
			if err != nil {
				return nil, err
			}
		}
		r, err := readProgress(ctx, d, a.LibraryItemID, a.EpisodeID)
		if err != nil || r.Status/100 != 2 {
			return result.JSONResult(map[string]any{"updated": true, "note": "The progress was set; reading it back failed.", "previous": prev})
		}
		var p absdata.Progress
		if err := kit.Decode(r.Body, &p); err != nil {
			return nil, err
		}
		out := map[string]any{"updated": true, "progress": compact.ProgressOf(&p), "previous": prev}
		switch {
		case plan.Effect(EffectClearsFinishedDate):
			out["note"] = "The finished date it had (previous.finished_at) cannot be given back from here."
		case rec == nil && guard.ValidID(p.ID):
			out["put_back"] = &result.PutBack{Tool: "delete_media_progress", Arguments: map[string]any{"media_progress_id": p.ID},
				Note: "There was no record before; deleting the new one asks the person first."}
		case putBack != nil:
			out["put_back"] = putBack
		}
		return result.JSONResult(out)
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
func finishedLoss(rec *absdata.Progress, bodies []abs.MediaProgressUpdate, what string) string {
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
			return fmt.Sprintf("This will move the position of finished %s to %d s, more than %g s before the end: Audiobookshelf then marks it not finished and clears its finished date.", what, compact.Seconds(*b.CurrentTime), finishWindow)
		}
		if d-rec.CurrentTime >= finishWindow {
			return fmt.Sprintf("This will move the position of finished %s from %d s to %d s; moving it back to %d s later would make Audiobookshelf clear its finished date.", what, compact.Seconds(rec.CurrentTime), compact.Seconds(*b.CurrentTime), compact.Seconds(rec.CurrentTime))
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
func progressPutBack(rec *absdata.Progress, a toolargs.SetMediaProgress) (prev any, pb *result.PutBack) {
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
	return compact.ProgressOf(rec), &result.PutBack{Tool: "set_media_progress", Arguments: args, Note: note}
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
func progressBodies(a toolargs.SetMediaProgress, duration float64, rec *absdata.Progress) ([]abs.MediaProgressUpdate, error) {
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
			return nil, kit.Errorf(kit.NotSent, `arguments "is_finished" and "current_time"/"progress": Audiobookshelf un-finishes an item whose position is more than %g s before the end, so give is_finished true alone (or a position within the last %g s).`, finishWindow, finishWindow)
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

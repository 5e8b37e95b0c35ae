package podcasts

import (
	"context"
	"fmt"
	"net/http"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/naming"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// episodeRead is what an approval to delete an episode is bound to.
type episodeRead struct {
	EpisodeID string   `json:"episode_id"`
	AudioIno  string   `json:"audio_ino"`
	Size      int64    `json:"size"`
	Progress  string   `json:"progress"`
	Playlists []string `json:"playlists"`
}

// PlanDeletePodcastEpisode plans delete_podcast_episode. A user without
// its permission (tools.yaml) was refused before it runs; the user's record
// is read for their progress of the episode.
func PlanDeletePodcastEpisode(ctx context.Context, d *kit.Deps, a toolargs.DeletePodcastEpisode) (*kit.Plan, error) {
	_, u, err := d.ReadMe(ctx)
	if err != nil {
		return nil, err
	}
	it, err := getPodcast(ctx, d, a.LibraryItemID)
	if err != nil {
		return nil, err
	}
	var ep *absdata.Episode
	for i := range it.Media.Episodes {
		if it.Media.Episodes[i].ID == a.EpisodeID {
			ep = &it.Media.Episodes[i]
		}
	}
	if ep == nil {
		return nil, kit.Errorf(kit.Unchanged, `argument "episode_id": podcast %s has no episode %s (get_library_item lists its episodes).`, kit.ShowID(it.ID), a.EpisodeID)
	}
	read := episodeRead{EpisodeID: ep.ID, Playlists: []string{}}
	if ep.AudioFile != nil {
		read.AudioIno, read.Size = ep.AudioFile.Ino, ep.AudioFile.Metadata.Size
	}
	progress := 0
	for _, p := range u.MediaProgress {
		if p.EpisodeID != nil && *p.EpisodeID == ep.ID {
			progress++
			read.Progress = kit.ProgressMark(p)
		}
	}
	pls, err := d.ReadPlaylists(ctx)
	if err != nil {
		return nil, err
	}
	holding, emptied := kit.PlaylistsHolding(pls, func(e absdata.PlaylistItem) bool { return e.EpisodeID != nil && *e.EpisodeID == ep.ID })
	var in []string
	for _, h := range holding {
		in = append(in, h.ID)
		read.Playlists = append(read.Playlists, fmt.Sprintf("%s:%d", h.ID, h.Of))
	}
	if err := result.PlainIDs("episode "+a.EpisodeID+" of podcast "+a.LibraryItemID, append([]string{it.ID, ep.ID}, in...)...); err != nil {
		return nil, err
	}
	plan := &kit.Plan{Targets: []string{it.ID, ep.ID}, Read: read}
	episode, podcast := naming.Named("episode", ep.Title, ep.ID), naming.Named("podcast", it.Media.Metadata.Title.Value, it.ID)
	playlists := playlistNames(pls)
	if a.DeleteFile {
		size := ""
		if read.Size > 0 {
			size = fmt.Sprintf(" (%d bytes)", read.Size)
		}
		plan.Action = fmt.Sprintf("This will remove %s from %s and DELETE ITS AUDIO FILE FROM DISK%s.", episode, podcast, size)
		plan.Consequences = append(plan.Consequences, "The file cannot be restored from here: only a feed that still carries the episode can bring it back, as a new download with a new episode id.")
	} else {
		plan.Action = fmt.Sprintf("This will remove %s from %s. Its audio file stays on disk in the podcast's folder.", episode, podcast)
	}
	plan.Consequences = append(plan.Consequences,
		fmt.Sprintf("The listening progress of the episode goes with it: %d record(s) of this user, and any other user's.", progress))
	if len(in) > 0 {
		c := fmt.Sprintf("It is taken out of %d playlist(s) of this user: %s.", len(in), naming.ListTitled(naming.Titles(in, playlists)))
		if len(emptied) > 0 {
			c += " " + naming.Emptied(emptied, playlists)
		}
		plan.Consequences = append(plan.Consequences, c)
	}
	hard := a.DeleteFile
	plan.Execute = func(ctx context.Context) (*mcp.CallToolResult, error) {
		var params *abs.DeletePodcastEpisodeParams
		if hard {
			params = &abs.DeletePodcastEpisodeParams{Hard: kit.Ptr(abs.DeletePodcastEpisodeParamsHard(1))}
		}
		rb, err := podMutate(kit.ForItem(ctx, it.ID), d, "episode "+kit.ShowID(ep.ID)+" of podcast "+kit.ShowID(it.ID), func(ctx context.Context) (*http.Response, error) {
			return d.API.DeletePodcastEpisode(ctx, it.ID, ep.ID, params)
		})
		if err != nil {
			return nil, err
		}
		var after absdata.Item
		if err := kit.Decode(rb, &after); err != nil {
			return nil, err
		}
		out := map[string]any{"deleted": true, "library_item_id": it.ID, "episode_id": ep.ID, "file_deleted": hard,
			"episodes_left": len(after.Media.Episodes), "progress_records_removed": progress, "playlists_changed": len(in)}
		if len(emptied) > 0 {
			out["playlists_deleted"] = emptied
		}
		if !hard {
			out["note"] = "The audio file is still in the podcast's folder; a library scan may add it back as an episode."
		}
		return result.JSONResult(out)
	}
	return plan, nil
}

// podcastRead is what an approval to delete a podcast is bound to.
type podcastRead struct {
	ID        string   `json:"id"`
	UpdatedAt int64    `json:"updated_at"`
	Episodes  []string `json:"episodes"`
	Files     []string `json:"files"`
	Progress  []string `json:"progress"`
	Playlists []string `json:"playlists"`
}

// PlanDeletePodcast plans delete_podcast: DELETE /api/items/:id
// (LibraryItemController.delete), which takes out every user's progress of
// the podcast's episodes, the episodes' playlist entries (a playlist left
// empty is deleted), the episodes and the item, and with hard=1 the
// podcast's folder with everything in it.
func PlanDeletePodcast(ctx context.Context, d *kit.Deps, a toolargs.DeletePodcast) (*kit.Plan, error) {
	_, u, err := d.ReadMe(ctx)
	if err != nil {
		return nil, err
	}
	it, err := getPodcast(ctx, d, a.LibraryItemID)
	if err != nil {
		return nil, err
	}
	// Audiobookshelf does not cancel a podcast's downloads when it is
	// deleted: each one that starts makes the podcast's folder again
	// (PodcastManager.startPodcastEpisodeDownload), and finds no item to
	// add its episode to. So a podcast with downloads queued or running
	// is refused.
	current, queue, err := downloadQueue(ctx, d, it.LibraryID)
	if err != nil {
		return nil, err
	}
	pending := 0
	if current != nil && current.LibraryItemID == it.ID {
		pending++
	}
	for _, q := range queue {
		if q.LibraryItemID == it.ID {
			pending++
		}
	}
	if pending > 0 {
		return nil, kit.Errorf(kit.NotAsked, `Podcast %s has %d episode download(s) queued or running. Audiobookshelf does not cancel them when the podcast is deleted: a running one fails, and each queued one that starts makes the podcast's folder again; wait until list_podcast_downloads {"library_id": %q, "library_item_id": %q} shows none, then delete it.`, kit.ShowID(it.ID), pending, it.LibraryID, it.ID)
	}
	read := podcastRead{ID: it.ID, UpdatedAt: it.UpdatedAt, Episodes: []string{}, Files: []string{}, Progress: []string{}, Playlists: []string{}}
	eps := map[string]bool{}
	for _, ep := range it.Media.Episodes {
		eps[ep.ID] = true
		ino := ""
		if ep.AudioFile != nil {
			ino = ep.AudioFile.Ino
		}
		read.Episodes = append(read.Episodes, ep.ID+":"+ino)
	}
	audio, other := 0, 0
	for _, f := range it.LibraryFiles {
		read.Files = append(read.Files, f.Ino+":"+f.FileType)
		if f.FileType == "audio" {
			audio++
		} else {
			other++
		}
	}
	progress := 0
	for _, p := range u.MediaProgress {
		if p.EpisodeID != nil && eps[*p.EpisodeID] {
			progress++
			read.Progress = append(read.Progress, kit.ProgressMark(p))
		}
	}
	pls, err := d.ReadPlaylists(ctx)
	if err != nil {
		return nil, err
	}
	holding, emptied := kit.PlaylistsHolding(pls, func(e absdata.PlaylistItem) bool { return e.EpisodeID != nil && eps[*e.EpisodeID] })
	var in []string
	entries := 0
	for _, h := range holding {
		in = append(in, h.ID)
		entries += h.Taken
		read.Playlists = append(read.Playlists, fmt.Sprintf("%s:%d:%d", h.ID, h.Of, h.Taken))
	}
	if err := result.PlainIDs("podcast "+a.LibraryItemID, append([]string{it.ID}, in...)...); err != nil {
		return nil, err
	}
	if it.ID != a.LibraryItemID {
		return nil, kit.Errorf(kit.NotAsked, `argument "library_item_id": Audiobookshelf answered for %s with another item.`, a.LibraryItemID)
	}
	plan := &kit.Plan{Targets: append([]string{it.ID}, in...), Read: read}
	podcast := naming.Named("podcast", it.Media.Metadata.Title.Value, it.ID)
	playlists := playlistNames(pls)
	if a.DeleteFiles {
		plan.Action = fmt.Sprintf("This will delete %s with its %d episode(s) from the library, and DELETE ITS FOLDER FROM DISK with everything in it: %d audio file(s) and %d other file(s) that Audiobookshelf knows of.", podcast, len(it.Media.Episodes), audio, other)
	} else {
		plan.Action = fmt.Sprintf("This will delete %s with its %d episode(s) from the library. Its folder stays on disk with its %d audio file(s) and %d other file(s).", podcast, len(it.Media.Episodes), audio, other)
	}
	plan.Consequences = append(plan.Consequences,
		fmt.Sprintf("The listening progress of its episodes goes with it: %d record(s) of this user, and any other user's.", progress))
	if len(in) > 0 {
		c := fmt.Sprintf("%d entry(ies) are taken out of %d playlist(s) of this user: %s.", entries, len(in), naming.ListTitled(naming.Titles(in, playlists)))
		if len(emptied) > 0 {
			c += " " + naming.Emptied(emptied, playlists)
		}
		plan.Consequences = append(plan.Consequences, c)
	}
	hard := a.DeleteFiles
	nEps := len(it.Media.Episodes)
	plan.Execute = func(ctx context.Context) (*mcp.CallToolResult, error) {
		var params *abs.DeleteLibraryItemParams
		if hard {
			params = &abs.DeleteLibraryItemParams{Hard: kit.Ptr(abs.DeleteLibraryItemParamsHard(1))}
		}
		if _, err := podMutate(kit.ForItem(ctx, it.ID), d, "podcast "+kit.ShowID(it.ID), func(ctx context.Context) (*http.Response, error) {
			return d.API.DeleteLibraryItem(ctx, it.ID, params)
		}); err != nil {
			return nil, err
		}
		out := map[string]any{"deleted": true, "library_item_id": it.ID, "library_id": it.LibraryID, "files_deleted": hard,
			"episodes_removed": nEps, "progress_records_removed": progress, "playlists_changed": len(in)}
		if len(emptied) > 0 {
			out["playlists_deleted"] = emptied
		}
		if !hard {
			out["note"] = "The folder " + it.Path + " is still on disk with its files; a library scan may add it back as a new item, and create_podcast refuses that folder while it is there."
		}
		return result.JSONResult(out)
	}
	return plan, nil
}

// playlistNames maps each playlist's id to its name, for a question.
func playlistNames(pls []absdata.Playlist) map[string]string {
	out := make(map[string]string, len(pls))
	for _, p := range pls {
		out[p.ID] = p.Name
	}
	return out
}

package curation

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/naming"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// duplicateRead is what resolve_duplicate binds the approval to: both
// books, and what the removal takes out of this user's records.
type duplicateRead struct {
	Keep        string   `json:"keep"`
	KeepUpdated int64    `json:"keepUpdated"`
	Remove      string   `json:"remove"`
	Updated     int64    `json:"updated"`
	Progress    []string `json:"progress"`
	Bookmarks   []string `json:"bookmarks"`
	Collections []string `json:"collections"`
	Playlists   []string `json:"playlists"`
}

// PlanResolveDuplicate plans resolve_duplicate: DELETE /api/items/:id of
// the copy removed, without hard=1, so its files stay on disk.
// Audiobookshelf (LibraryItemController.delete, ApiRouter.
// handleDeleteLibraryItem) destroys every user's progress of it, takes it
// out of every playlist (deleting a playlist left empty) and, through
// the database, out of every collection; removes its folder under the
// metadata path (a cover kept there) and the authors and series left
// without a book. Bookmarks are kept on the user under the removed id,
// where nothing reaches them any more.
func PlanResolveDuplicate(ctx context.Context, d *kit.Deps, a toolargs.ResolveDuplicate) (*kit.Plan, error) {
	if a.KeepItemID == a.RemoveItemID {
		return nil, kit.Errorf(kit.NotSent, `arguments "keep_item_id" and "remove_item_id": they are the same book; give the copy that stays and the other one.`)
	}
	type itemResult struct {
		it  *absdata.Item
		err error
	}
	pending := kit.Alongside(ctx, func(ctx context.Context) itemResult {
		it, err := d.ReadItemRecord(ctx, a.KeepItemID)
		return itemResult{it, err}
	})
	rm, err := d.ReadItemRecord(ctx, a.RemoveItemID)
	if err != nil {
		pending.Abandon()
		return nil, kit.Errorf(kit.Unchanged, `argument "remove_item_id": %v`, err)
	}
	got := pending.Wait()
	if got.err != nil {
		return nil, kit.Errorf(kit.Unchanged, `argument "keep_item_id": %v`, got.err)
	}
	keep := got.it
	if rm.MediaType != "book" || keep.MediaType != "book" {
		return nil, kit.Errorf(kit.Unchanged, `arguments "keep_item_id" and "remove_item_id": both must be books (delete_podcast removes a podcast).`)
	}
	if rm.LibraryID != keep.LibraryID {
		return nil, kit.Errorf(kit.Unchanged, `argument "keep_item_id": book %q is of library %q and book %q of library %q; a duplicate is resolved within one library.`,
			keep.ID, keep.LibraryID, rm.ID, rm.LibraryID)
	}
	if err := result.PlainIDs("book", rm.ID, keep.ID); err != nil {
		return nil, err
	}
	_, me, err := d.ReadMe(ctx)
	if err != nil {
		return nil, err
	}
	read := duplicateRead{Keep: keep.ID, KeepUpdated: keep.UpdatedAt, Remove: rm.ID, Updated: rm.UpdatedAt,
		Progress: []string{}, Bookmarks: []string{}, Collections: []string{}, Playlists: []string{}}
	var progress *absdata.Progress
	for i, p := range me.MediaProgress {
		if p.LibraryItemID == rm.ID && p.EpisodeID == nil {
			progress = &me.MediaProgress[i]
			read.Progress = append(read.Progress, kit.ProgressMark(p))
		}
	}
	for _, b := range me.Bookmarks {
		if b.LibraryItemID == rm.ID {
			read.Bookmarks = append(read.Bookmarks, fmt.Sprintf("%v:%d", b.Time, b.CreatedAt))
		}
	}
	cbody, err := d.Get(ctx, "the collections of library "+rm.LibraryID, func(ctx context.Context) (*http.Response, error) {
		return d.API.ListLibraryCollections(ctx, rm.LibraryID, nil)
	})
	if err != nil {
		return nil, err
	}
	var cols absdata.Listing[absdata.Collection]
	if err := kit.Decode(cbody, &cols); err != nil {
		return nil, err
	}
	colRows, _ := cols.Rows()
	colNames := map[string]string{}
	var inCols []string
	for _, c := range colRows {
		for _, b := range c.Books {
			if b.ID == rm.ID {
				inCols = append(inCols, c.ID)
				colNames[c.ID] = c.Name
				read.Collections = append(read.Collections, fmt.Sprintf("%s:%d", c.ID, c.LastUpdate))
				break
			}
		}
	}
	pls, err := d.ReadPlaylists(ctx)
	if err != nil {
		return nil, err
	}
	holding, emptied := kit.PlaylistsHolding(pls, func(e absdata.PlaylistItem) bool { return e.LibraryItemID == rm.ID })
	plNames := map[string]string{}
	var inPls []string
	for _, h := range holding {
		inPls = append(inPls, h.ID)
		plNames[h.ID] = h.Name
		read.Playlists = append(read.Playlists, fmt.Sprintf("%s:%d:%d", h.ID, h.Of, h.Taken))
	}
	if err := result.PlainIDs("book "+rm.ID, append(inCols, inPls...)...); err != nil {
		return nil, err
	}
	// The authors and series of the copy removed that the copy kept does
	// not hold: Audiobookshelf removes each one left without a book.
	keptRefs := map[string]bool{}
	for _, r := range keep.Media.Metadata.Authors {
		keptRefs[r.ID] = true
	}
	for _, s := range keep.Media.Metadata.Series {
		keptRefs[s.ID] = true
	}
	var onlyRemoved []string
	for _, r := range rm.Media.Metadata.Authors {
		if !keptRefs[r.ID] {
			onlyRemoved = append(onlyRemoved, naming.Named("author", r.Name, r.ID))
		}
	}
	for _, s := range rm.Media.Metadata.Series {
		if !keptRefs[s.ID] {
			onlyRemoved = append(onlyRemoved, naming.Named("series", s.Name, s.ID))
		}
	}

	removed := naming.Named("book", rm.Media.Metadata.Title.Value, rm.ID)
	kept := naming.Named("book", keep.Media.Metadata.Title.Value, keep.ID)
	plan := &kit.Plan{Targets: append([]string{rm.ID, keep.ID}, append(inCols, inPls...)...), Read: read}
	plan.Action = fmt.Sprintf("This will remove %s from its library, keeping %s as the one copy. Its files are not deleted: they stay in the library's folder on disk.", removed, kept)
	lost := "none"
	if progress != nil {
		switch {
		case progress.IsFinished:
			lost = "finished"
		default:
			lost = fmt.Sprintf("at %s (%.0f%%)", clock(progress.CurrentTime), progress.Progress*100)
		}
	}
	plan.Consequences = []string{
		fmt.Sprintf("What goes with it, counted for this user: listening progress: %s; bookmarks: %d (Audiobookshelf keeps them under the removed id, where nothing shows them any more); collections holding it: %d%s; playlists holding it: %d%s.",
			lost, len(read.Bookmarks), len(inCols), listedIn(inCols, colNames), len(inPls), listedIn(inPls, plNames)),
		"Every other user's progress of it goes too, and its entries in their playlists: this key cannot count those.",
	}
	if len(emptied) > 0 {
		plan.Consequences = append(plan.Consequences, naming.Emptied(emptied, plNames))
	}
	if len(onlyRemoved) > 0 {
		plan.Consequences = append(plan.Consequences, "The copy kept does not hold "+strings.Join(onlyRemoved, ", ")+": Audiobookshelf removes each series of them left without a book, and each author left without a book that has no biography, ASIN or image.")
	}
	plan.Consequences = append(plan.Consequences,
		"A cover or metadata kept in Audiobookshelf's metadata folder for it is removed; its own files are not. Because its folder stays in the library, Audiobookshelf's next scan of the library adds it back as a new item, without any of the above, unless the folder is moved out first.")
	plan.Execute = func(ctx context.Context) (*mcp.CallToolResult, error) {
		if _, err := d.Mutate(kit.ForItem(ctx, rm.ID), "book "+rm.ID, func(ctx context.Context) (*http.Response, error) {
			return d.API.DeleteLibraryItem(ctx, rm.ID, nil)
		}); err != nil {
			return nil, err
		}
		out := map[string]any{
			"removed":                    true,
			"removed_item_id":            rm.ID,
			"kept_item_id":               keep.ID,
			"library_id":                 rm.LibraryID,
			"files_deleted":              false,
			"progress_removed":           progress != nil,
			"bookmarks_left_unreachable": len(read.Bookmarks),
			"collections_changed":        inCols,
			"playlists_changed":          inPls,
			"not_put_back":               "The person approved the removal: the item, its progress and its places in collections and playlists cannot be made again from here; its files stay on disk, and a scan of the library adds them back as a new item.",
		}
		if len(emptied) > 0 {
			out["playlists_deleted"] = emptied
		}
		return result.JSONResult(out)
	}
	return plan, nil
}

// listedIn is " (names)" of the records ids, or "".
func listedIn(ids []string, names map[string]string) string {
	if len(ids) == 0 {
		return ""
	}
	return " (" + naming.ListTitled(naming.Titles(ids, names)) + ")"
}

// clock is seconds as h:mm:ss.
func clock(s float64) string {
	t := int64(s)
	return fmt.Sprintf("%d:%02d:%02d", t/3600, t/60%60, t%60)
}

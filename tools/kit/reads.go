package kit

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
)

// ProgressRecords reads every progress record of the user. It is read
// fresh on every call and never kept: progress changes while a person
// listens (a player reports every few seconds).
//
// GET /api/me/progress answers the records alone; a server older than
// Audiobookshelf 2.36 answers it 404, and then GET /api/me, which carries
// the same records inside the whole user, is asked instead, now and for
// the rest of this process (what is remembered is which route the server
// has, not anything of the user's).
func (d *Deps) ProgressRecords(ctx context.Context) ([]absdata.Progress, error) {
	if !d.noProgressRoute.Load() {
		r, err := d.Send(ctx, false, func(ctx context.Context) (*http.Response, error) {
			return d.API.ListMediaProgress(ctx)
		})
		if err != nil {
			return nil, err
		}
		if r.Status/100 == 2 {
			var v struct {
				MediaProgress []absdata.Progress `json:"mediaProgress"`
			}
			if err := Decode(r.Body, &v); err != nil {
				return nil, err
			}
			return v.MediaProgress, nil
		}
		if r.Status != http.StatusNotFound {
			return nil, StatusError(r, "the user's progress", false)
		}
		d.noProgressRoute.Store(true)
	}
	_, me, err := d.ReadMe(ctx)
	if err != nil {
		return nil, err
	}
	return me.MediaProgress, nil
}

// BookProgress is ProgressRecords by library item id, books only (an
// episode's record is left out): what list entries show beside each book.
// A failure only leaves the progress out of the list.
func (d *Deps) BookProgress(ctx context.Context) map[string]*absdata.Progress {
	recs, err := d.ProgressRecords(ctx)
	if err != nil {
		return nil
	}
	out := make(map[string]*absdata.Progress, len(recs))
	for i := range recs {
		p := &recs[i]
		if p.EpisodeID == nil || *p.EpisodeID == "" {
			out[p.LibraryItemID] = p
		}
	}
	return out
}

// ReadItem reads one expanded item (expanded=1) with the user's progress
// (include=progress): of the episode episodeID when given (?episode=).
func (d *Deps) ReadItem(ctx context.Context, id string, episodeID *string) ([]byte, *absdata.Item, error) {
	body, err := d.Get(ctx, "library item "+id, func(ctx context.Context) (*http.Response, error) {
		return d.API.GetLibraryItem(ctx, id, &abs.GetLibraryItemParams{Expanded: Ptr(abs.GetLibraryItemParamsExpandedN1), Include: Ptr("progress"), Episode: episodeID})
	})
	if err != nil {
		return nil, nil, err
	}
	var it absdata.Item
	if err := Decode(body, &it); err != nil {
		return nil, nil, err
	}
	return body, &it, nil
}

// ReadItemRecord reads one item as Audiobookshelf keeps it (not expanded:
// a podcast's episodes with their guid, enclosure and audio file, the
// cover's path, the library files; no file's probe data), with the texts
// Audiobookshelf holds as null kept apart from "".
func (d *Deps) ReadItemRecord(ctx context.Context, id string) (*absdata.Item, error) {
	body, err := d.Get(ctx, "library item "+id, func(ctx context.Context) (*http.Response, error) {
		return d.API.GetLibraryItem(ctx, id, nil)
	})
	if err != nil {
		return nil, err
	}
	var it absdata.Item
	if err := Decode(body, &it); err != nil {
		return nil, err
	}
	return &it, nil
}

// ReadLibrary reads one library, and returns Audiobookshelf's JSON too.
func (d *Deps) ReadLibrary(ctx context.Context, id string) ([]byte, *absdata.Library, error) {
	body, err := d.Get(ctx, "library "+id, func(ctx context.Context) (*http.Response, error) {
		return d.API.GetLibrary(ctx, id)
	})
	if err != nil {
		return nil, nil, err
	}
	var l absdata.Library
	if err := Decode(body, &l); err != nil {
		return nil, nil, err
	}
	return body, &l, nil
}

// ReadLibraries reads every library the user of the call's key sees
// (GET /api/libraries).
func (d *Deps) ReadLibraries(ctx context.Context) ([]absdata.Library, error) {
	body, err := d.Get(ctx, "the library list", func(ctx context.Context) (*http.Response, error) { return d.API.ListLibraries(ctx) })
	if err != nil {
		return nil, err
	}
	var v struct {
		Libraries []absdata.Library `json:"libraries"`
	}
	if err := Decode(body, &v); err != nil {
		return nil, err
	}
	return v.Libraries, nil
}

// ReadMe reads the user of the call's key (GET /api/me), and returns
// Audiobookshelf's JSON too.
func (d *Deps) ReadMe(ctx context.Context) ([]byte, *absdata.User, error) {
	body, err := d.Get(ctx, "the current user", func(ctx context.Context) (*http.Response, error) { return d.API.GetMe(ctx) })
	if err != nil {
		return nil, nil, err
	}
	var u absdata.User
	if err := Decode(body, &u); err != nil {
		return nil, nil, err
	}
	return body, &u, nil
}

// Filter is Audiobookshelf's filter parameter: group.base64(value), as
// libraryFilters.decode reads it; the group alone ("issues") when value is
// empty.
func Filter(group, value string) string {
	if value == "" {
		return group
	}
	return group + "." + base64.StdEncoding.EncodeToString([]byte(value))
}

// ReadFilteredBooks reads the first limit items (minified) of a library
// that the filter of group and value holds, in Audiobookshelf's sort
// given, and how many it holds; what names the read in an error.
func (d *Deps) ReadFilteredBooks(ctx context.Context, what, libraryID, group, value, sort string, limit int) ([]absdata.Item, int, error) {
	filter := Filter(group, value)
	body, err := d.Get(ctx, what, func(ctx context.Context) (*http.Response, error) {
		return d.API.ListLibraryItems(ctx, libraryID, &abs.ListLibraryItemsParams{Filter: &filter, Sort: Ptr(sort),
			Minified: Ptr(abs.ListLibraryItemsParamsMinifiedN1), Limit: Ptr(limit), Page: Ptr(0)})
	})
	if err != nil {
		return nil, 0, err
	}
	var v absdata.Listing[absdata.Item]
	if err := Decode(body, &v); err != nil {
		return nil, 0, err
	}
	rows, total := v.Rows()
	n := len(rows)
	if total != nil {
		n = *total
	}
	return rows, n, nil
}

// ReadSeriesBooks reads the first limit books of a series in series order
// (the library's items filtered to it, sorted by sequence, minified), and
// how many it has.
func (d *Deps) ReadSeriesBooks(ctx context.Context, libraryID, seriesID string, limit int) ([]absdata.Item, int, error) {
	return d.ReadFilteredBooks(ctx, "the books of series "+seriesID, libraryID, "series", seriesID, "sequence", limit)
}

// batchItems is how many ids one POST /api/items/batch/get carries: its
// answer is every item expanded (each audio file with its metadata).
const batchItems = 100

// ReadItemsByID reads the library items of ids (expanded, as
// Audiobookshelf's batch read sends them), batchItems in one request, two
// requests at a time; ids that are no item are left out of the answer. It
// is a POST that changes nothing. Audiobookshelf answers 403 for a whole
// batch when the user may not access one of its items: such a batch is
// left out, and its ids are in the second answer.
func (d *Deps) ReadItemsByID(ctx context.Context, ids []string) (map[string]*absdata.Item, []string, error) {
	seen := map[string]bool{}
	var uniq []string
	for _, id := range ids {
		if id != "" && !seen[id] {
			seen[id] = true
			uniq = append(uniq, id)
		}
	}
	var chunks [][]string
	for len(uniq) > 0 {
		n := min(batchItems, len(uniq))
		chunks = append(chunks, uniq[:n])
		uniq = uniq[n:]
	}
	got := make([][]absdata.Item, len(chunks))
	refused := make([]bool, len(chunks))
	errs := make([]error, len(chunks))
	EachLimit(len(chunks), 2, func(i int) {
		r, err := d.Send(ctx, false, func(ctx context.Context) (*http.Response, error) {
			return d.API.BatchGetLibraryItems(ctx, abs.BatchGetLibraryItemsJSONRequestBody{LibraryItemIds: chunks[i]})
		})
		if err != nil {
			errs[i] = err
			return
		}
		if r.Status == http.StatusForbidden {
			refused[i] = true
			return
		}
		if r.Status/100 != 2 {
			errs[i] = StatusError(r, "the library items", false)
			return
		}
		var v struct {
			LibraryItems []absdata.Item `json:"libraryItems"`
		}
		errs[i] = Decode(r.Body, &v)
		got[i] = v.LibraryItems
	})
	out := map[string]*absdata.Item{}
	var left []string
	for i := range chunks {
		if errs[i] != nil {
			return nil, nil, errs[i]
		}
		if refused[i] {
			left = append(left, chunks[i]...)
		}
		for j := range got[i] {
			out[got[i][j].ID] = &got[i][j]
		}
	}
	return out, left, nil
}

// libraryPage is how many minified items one page of ReadAllItems holds;
// libraryMaxPages bounds one walk, rather than loop on a server that keeps
// sending pages.
const (
	libraryPage     = 500
	libraryMaxPages = 1000
)

// ReadAllItems reads every item of a library, minified (titles, authors,
// series names, durations; no files), libraryPage a page, one page after
// another until Audiobookshelf's total.
func (d *Deps) ReadAllItems(ctx context.Context, libraryID string) ([]absdata.Item, error) {
	var out []absdata.Item
	for page := 0; page < libraryMaxPages; page++ {
		body, err := d.Get(ctx, "library "+libraryID, func(ctx context.Context) (*http.Response, error) {
			return d.API.ListLibraryItems(ctx, libraryID, &abs.ListLibraryItemsParams{Limit: Ptr(libraryPage), Page: Ptr(page),
				Minified: Ptr(abs.ListLibraryItemsParamsMinifiedN1), Sort: Ptr("media.metadata.title")})
		})
		if err != nil {
			return nil, err
		}
		var v absdata.Listing[absdata.Item]
		if err := Decode(body, &v); err != nil {
			return nil, err
		}
		rows, total := v.Rows()
		out = append(out, rows...)
		if total == nil || len(rows) == 0 || len(out) >= *total {
			return out, nil
		}
	}
	return nil, Errorf(Unchanged, "library %q: Audiobookshelf was still sending pages of its items after %d pages of %d.", libraryID, libraryMaxPages, libraryPage)
}

// Ptr is a pointer to a copy of v, for the optional parameters of the
// generated client.
func Ptr[T any](v T) *T { return &v }

// ReadPlaylists reads the playlists of the user of the call's key
// (GET /api/playlists).
func (d *Deps) ReadPlaylists(ctx context.Context) ([]absdata.Playlist, error) {
	body, err := d.Get(ctx, "the playlists", func(ctx context.Context) (*http.Response, error) { return d.API.ListPlaylists(ctx) })
	if err != nil {
		return nil, err
	}
	var v struct {
		Playlists []absdata.Playlist `json:"playlists"`
	}
	if err := Decode(body, &v); err != nil {
		return nil, err
	}
	return v.Playlists, nil
}

// Holding is a playlist that a removal takes entries out of: Taken of
// its Of entries.
type Holding struct {
	ID, Name  string
	Taken, Of int
}

// PlaylistsHolding is what a removal takes out of playlists: each
// playlist with an entry that taken holds, in the order read, and the ids
// of those it leaves without any entry (Audiobookshelf deletes them).
func PlaylistsHolding(pls []absdata.Playlist, taken func(absdata.PlaylistItem) bool) (in []Holding, emptied []string) {
	for _, p := range pls {
		n := 0
		for _, e := range p.Items {
			if taken(e) {
				n++
			}
		}
		if n > 0 {
			in = append(in, Holding{ID: p.ID, Name: p.Name, Taken: n, Of: len(p.Items)})
			if n == len(p.Items) {
				emptied = append(emptied, p.ID)
			}
		}
	}
	return in, emptied
}

// ProgressMark is what an approval is bound to of a progress record: its
// id, last update, position and whether it is finished.
func ProgressMark(p absdata.Progress) string {
	return fmt.Sprintf("%s:%d:%v:%v", p.ID, p.LastUpdate, p.CurrentTime, p.IsFinished)
}

// GetAs reads what with s (Get) and decodes Audiobookshelf's JSON as a T.
func GetAs[T any](ctx context.Context, d *Deps, what string, s Sender) (*T, error) {
	body, err := d.Get(ctx, what, s)
	if err != nil {
		return nil, err
	}
	var v T
	if err := Decode(body, &v); err != nil {
		return nil, err
	}
	return &v, nil
}

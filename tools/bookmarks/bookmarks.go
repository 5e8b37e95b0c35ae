package bookmarks

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/argdec"
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

// Bookmark is one bookmark.
type Bookmark struct {
	ItemID  string  `json:"library_item_id"`
	TimeS   float64 `json:"time_s"`
	Title   string  `json:"title"`
	Created string  `json:"created,omitempty"`
	// Broken is set for a bookmark whose time Audiobookshelf stored as text:
	// it cannot be deleted or renamed through the API.
	Broken bool `json:"time_stored_as_text,omitempty"`
}

func bookmarkOf(b absdata.Bookmark) (Bookmark, bool) {
	t, err := strconv.ParseFloat(string(b.Time), 64)
	out := Bookmark{ItemID: b.LibraryItemID, TimeS: t, Title: b.Title, Created: compact.Stamp(b.CreatedAt)}
	return out, err == nil
}

func itemBookmarks(ctx context.Context, d *kit.Deps, itemID string) ([]absdata.Bookmark, error) {
	body, err := d.Get(ctx, "the bookmarks of library item "+itemID, func(ctx context.Context) (*http.Response, error) {
		return d.API.ListItemBookmarks(ctx, itemID)
	})
	if err != nil {
		return nil, err
	}
	var v struct {
		Bookmarks []absdata.Bookmark `json:"bookmarks"`
	}
	if err := kit.Decode(body, &v); err != nil {
		return nil, err
	}
	return v.Bookmarks, nil
}

// bookmarkAt finds the bookmark at time t; Audiobookshelf compares the
// stored time with == against a number.
func bookmarkAt(bms []absdata.Bookmark, t float64) *absdata.Bookmark {
	for i := range bms {
		if v, err := strconv.ParseFloat(string(bms[i].Time), 64); err == nil && v == t {
			return &bms[i]
		}
	}
	return nil
}

func timesOf(bms []absdata.Bookmark) string {
	var ts []float64
	for _, b := range bms {
		if v, err := strconv.ParseFloat(string(b.Time), 64); err == nil {
			ts = append(ts, v)
		}
	}
	sort.Float64s(ts)
	if len(ts) == 0 {
		return "it has none"
	}
	s := "its bookmarks are at"
	for i, t := range ts {
		if i == 10 {
			s += " …"
			break
		}
		s += " " + strconv.FormatFloat(t, 'f', -1, 64)
	}
	return s + " s"
}

// ListBookmarks is list_bookmarks.
func ListBookmarks(ctx context.Context, d *kit.Deps, a toolargs.ListBookmarks) (*mcp.CallToolResult, error) {
	var bms []absdata.Bookmark
	if a.LibraryItemID != nil {
		var err error
		if bms, err = itemBookmarks(ctx, d, *a.LibraryItemID); err != nil {
			return nil, err
		}
	} else {
		body, err := d.Get(ctx, "the bookmarks", func(ctx context.Context) (*http.Response, error) { return d.API.ListAllBookmarks(ctx) })
		if err != nil {
			return nil, err
		}
		var v struct {
			Bookmarks []absdata.Bookmark `json:"bookmarks"`
		}
		if err := kit.Decode(body, &v); err != nil {
			return nil, err
		}
		bms = v.Bookmarks
	}
	out := make([]Bookmark, 0, len(bms))
	for _, b := range bms {
		bm, ok := bookmarkOf(b)
		bm.Broken = !ok
		out = append(out, bm)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].ItemID != out[j].ItemID {
			return out[i].ItemID < out[j].ItemID
		}
		return out[i].TimeS < out[j].TimeS
	})
	return result.Page(d, "bookmarks", result.PagingOf(a.Page, a.Limit), out, nil, result.AsIs)
}

// CreateBookmark is create_bookmark. Audiobookshelf answers a create at an
// occupied time by replacing that bookmark's title, so this checks first
// and refuses.
//
// Audiobookshelf takes any title and any time; a blank title or a time past
// the end of a book would make a bookmark nobody can use, so they are
// refused here.
func CreateBookmark(ctx context.Context, d *kit.Deps, a toolargs.CreateBookmark) (*mcp.CallToolResult, error) {
	if err := blankTitle(a.Title); err != nil {
		return nil, err
	}
	// The item (its duration) and its bookmarks do not depend on each
	// other: both are asked for at once.
	type listed struct {
		bms []absdata.Bookmark
		err error
	}
	bookmarks := kit.Alongside(ctx, func(ctx context.Context) listed {
		bms, err := itemBookmarks(ctx, d, a.LibraryItemID)
		return listed{bms, err}
	})
	_, it, err := d.ReadItem(ctx, a.LibraryItemID, nil)
	if err != nil {
		bookmarks.Abandon()
		return nil, err
	}
	if it.MediaType == "book" && it.Media.Duration > 0 && a.Time > it.Media.Duration {
		bookmarks.Abandon()
		return nil, kit.Errorf(kit.Unchanged, `argument "time": %s s is past the end of library item %s, which lasts %s s; give a position from 0 to %s.`,
			strconv.FormatFloat(a.Time, 'f', -1, 64), a.LibraryItemID, strconv.FormatFloat(it.Media.Duration, 'f', -1, 64), strconv.FormatFloat(it.Media.Duration, 'f', -1, 64))
	}
	l := bookmarks.Wait()
	if l.err != nil {
		return nil, l.err
	}
	bms := l.bms
	if bookmarkAt(bms, a.Time) != nil {
		return nil, kit.Errorf(kit.Unchanged, "Library item %s already has a bookmark at %s s; creating one there would overwrite its title. To rename it use update_bookmark; to add another, pick another time.",
			a.LibraryItemID, strconv.FormatFloat(a.Time, 'f', -1, 64))
	}
	body, err := d.Mutate(ctx, "library item "+a.LibraryItemID, func(ctx context.Context) (*http.Response, error) {
		return d.API.CreateBookmark(ctx, a.LibraryItemID, abs.CreateBookmarkJSONRequestBody{Time: a.Time, Title: a.Title})
	})
	if err != nil {
		return nil, err
	}
	var b absdata.Bookmark
	if kit.Decode(body, &b) != nil {
		return result.TextResult("Bookmark created at %s s in library item %s.", strconv.FormatFloat(a.Time, 'f', -1, 64), a.LibraryItemID)
	}
	bm, _ := bookmarkOf(b)
	return result.JSONResult(map[string]any{"created": true, "bookmark": bm,
		"put_back": &result.PutBack{Tool: "delete_bookmark", Arguments: map[string]any{"library_item_id": a.LibraryItemID, "time": a.Time},
			Note: "Deleting it asks the person first."}})
}

// blankTitle refuses a title of white space only.
func blankTitle(title string) error {
	if strings.TrimSpace(title) == "" {
		return kit.Errorf(kit.Unchanged, `argument "title": must have at least one character that is not a space.`)
	}
	return nil
}

// PlanUpdateBookmark plans update_bookmark. The old title is read first:
// the answer carries it and the call that gives it back (docs/guards.md).
// A title that call could not give back (blank, longer than the tool
// takes, or holding a control character its arguments refuse, as a CR)
// makes it ask first.
func PlanUpdateBookmark(ctx context.Context, d *kit.Deps, a toolargs.UpdateBookmark) (*kit.Plan, error) {
	if err := blankTitle(a.Title); err != nil {
		return nil, err
	}
	bms, err := itemBookmarks(ctx, d, a.LibraryItemID)
	if err != nil {
		return nil, err
	}
	old := bookmarkAt(bms, a.Time)
	ts := strconv.FormatFloat(a.Time, 'f', -1, 64)
	if old == nil {
		return nil, kit.Errorf(kit.Unchanged, "Library item %s has no bookmark at %s s (list_bookmarks gives the times; create_bookmark adds one).", a.LibraryItemID, ts)
	}
	plan := &kit.Plan{Targets: []string{a.LibraryItemID}}
	var lostWhy string
	switch n := argdec.RefusedControls(old.Title); {
	case n > 0:
		lostWhy = result.ControlWhy("title", n)
	case strings.TrimSpace(old.Title) == "":
		lostWhy = "the title is blank, and the tool takes no blank title"
	case utf8.RuneCountInString(old.Title) > maxTitleLen:
		lostWhy = fmt.Sprintf("the title is longer than the %d characters the tool takes", maxTitleLen)
	}
	if lostWhy != "" {
		plan.Effects = append(plan.Effects, result.EffectUnrestorableText)
		// The bookmarks carry no item title: the item is read for the
		// question's name (only when it asks).
		plan.Action = fmt.Sprintf("This will replace the title %s of the bookmark at %s s in %s with %s.", guard.Quote(old.Title), ts, naming.ItemName(ctx, d, a.LibraryItemID, nil), guard.Quote(a.Title))
		plan.Consequences = []string{"The title it holds now could not be given back with update_bookmark: " + lostWhy + "."}
		// The title and creation time, as delete_bookmark binds them.
		plan.Read = map[string]any{"title": old.Title, "createdAt": old.CreatedAt}
	}
	plan.Execute = func(ctx context.Context) (*mcp.CallToolResult, error) {
		r, err := d.Send(ctx, true, func(ctx context.Context) (*http.Response, error) {
			return d.API.UpdateBookmark(ctx, a.LibraryItemID, abs.UpdateBookmarkJSONRequestBody{Time: a.Time, Title: a.Title})
		})
		if err != nil {
			return nil, err
		}
		if r.Status == http.StatusNotFound {
			return nil, kit.Errorf(kit.Unchanged, "Library item %s has no bookmark at %s s (list_bookmarks gives the times; create_bookmark adds one).", a.LibraryItemID, ts)
		}
		what := "the bookmark at " + ts + " s in library item " + a.LibraryItemID
		if r.Status/100 != 2 {
			return nil, kit.StatusError(r, what, true)
		}
		if err := d.CheckWrite(r, what); err != nil {
			return nil, err
		}
		var b absdata.Bookmark
		if kit.Decode(r.Body, &b) != nil {
			return result.TextResult("Bookmark at %s s in library item %s renamed.", ts, a.LibraryItemID)
		}
		bm, _ := bookmarkOf(b)
		out := map[string]any{"updated": true, "bookmark": bm, "previous": map[string]any{"title": old.Title}}
		if lostWhy == "" {
			out["put_back"] = &result.PutBack{Tool: "update_bookmark", Arguments: map[string]any{"library_item_id": a.LibraryItemID, "time": a.Time, "title": old.Title}}
		} else {
			out["not_put_back"] = "The old title could not be given back with update_bookmark (" + lostWhy + "); it is in previous, whole."
		}
		return result.JSONResult(out)
	}
	return plan, nil
}

// maxTitleLen is the longest title update_bookmark takes (tools.yaml).
const maxTitleLen = 1000

// PlanDeleteBookmark plans delete_bookmark: the bookmark must exist at that
// exact time, so a wrong time removes nothing else.
func PlanDeleteBookmark(ctx context.Context, d *kit.Deps, a toolargs.DeleteBookmark) (*kit.Plan, error) {
	bms, err := itemBookmarks(ctx, d, a.LibraryItemID)
	if err != nil {
		return nil, err
	}
	bm := bookmarkAt(bms, a.Time)
	if bm == nil {
		return nil, kit.Errorf(kit.Unchanged, `argument "time": library item %s has no bookmark at %s s; %s.`, a.LibraryItemID, strconv.FormatFloat(a.Time, 'f', -1, 64), timesOf(bms))
	}
	ts := strconv.FormatFloat(a.Time, 'f', -1, 64)
	return &kit.Plan{
		Targets: []string{a.LibraryItemID},
		// The bookmarks carry no item title: the item is read for the
		// question's name.
		Action: fmt.Sprintf("This will delete the bookmark %s at %s s in %s (%d bookmark(s) there now).", guard.Quote(bm.Title), ts, naming.ItemName(ctx, d, a.LibraryItemID, nil), len(bms)),
		// The bookmark's title and creation time: a bookmark made again at
		// the same time after this one is deleted has a new createdAt. The
		// question shows the title quoted, cleaned and clipped.
		Read: struct {
			ItemID    string `json:"libraryItemId"`
			Time      string `json:"time"`
			Title     string `json:"title"`
			CreatedAt int64  `json:"createdAt"`
		}{bm.LibraryItemID, string(bm.Time), bm.Title, bm.CreatedAt},
		Execute: func(ctx context.Context) (*mcp.CallToolResult, error) {
			_, err := d.Mutate(ctx, "the bookmark at "+ts+" s in library item "+a.LibraryItemID, func(ctx context.Context) (*http.Response, error) {
				return d.API.DeleteBookmark(ctx, a.LibraryItemID, a.Time)
			})
			if err != nil {
				return nil, err
			}
			return result.JSONResult(map[string]any{"deleted": true, "library_item_id": a.LibraryItemID, "time_s": a.Time})
		},
	}, nil
}

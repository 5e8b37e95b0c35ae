package kit

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
)

// What the person of a call may see. Audiobookshelf keeps libraries, tags
// and explicit books from a user (User.checkCanAccessLibraryItem), yet
// some of its routes reach past that: the tag, genre and narrator renames
// change every item of the server, an author is read and changed by id
// whatever its library, and the items in progress and progress records
// keep a book of a library the user has lost. These helpers keep a call
// to what the person sees.

// Viewer is the Audiobookshelf user the call is made as: the user Permit
// read for the call's permission, else read now (GET /api/me), per person
// too, whose user known from the key's check may be a minute old.
func (d *Deps) Viewer(ctx context.Context) (Person, error) {
	if p, ok := Checked(ctx); ok {
		return p, nil
	}
	_, me, err := d.ReadMe(ctx)
	if err != nil {
		return Person{}, err
	}
	return PersonOf(me), nil
}

// RefuseServerWide is the error of tool, a change Audiobookshelf makes on
// every item of the server holding a name (what: "tag", "genre",
// "narrator"), refused because p does not see every item: what it would
// change there cannot be counted, shown nor put back from here. It names
// why and who could make the change, and nothing of what p does not see.
func RefuseServerWide(tool, what string, p Person) error {
	return &Error{Outcome: NotAsked,
		Text: fmt.Sprintf("%s did not run because Audiobookshelf changes the %s on every item of the server, in every library, and the Audiobookshelf user this call is made as (%s, id %s) does not see every item (some libraries, tags or explicit books are kept from it): what the change would do there cannot be counted, shown to the person, nor put back from here. An Audiobookshelf administrator who sees every library, every tag and explicit content can make this change.",
			tool, what, Quote(Clip(p.Username, 100)), ShowID(p.UserID)),
		Structured: map[string]any{"status": "not_changed", "outcome": "outside what the user sees"}}
}

// LibrarySet is the ids of the libraries the user of the call sees (GET
// /api/libraries lists only those, LibraryController.findAll).
func (d *Deps) LibrarySet(ctx context.Context) (map[string]bool, error) {
	libs, err := d.ReadLibraries(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(libs))
	for _, l := range libs {
		out[l.ID] = true
	}
	return out, nil
}

// Seen is the libraries the user of the call sees, or why they could not
// be read (SeenLibraries).
type Seen struct {
	set map[string]bool
	err error
}

// SeenLibraries reads the libraries the user of the call sees, alongside
// the read of a record that Audiobookshelf answers whatever its library
// (an author, a series); Seen.Check then refuses the record.
func (d *Deps) SeenLibraries(ctx context.Context) *Pending[Seen] {
	return Alongside(ctx, func(ctx context.Context) Seen {
		set, err := d.LibrarySet(ctx)
		return Seen{set, err}
	})
}

// Check refuses record id (what: "author", "series"), given as argument
// arg, of library libraryID when the user does not see that library, as
// if it were not there (NotSeen); the error of the libraries' read, if it
// failed.
func (s Seen) Check(arg, what, id, libraryID string) error {
	if s.err != nil {
		return s.err
	}
	if !s.set[libraryID] {
		return NotSeen(arg, what, id)
	}
	return nil
}

// NotSeen is the error for a record (what: "author", "series") the user of
// the call does not see, given as argument arg: worded as Audiobookshelf's
// 404 is, so it tells nothing of the record.
func NotSeen(arg, what, id string) error {
	return &Error{Outcome: Unchanged, Status: http.StatusNotFound,
		Text: fmt.Sprintf("argument %q (%s %s): not found among the libraries this user sees; check the id (the list tools give the ids).", arg, what, ShowID(id))}
}

// ItemsInProgress reads the user's items in progress (GET
// /api/me/items-in-progress, the first limit, most recent first) and keeps
// those of libraries the user sees, with the library list read at the same
// time: Audiobookshelf (MeController.getAllLibraryItemsInProgress) lists
// every item the user has progress in, those of a library they no longer
// see included. It answers Audiobookshelf's body with those left out, how
// many entries Audiobookshelf sent, and the ids of those left out.
func (d *Deps) ItemsInProgress(ctx context.Context, limit int) (body []byte, sent int, hidden []string, err error) {
	libs := d.SeenLibraries(ctx)
	raw, err := d.Get(ctx, "the items in progress", func(ctx context.Context) (*http.Response, error) {
		return d.API.ListItemsInProgress(ctx, &abs.ListItemsInProgressParams{Limit: Ptr(limit)})
	})
	if err != nil {
		libs.Abandon()
		return nil, 0, nil, err
	}
	var v struct {
		LibraryItems []json.RawMessage `json:"libraryItems"`
	}
	if err := Decode(raw, &v); err != nil {
		libs.Abandon()
		return nil, 0, nil, err
	}
	l := libs.Wait()
	if l.err != nil {
		return nil, 0, nil, l.err
	}
	kept := make([]json.RawMessage, 0, len(v.LibraryItems))
	for _, e := range v.LibraryItems {
		var it absdata.InProgressItem
		if err := absdata.Unmarshal(e, &it); err != nil {
			return nil, 0, nil, Errorf(Unchanged, "Audiobookshelf's list of the items in progress could not be read: %v", err)
		}
		if l.set[it.LibraryID] {
			kept = append(kept, e)
		} else {
			hidden = append(hidden, it.ID)
		}
	}
	if len(hidden) == 0 {
		return raw, len(v.LibraryItems), nil, nil
	}
	body, err = json.Marshal(map[string]any{"libraryItems": kept})
	if err != nil {
		return nil, 0, nil, Errorf(Stated, "internal error: could not encode the items in progress: %v", err)
	}
	return body, len(v.LibraryItems), hidden, nil
}

package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/guard"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// Text the tools' own argument check refuses (a control character other
// than a line feed or a tab: CR, so any CRLF, VT, FF, NUL, ESC, DEL, the C1
// controls) cannot travel in a put-back: the call giving it back would be
// refused. So where such text is what an update replaces, the four update
// tools ask first, naming the record by its quoted, cleaned name (a
// description never shows); where the put-back restores
// exactly (line feeds and tabs), nothing changes.

// storedText is what each case stores: the marker "MARK" lets a test check
// that a description never reaches a question, and a name only quoted.
var hostileStored = map[string]string{
	"CRLF": "MARK line one\r\nline two",
	"VT":   "MARK\vx",
	"FF":   "MARK\fx",
	"NUL":  "MARK\x00x",
	"ESC":  "MARK\x1b[31mred",
	"DEL":  "MARK\x7fx",
	"C1":   "MARK\u0085x\u009bx",
}

// setStored puts text where each tool's case replaces it.
func setStored(tool, text string) func(d *sd.Data) {
	return func(d *sd.Data) {
		switch tool {
		case "update_collection":
			for i := range d.Collections {
				if d.Collections[i].ID == sd.CollectionSpaceOpera {
					d.Collections[i].Description = &text
				}
			}
		case "update_playlist":
			for i := range d.Playlists {
				if d.Playlists[i].ID == sd.PlaylistCatchUp {
					d.Playlists[i].Name = text
				}
			}
		case "update_bookmark":
			for i := range d.Users[0].Bookmarks {
				if b := &d.Users[0].Bookmarks[i]; b.LibraryItemID == sd.ItemColourOfMagic && b.Time == any(3600.0) {
					b.Title = text
				}
			}
		case "update_item_metadata":
			for i := range d.Items {
				if d.Items[i].ID == sd.ItemProjectHailMary {
					d.Items[i].Book.Description = text
				}
			}
		}
	}
}

var unrestorableCalls = []struct {
	tool, id string
	args     map[string]any
}{
	{"update_collection", sd.CollectionSpaceOpera, map[string]any{"collection_id": sd.CollectionSpaceOpera, "description": "new text"}},
	{"update_playlist", sd.PlaylistCatchUp, map[string]any{"playlist_id": sd.PlaylistCatchUp, "name": "new text"}},
	{"update_bookmark", sd.ItemColourOfMagic, map[string]any{"library_item_id": sd.ItemColourOfMagic, "time": 3600, "title": "new text"}},
	{"update_item_metadata", sd.ItemProjectHailMary, map[string]any{"library_item_id": sd.ItemProjectHailMary, "fields": map[string]any{"description": "new text"}}},
}

// TestUnrestorableTextAsks: stored text with a character the put-back
// would be refused for makes each update tool ask; the question names the
// id, the field and a count; a name or title it replaces stands only
// quoted and cleaned, a description not at all; declined, nothing is sent.
func TestUnrestorableTextAsks(t *testing.T) {
	t.Parallel()
	for _, c := range unrestorableCalls {
		for kind, text := range hostileStored {
			t.Run(c.tool+"/"+kind, func(t *testing.T) {
				t.Parallel()
				rec := &recorder{answer: func(*mcp.ElicitRequest) *mcp.ElicitResult { return &mcp.ElicitResult{Action: "decline"} }}
				e := start(t, apptest.Options{Elicit: rec.handle})
				e.Standin.Update(setStored(c.tool, text))
				e.Standin.ResetRequests()
				res := e.Call(t, c.tool, c.args)
				asked := rec.asked()
				if len(asked) != 1 {
					t.Fatalf("asked %d times, want once: %s", len(asked), apptest.Text(res))
				}
				q := asked[0]
				for _, w := range []string{c.id, "control character", "could not be given back"} {
					if !strings.Contains(q, w) {
						t.Errorf("the question lacks %q:\n%s", w, q)
					}
				}
				onlyQuoted(t, "the question", q, "MARK", "new text", "[31m")
				// A new name or title is said, quoted; a description, old or
				// new, is not.
				switch c.tool {
				case "update_playlist":
					if !strings.Contains(q, `(new name "new text")`) {
						t.Errorf("the question does not say the new name:\n%s", q)
					}
				case "update_bookmark":
					if !strings.Contains(q, `with "new text"`) {
						t.Errorf("the question does not say the new title:\n%s", q)
					}
				default:
					if strings.Contains(q, "new text") || strings.Contains(q, "MARK") {
						t.Errorf("the question holds a description:\n%s", q)
					}
				}
				if m := mutations(e.Standin); len(m) != 0 || !res.IsError {
					t.Errorf("declined, yet sent %v: %s", m, apptest.Text(res))
				}
			})
		}
	}
}

// TestUnrestorableTextApproved: approved, the change is made once; the
// answer carries the old text whole and says why there is no put-back.
func TestUnrestorableTextApproved(t *testing.T) {
	t.Parallel()
	for _, c := range unrestorableCalls {
		t.Run(c.tool, func(t *testing.T) {
			t.Parallel()
			asked := 0
			e := start(t, apptest.Options{Elicit: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked++
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{guard.ApproveField: true}}, nil
			}})
			e.Standin.Update(setStored(c.tool, hostileStored["CRLF"]))
			e.Standin.ResetRequests()
			res := e.Call(t, c.tool, c.args)
			if res.IsError || asked != 1 || len(mutations(e.Standin)) != 1 {
				t.Fatalf("asked %d, mutations %v: %s", asked, mutations(e.Standin), apptest.Text(res))
			}
			txt := apptest.Text(res)
			if strings.Contains(txt, `"put_back"`) {
				t.Errorf("an answer names a put-back that would be refused: %s", txt)
			}
			if !strings.Contains(txt, `MARK line one\r\nline two`) {
				t.Errorf("the answer lacks the old text whole: %s", txt)
			}
		})
	}
}

// TestRestorableTextDoesNotAsk: line feeds and tabs are text the tools
// take, so the put-back restores them exactly: no question, and the
// put-back gives the record back.
func TestRestorableTextDoesNotAsk(t *testing.T) {
	t.Parallel()
	for _, c := range unrestorableCalls {
		t.Run(c.tool, func(t *testing.T) {
			t.Parallel()
			rec := &recorder{answer: func(*mcp.ElicitRequest) *mcp.ElicitResult { return &mcp.ElicitResult{Action: "decline"} }}
			e := start(t, apptest.Options{Elicit: rec.handle})
			e.Standin.Update(setStored(c.tool, "MARK line one\nline\ttwo"))
			e.Standin.ResetRequests()
			res := e.Call(t, c.tool, c.args)
			if asked := rec.asked(); len(asked) != 0 || res.IsError || len(mutations(e.Standin)) != 1 {
				t.Fatalf("asked %q, mutations %v: %s", asked, mutations(e.Standin), apptest.Text(res))
			}
			v := decode(t, res)
			pb := at(t, v, "put_back").(map[string]any)
			back := e.Call(t, str(pb["tool"]), pb["arguments"].(map[string]any))
			if back.IsError {
				t.Fatalf("put-back refused: %s", apptest.Text(back))
			}
			if !strings.Contains(apptest.Text(back), `MARK line one\nline\ttwo`) {
				t.Errorf("the put-back did not give the text back: %s", apptest.Text(back))
			}
		})
	}
}

package e2e

import (
	"strings"
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// A server older than a route the tools use: the call names the server's
// version, the route and the release it came in (the spec's x-abs-since),
// instead of a bare 404; get_server_status lists what the server lacks.
func TestVersionGates(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{Elicit: approve, Standin: standin.Options{ServerVersion: "2.35.1"}})
	book := standin.ItemMort

	res := e.Call(t, "list_bookmarks", nil)
	want := "Audiobookshelf 2.35.1 does not have GET /api/me/bookmarks, which came in Audiobookshelf 2.36.0; list_bookmarks needs 2.36.0 or newer."
	if !res.IsError || !strings.Contains(apptest.Text(res), want) {
		t.Errorf("list_bookmarks on 2.35.1: %s", apptest.Text(res))
	}
	res = e.Call(t, "create_bookmark", map[string]any{"library_item_id": book, "time": 12, "title": "x"})
	want = "does not have GET /api/me/bookmarks/{libraryItemId}, which came in Audiobookshelf 2.36.0; list_bookmarks, create_bookmark, update_bookmark, delete_bookmark need 2.36.0 or newer"
	if !res.IsError || !strings.Contains(apptest.Text(res), want) {
		t.Errorf("create_bookmark on 2.35.1: %s", apptest.Text(res))
	}
	if m := mutations(e.Standin); len(m) != 0 {
		t.Errorf("mutations sent: %v", m)
	}

	v := decode(t, e.Call(t, "get_server_status", nil))
	if str(at(t, v, "server_version")) != "2.35.1" || str(at(t, v, "written_for")) != "2.36.0" {
		t.Errorf("status: %v", v)
	}
	lacks, _ := at(t, v, "lacks").([]any)
	if len(lacks) != 2 || str(at(t, lacks, 0, "what")) != "GET /api/me/bookmarks" || str(at(t, lacks, 0, "since")) != "2.36.0" ||
		str(at(t, lacks, 1, "what")) != "GET /api/me/bookmarks/{libraryItemId}" {
		t.Errorf("lacks: %v", lacks)
	}
	if !strings.Contains(str(at(t, v, "note")), "2.35.1 is older") {
		t.Errorf("note: %v", at(t, v, "note"))
	}
}

// On the release the spec was written from nothing is lacking, and a 404 a
// route of that release gives (an unknown item) keeps its own message.
func TestVersionGatesCurrentServer(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{})
	v := decode(t, e.Call(t, "get_server_status", nil))
	if m, _ := v.(map[string]any); m["lacks"] != nil || m["note"] != nil {
		t.Errorf("2.36.0 lacks something: %v", v)
	}
	res := e.Call(t, "list_bookmarks", map[string]any{"library_item_id": unknownID})
	if !res.IsError || strings.Contains(apptest.Text(res), "came in") || !strings.Contains(apptest.Text(res), "404") {
		t.Errorf("unknown item on 2.36.0: %s", apptest.Text(res))
	}
	if len(decode(t, e.Call(t, "list_bookmarks", nil)).(map[string]any)) == 0 {
		t.Error("list_bookmarks on 2.36.0 is empty")
	}
}

// A server from before API keys refuses the key; the call says so and
// names the release that brought them.
func TestVersionGatesBeforeAPIKeys(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{Standin: standin.Options{ServerVersion: "2.25.1"}})
	res := e.Call(t, "get_me", nil)
	want := "Audiobookshelf 2.25.1 refused the key: it has no API keys, which came in Audiobookshelf 2.26.0."
	if !res.IsError || !strings.Contains(apptest.Text(res), want) {
		t.Errorf("get_me on 2.25.1: %s", apptest.Text(res))
	}
	v := decode(t, e.Call(t, "get_server_status", nil))
	lacks, _ := at(t, v, "lacks").([]any)
	if len(lacks) != 3 || !strings.HasPrefix(str(at(t, lacks, 0, "what")), "API keys") || str(at(t, lacks, 0, "since")) != "2.26.0" {
		t.Errorf("lacks on 2.25.1: %v", lacks)
	}
}

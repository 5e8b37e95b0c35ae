package live

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestLiveScope runs the binary as an Audiobookshelf admin who sees only
// the server's book library, beside a second book library made here that
// she no longer sees, holding two books with the same tag, genre and
// narrator as a book she sees, their own authors, her progress in one and
// a finish of the other (kept by Audiobookshelf after she lost the
// library). Audiobookshelf renames tags, genres and narrators on every
// item of the server, reads and changes an author of any library by id,
// and lists her items in progress whatever their library: the binary
// refuses the renames and merges before anything is asked or sent, refuses
// the author merge as if the authors were not there, and leaves the lost
// library's books out of list_items_in_progress, what_next,
// get_series_progress, the listening-now resource and the completions,
// without a 403. Everything made here (the library, its folder, the user,
// her key) is removed at the end with the root key, and the visible
// book's tags, genres and narrators are set back, even when a step fails.
func TestLiveScope(t *testing.T) {
	target, _, root := liveABS(t)
	ffmpeg, err := exec.LookPath("ffmpeg")
	if err != nil {
		t.Fatal("the second library's audio is made with ffmpeg, which is not on PATH")
	}
	root.hc.Timeout = 2 * time.Minute
	run := fmt.Sprintf("mcp-live-scope-%d", time.Now().UnixNano())
	shared, joined, keep := run+"-Shared", run+"-Joined", run+"-Keep"
	sharedV, joinedV, keepV := run+" Shared Voice", run+" Joined Voice", run+" Keep Voice"

	// The visible book: its lists as they are, set back at the end.
	bookLib := root.libraries()["book"]
	// Claimed, so that another run sharing the server leaves it alone.
	seen := claimBooks(root, bookLib, 1, nil)[0]
	lists := func(id string) (tags, genres, narrators []string) {
		var v map[string]any
		root.get("/api/items/"+id+"?expanded=1", &v)
		str := func(l any) []string {
			out := []string{}
			for _, e := range asList(l) {
				out = append(out, fmt.Sprint(e))
			}
			return out
		}
		return str(at(v, "media", "tags")), str(at(v, "media", "metadata", "genres")), str(at(v, "media", "metadata", "narrators"))
	}
	setLists := func(id string, tags, genres, narrators []string) {
		t.Helper()
		body := map[string]any{"tags": tags, "metadata": map[string]any{"genres": genres, "narrators": narrators}}
		if st := root.do("PATCH", "/api/items/"+id+"/media", body, nil); st != 200 {
			t.Errorf("PATCH /api/items/%s/media: %d", id, st)
		}
	}
	ot, og, on := lists(seen)
	t.Cleanup(func() { setLists(seen, ot, og, on) })
	setLists(seen, []string{shared}, []string{shared}, []string{sharedV})

	// The second library: two books, each by its own author.
	dir := t.TempDir()
	type hiddenBook struct{ author, title, id string }
	hidden := []*hiddenBook{{author: run + " Authora", title: run + " Book A"}, {author: run + " Authorb", title: run + " Book B"}}
	for _, b := range hidden {
		silentBook(t, ffmpeg, filepath.Join(dir, b.author, b.title, "audio.mp3"), "120")
	}
	lib := struct{ ID string }{ownLibrary(t, root, run, dir)}
	var listing struct {
		Results []struct {
			ID    string
			Media struct{ Metadata struct{ Title string } }
		}
	}
	root.get("/api/libraries/"+lib.ID+"/items?limit=10", &listing)
	for _, r := range listing.Results {
		for _, b := range hidden {
			if r.Media.Metadata.Title == b.title {
				b.id = r.ID
			}
		}
	}
	if hidden[0].id == "" || hidden[1].id == "" {
		t.Fatalf("the scan of %s found %d books, not the two written", run, len(listing.Results))
	}
	setLists(hidden[0].id, []string{shared, joined}, []string{shared, joined}, []string{sharedV, joinedV})
	setLists(hidden[1].id, []string{shared, keep}, []string{shared, keep}, []string{sharedV, keepV})
	var authors struct{ Authors []struct{ ID, Name string } }
	root.get("/api/libraries/"+lib.ID+"/authors", &authors)
	authorID := map[string]string{}
	for _, a := range authors.Authors {
		authorID[a.Name] = a.ID
	}
	authorA, authorB := authorID[hidden[0].author], authorID[hidden[1].author]
	if authorA == "" || authorB == "" {
		t.Fatalf("the library's authors are %v, not the two written", authors.Authors)
	}

	// The admin: every library at first, to make her progress there; then
	// the book library alone.
	pw := make([]byte, 16)
	rand.Read(pw)
	perms := func(libs ...string) map[string]any {
		return map[string]any{"download": true, "update": true, "delete": false, "upload": false,
			"accessAllLibraries": false, "accessAllTags": true, "accessExplicitContent": true, "librariesAccessible": libs}
	}
	var made struct{ User struct{ ID string } }
	if st := root.do("POST", "/api/users", map[string]any{"username": run, "password": hex.EncodeToString(pw), "type": "admin", "isActive": true,
		"permissions": perms(bookLib, lib.ID)}, &made); st != 200 || made.User.ID == "" {
		t.Fatalf("POST /api/users: %d", st)
	}
	t.Cleanup(func() {
		if st := root.do("DELETE", "/api/users/"+made.User.ID, nil, nil); st != 200 {
			t.Errorf("deleting the user %s: %d", made.User.ID, st)
		}
	})
	var key struct{ APIKey struct{ ID, APIKey string } }
	if st := root.do("POST", "/api/api-keys", map[string]any{"name": run, "userId": made.User.ID, "isActive": true}, &key); st != 200 || key.APIKey.APIKey == "" {
		t.Fatalf("POST /api/api-keys: %d", st)
	}
	t.Cleanup(func() {
		if st := root.do("DELETE", "/api/api-keys/"+key.APIKey.ID, nil, nil); st != 200 {
			t.Errorf("deleting the API key %s: %d", key.APIKey.ID, st)
		}
	})
	her := &abs{t: t, base: target.String(), key: key.APIKey.APIKey, hc: root.hc}
	if st := her.do("PATCH", "/api/me/progress/"+hidden[0].id, map[string]any{"duration": 120, "progress": 0.5, "currentTime": 60}, nil); st != 200 {
		t.Fatalf("her progress in %s: %d", hidden[0].id, st)
	}
	if st := her.do("PATCH", "/api/me/progress/"+hidden[1].id, map[string]any{"isFinished": true}, nil); st != 200 {
		t.Fatalf("her finish of %s: %d", hidden[1].id, st)
	}
	if st := root.do("PATCH", "/api/users/"+made.User.ID, map[string]any{"permissions": perms(bookLib)}, nil); st != 200 {
		t.Fatalf("keeping the user to %s: %d", bookLib, st)
	}

	// Audiobookshelf as measured: her libraries are the book library
	// alone, yet her items in progress still hold the lost book, whose
	// item route answers her 403.
	var hers struct{ Libraries []struct{ ID string } }
	her.get("/api/libraries", &hers)
	if len(hers.Libraries) != 1 || hers.Libraries[0].ID != bookLib {
		t.Fatalf("she sees %v, want only %s", hers.Libraries, bookLib)
	}
	var inProgress struct{ LibraryItems []struct{ ID string } }
	her.get("/api/me/items-in-progress", &inProgress)
	kept := false
	for _, it := range inProgress.LibraryItems {
		kept = kept || it.ID == hidden[0].id
	}
	t.Logf("GET /api/me/items-in-progress after the library was taken from her holds its book: %v", kept)
	if st := her.do("GET", "/api/items/"+hidden[0].id, nil, nil); st != http.StatusForbidden {
		t.Errorf("GET /api/items/%s for her: %d, want 403", hidden[0].id, st)
	}

	secret := []string{lib.ID, run + " Book", hidden[0].id, hidden[1].id, hidden[0].author, hidden[1].author, authorA, authorB}
	noSecret := func(what, text string) {
		t.Helper()
		for _, w := range secret {
			if strings.Contains(text, w) {
				t.Errorf("%s shows %q, of a library she does not see:\n%s", what, w, text)
			}
		}
	}
	var mu sync.Mutex
	var asked []string
	cs := connectBinary(t, target.String(), key.APIKey.APIKey, nil, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			asked = append(asked, r.Params.Message)
			mu.Unlock()
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
		}})

	// Server-wide renames and merges: refused, nothing asked or changed.
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"rename_tag", map[string]any{"tag": shared, "new_tag": joined}},
		{"rename_genre", map[string]any{"genre": shared, "new_genre": joined}},
		{"merge_tags", map[string]any{"tags": []string{shared, keep}, "into_tag": joined}},
		{"merge_genres", map[string]any{"genres": []string{shared, keep}, "into_genre": joined}},
		{"rename_narrator", map[string]any{"narrator": sharedV, "new_narrator": joinedV}},
		{"merge_narrators", map[string]any{"narrators": []string{sharedV, keepV}, "into_narrator": joinedV}},
	} {
		text, isErr := callText(t, cs, c.tool, c.args)
		if !isErr || !strings.Contains(text, "does not see every item") {
			t.Errorf("%s: want a refusal, got isError=%v: %s", c.tool, isErr, text)
		}
		noSecret(c.tool, text)
	}
	for i, b := range hidden {
		tags, genres, narrators := lists(b.id)
		other := []string{joined, keep}[i]
		otherV := []string{joinedV, keepV}[i]
		if strings.Join(tags, "|") != shared+"|"+other || strings.Join(genres, "|") != shared+"|"+other || strings.Join(narrators, "|") != sharedV+"|"+otherV {
			t.Errorf("the hidden book %s changed: tags %v, genres %v, narrators %v", b.id, tags, genres, narrators)
		}
	}
	if tags, genres, narrators := lists(seen); strings.Join(tags, "|") != shared || strings.Join(genres, "|") != shared || strings.Join(narrators, "|") != sharedV {
		t.Errorf("the visible book changed: tags %v, genres %v, narrators %v", tags, genres, narrators)
	}

	// Authors of the lost library: refused as not found; both stay.
	text, isErr := callText(t, cs, "merge_authors", map[string]any{"author_id": authorB, "into_author_id": authorA})
	if !isErr || !strings.Contains(text, "not found") {
		t.Errorf("merge_authors of hidden authors: want not found, got isError=%v: %s", isErr, text)
	}
	noSecret("merge_authors", strings.ReplaceAll(text, authorB, ""))
	for _, id := range []string{authorA, authorB} {
		if st := root.do("GET", "/api/authors/"+id, nil, nil); st != 200 {
			t.Errorf("author %s after the refused merge: %d", id, st)
		}
	}

	// Reading an author of the lost library by id: not found.
	text, isErr = callText(t, cs, "get_author", map[string]any{"author_id": authorA, "include_items": true})
	if !isErr || !strings.Contains(text, "not found") {
		t.Errorf("get_author of a hidden author: want not found, got isError=%v: %s", isErr, text)
	}
	noSecret("get_author", strings.ReplaceAll(text, authorA, ""))

	// Listening: answers without the lost book, and without a 403.
	for _, tool := range []string{"list_items_in_progress", "what_next", "get_series_progress"} {
		text, isErr := callText(t, cs, tool, map[string]any{})
		if isErr {
			t.Errorf("%s: %s", tool, text)
		}
		noSecret(tool, text)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "audiobookshelf://me/listening-now"}); err != nil {
		t.Errorf("listening-now: %v", err)
	} else {
		noSecret("listening-now", r.Contents[0].Text)
	}
	if r, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: "audiobookshelf://items/{id}"},
		Argument: mcp.CompleteParamsArgument{Name: "id", Value: ""}}); err != nil {
		t.Errorf("completion: %v", err)
	} else {
		noSecret("the completion", strings.Join(r.Completion.Values, " "))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 0 {
		t.Errorf("she was asked %d times: %q", len(asked), asked)
	}
}

// asList is v as a JSON list, nil when it is none.
func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

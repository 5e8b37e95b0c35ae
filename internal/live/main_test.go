package live

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/registry"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/contract"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/toolgen"
)

// The suite's own checks, around every live test (TestMain):
//
//   - What the server holds (its users, libraries, collections, the root
//     user's playlists, and every library's items, by id with their key
//     fields) is read at the start and at the end; a record that was there
//     and is gone or changed fails the suite, and so does one that is new
//     and was made by this run. Every test reaches Audiobookshelf through
//     one proxy of the suite (AUDIOBOOKSHELF_URL is pointed at it), which
//     notes the ids in every answer to a request that is not a GET (the
//     records this run made) and in the path and body of every such
//     request (the records it changed). A record another run made on the
//     same server in the meantime is not this run's, and is left out; and
//     while another run is on the server (each marks itself with an
//     inactive root API key), a record gone or changed counts only when
//     this run sent a change naming it.
//   - The real server and the stand-in answer alike: the top-level fields
//     of each read tool's answers on the real server (every answer without
//     an error, through liveClient) are held to those of the same tool's
//     example call (tools.yaml) on the stand-in (the binary's --demo); a
//     field one of them answers and the other never does fails the suite.
//   - Every tool the binary registers with AUDIOBOOKSHELF_TOOLSETS=all is
//     called through it by some live test (liveClient counts the calls):
//     one that nothing called fails the suite, so a tool cannot land
//     without a call on the real server.
//
// The last two are checked when the whole suite ran (no -run), as `make
// test-live` runs it.

// liveRun holds what the suite notes while the tests run.
var liveRun struct {
	mu      sync.Mutex
	made    map[string]bool            // ids in answers to requests other than GET
	touched map[string]bool            // ids in the paths and bodies of requests other than GET
	called  map[string]int             // tool name: calls answered
	ok      map[string]int             // tool name: calls answered without an error
	fields  map[string]map[string]bool // read tool name: top-level fields of its answers
	claimed map[string]bool            // the books this run claimed (claimBooks)
}

func noteMade(id string) {
	liveRun.mu.Lock()
	liveRun.made[id] = true
	liveRun.mu.Unlock()
}

func wasTouched(id string) bool {
	liveRun.mu.Lock()
	defer liveRun.mu.Unlock()
	return liveRun.touched[id]
}

func wasMade(id string) bool {
	liveRun.mu.Lock()
	defer liveRun.mu.Unlock()
	return liveRun.made[id]
}

func init() {
	liveRun.made = map[string]bool{}
	liveRun.touched = map[string]bool{}
	liveRun.called = map[string]int{}
	liveRun.ok = map[string]int{}
	liveRun.fields = map[string]map[string]bool{}
	liveRun.claimed = map[string]bool{}
}

func claimedHere(id string) bool {
	liveRun.mu.Lock()
	defer liveRun.mu.Unlock()
	return liveRun.claimed[id]
}

// topFields are the top-level fields of a tool's answer when it is a JSON
// object without an error, else nil.
func topFields(res *mcp.CallToolResult) map[string]bool {
	if res == nil || res.IsError || len(res.Content) == 0 {
		return nil
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return nil
	}
	var v map[string]json.RawMessage
	if json.Unmarshal([]byte(tc.Text), &v) != nil {
		return nil
	}
	out := map[string]bool{}
	for k := range v {
		out[k] = true
	}
	return out
}

// liveClient is the go-sdk client every live test connects to the binary
// with (connectBinary, the household's deployments): it counts each tool
// call that came back with an answer, for the suite's check that every
// registered tool was called.
func liveClient(opts *mcp.ClientOptions) *mcp.Client {
	c := mcp.NewClient(&mcp.Implementation{Name: "test-live", Version: "1"}, opts)
	c.AddSendingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if method == "tools/call" && err == nil && res != nil {
				if p, ok := req.GetParams().(*mcp.CallToolParams); ok {
					f := topFields(res.(*mcp.CallToolResult))
					liveRun.mu.Lock()
					liveRun.called[p.Name]++
					if r, _ := res.(*mcp.CallToolResult); r != nil && !r.IsError {
						liveRun.ok[p.Name]++
					}
					if f != nil {
						if liveRun.fields[p.Name] == nil {
							liveRun.fields[p.Name] = map[string]bool{}
						}
						maps.Copy(liveRun.fields[p.Name], f)
					}
					liveRun.mu.Unlock()
				}
			}
			return res, err
		}
	})
	return c
}

func TestMain(m *testing.M) {
	flag.Parse()
	rawURL, key := os.Getenv("AUDIOBOOKSHELF_URL"), os.Getenv("AUDIOBOOKSHELF_API_KEY")
	if os.Getenv("ABS_LIVE") != "1" || rawURL == "" || key == "" {
		os.Exit(m.Run())
	}
	target, err := url.Parse(strings.TrimRight(rawURL, "/"))
	if err != nil || (target.Scheme != "http" && target.Scheme != "https") {
		fmt.Fprintln(os.Stderr, "AUDIOBOOKSHELF_URL is not an http(s) URL")
		os.Exit(2)
	}
	builtIn := ""
	if os.Getenv("ABS_MCP_BIN") == "" {
		// One binary for every test and the end checks (make test-live
		// builds it and sets ABS_MCP_BIN).
		dir, err := os.MkdirTemp("", "live-bin")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		builtIn = dir
		repo, err := contract.RepoRoot()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		bin := filepath.Join(dir, "audiobookshelf-mcp")
		build := exec.Command("go", "build", "-o", bin, "./cmd/audiobookshelf-mcp")
		build.Dir = repo
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
			os.Exit(2)
		}
		os.Setenv("ABS_MCP_BIN", bin)
	}
	root := &rootClient{base: target.String(), key: key, hc: &http.Client{Timeout: 60 * time.Second}}
	before, err := root.state()
	if err != nil {
		fmt.Fprintf(os.Stderr, "the live suite reads the server's users, libraries, collections, playlists and items with the root user's key: %v\n", err)
		os.Exit(2)
	}
	// This run's marker, an inactive API key of root: another run sees
	// that this one is on the server (otherRuns).
	mark, othersAtStart, err := root.mark()
	if err != nil {
		fmt.Fprintf(os.Stderr, "marking the run on the server: %v\n", err)
		os.Exit(2)
	}
	proxyURL, stop, err := madeRecorder(target)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Setenv("AUDIOBOOKSHELF_URL", proxyURL)
	code := m.Run()
	stop()

	var failures []string
	after, err := root.state()
	if err != nil {
		failures = append(failures, fmt.Sprintf("reading the server at the end: %v", err))
	} else {
		othersAtEnd, err := root.otherRuns(mark)
		if err != nil {
			failures = append(failures, fmt.Sprintf("reading the runs on the server: %v", err))
		}
		failures = append(failures, compareStates(before, after, othersAtStart+othersAtEnd > 0)...)
	}
	if run := flag.Lookup("test.run"); run != nil && run.Value.String() == "" {
		diffs, err := standinDifferences()
		if err != nil {
			failures = append(failures, fmt.Sprintf("calling the read tools on the stand-in: %v", err))
		}
		failures = append(failures, diffs...)
		uncalled, err := uncalledTools(target.String(), key)
		if err != nil {
			failures = append(failures, fmt.Sprintf("listing the binary's tools: %v", err))
		}
		for _, name := range uncalled {
			failures = append(failures, fmt.Sprintf("tool %s is registered (AUDIOBOOKSHELF_TOOLSETS=all) and no live test called it through the binary", name))
		}
		if err == nil && len(uncalled) == 0 {
			fmt.Printf("live suite: every registered tool was called (%d tools)\n", len(liveRun.called))
		}
	} else {
		fmt.Println("live suite: -run picks some tests; every tool's call, and the answers' fields against the stand-in's, are checked on a whole run")
	}
	if len(failures) > 0 {
		fmt.Println("--- FAIL: the live suite's end checks")
		for _, f := range failures {
			fmt.Println("    " + f)
		}
		fmt.Println("FAIL")
		code = 1
	} else {
		fmt.Println("live suite: the server's users, libraries, collections, playlists and items are as they were found")
	}
	if builtIn != "" {
		os.RemoveAll(builtIn)
	}
	root.unmark(mark)
	os.Exit(code)
}

// madeRecorder serves a reverse proxy to target on loopback that notes
// the ids of the records in every answer to a request other than GET.
func madeRecorder(target *url.URL) (string, func(), error) {
	rp := &httputil.ReverseProxy{FlushInterval: -1, Rewrite: func(pr *httputil.ProxyRequest) {
		pr.SetURL(target)
		r := pr.Out
		if r.Method == http.MethodGet {
			return
		}
		liveRun.mu.Lock()
		for _, seg := range strings.Split(r.URL.Path, "/") {
			liveRun.touched[seg] = true
		}
		liveRun.mu.Unlock()
		if r.Body != nil && strings.Contains(r.Header.Get("Content-Type"), "json") {
			b, err := io.ReadAll(r.Body)
			r.Body.Close()
			r.Body = io.NopCloser(bytes.NewReader(b))
			var v any
			if err == nil && json.Unmarshal(b, &v) == nil {
				eachID(v, func(id string) {
					liveRun.mu.Lock()
					liveRun.touched[id] = true
					liveRun.mu.Unlock()
				})
			}
		}
	}}
	rp.ModifyResponse = func(resp *http.Response) error {
		if resp.Request.Method == http.MethodGet || resp.StatusCode/100 != 2 ||
			!strings.Contains(resp.Header.Get("Content-Type"), "json") {
			return nil
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(b))
		if err != nil {
			return err
		}
		var v any
		if json.Unmarshal(b, &v) == nil {
			eachID(v, noteMade)
		}
		return nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: rp, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), func() { srv.Close() }, nil
}

// eachID calls f with every string under a key "id" in v.
func eachID(v any, f func(string)) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && k == "id" && s != "" {
				f(s)
			} else {
				eachID(e, f)
			}
		}
	case []any:
		for _, e := range x {
			eachID(e, f)
		}
	}
}

// rootClient reads the server directly with the root user's key.
type rootClient struct {
	base, key string
	hc        *http.Client
}

func (r *rootClient) get(path string, out any) error {
	req, err := http.NewRequest("GET", r.base+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+r.key)
	resp, err := r.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return fmt.Errorf("GET %s: %d", path, resp.StatusCode)
	}
	return json.Unmarshal(b, out)
}

// record is one record of the server: its kind and id, what it belongs to
// (an item's library), and its key fields as one line.
type record struct {
	kind, id, owner, fields string
}

// serverState is every record the suite compares, by kind and id.
type serverState map[string]record

func (r *rootClient) state() (serverState, error) {
	s := serverState{}
	add := func(kind, id, owner string, fields ...any) {
		s[kind+" "+id] = record{kind: kind, id: id, owner: owner, fields: fmt.Sprintf("%q", fields)}
	}
	var users struct {
		Users []struct {
			ID, Username, Type string
			IsActive           bool
		}
	}
	if err := r.get("/api/users", &users); err != nil {
		return nil, err
	}
	for _, u := range users.Users {
		add("user", u.ID, "", u.Username, u.Type, u.IsActive)
	}
	var libs struct {
		Libraries []struct {
			ID, Name, MediaType string
			Folders             []struct{ FullPath string }
		}
	}
	if err := r.get("/api/libraries", &libs); err != nil {
		return nil, err
	}
	for _, l := range libs.Libraries {
		var folders []string
		for _, f := range l.Folders {
			folders = append(folders, f.FullPath)
		}
		add("library", l.ID, "", l.Name, l.MediaType, folders)
		for page := 0; ; page++ {
			var items struct {
				Results []struct {
					ID, LibraryID, MediaType string
					Media                    struct {
						Metadata    struct{ Title string }
						NumEpisodes int
					}
				}
				Total int
			}
			if err := r.get(fmt.Sprintf("/api/libraries/%s/items?limit=200&page=%d&minified=1", l.ID, page), &items); err != nil {
				return nil, err
			}
			for _, it := range items.Results {
				add("item", it.ID, l.ID, it.MediaType, it.Media.Metadata.Title, it.Media.NumEpisodes)
			}
			if len(items.Results) < 200 {
				break
			}
		}
	}
	var cols struct {
		Collections []struct {
			ID, Name, LibraryID, UserID string
			Books                       []struct{ ID string }
		}
	}
	if err := r.get("/api/collections", &cols); err != nil {
		return nil, err
	}
	for _, c := range cols.Collections {
		var books []string
		for _, b := range c.Books {
			books = append(books, b.ID)
		}
		add("collection", c.ID, c.LibraryID, c.Name, books)
	}
	var pls struct {
		Playlists []struct {
			ID, Name, LibraryID string
			Items               []struct{ LibraryItemID, EpisodeID string }
		}
	}
	if err := r.get("/api/playlists", &pls); err != nil {
		return nil, err
	}
	for _, p := range pls.Playlists {
		var entries []string
		for _, e := range p.Items {
			entries = append(entries, e.LibraryItemID+"/"+e.EpisodeID)
		}
		add("playlist", p.ID, p.LibraryID, p.Name, entries)
	}
	return s, nil
}

// compareStates names each record that was there at the start and is gone
// or changed at the end, and each new one this run made (its id in an
// answer through the suite's proxy, or an item of a library it made). When
// other runs were on the server (othersRan), a record gone or changed is
// named only if this run sent a change naming it (its id in the path or
// the body of a request other than GET, or its library's): else it was
// another run's own, made before this run started.
func compareStates(before, after serverState, othersRan bool) []string {
	var out []string
	others := 0
	for k, b := range before {
		a, ok := after[k]
		ours := !othersRan || wasTouched(b.id) || (b.owner != "" && wasTouched(b.owner))
		switch {
		case (!ok || a.fields != b.fields) && !ours:
			others++
		case !ok:
			out = append(out, fmt.Sprintf("%s %s %s was on the server at the start and is gone", b.kind, b.id, b.fields))
		case a.fields != b.fields:
			out = append(out, fmt.Sprintf("%s %s is %s at the end, was %s", b.kind, b.id, a.fields, b.fields))
		}
	}
	for k, a := range after {
		if _, ok := before[k]; ok {
			continue
		}
		if wasMade(a.id) || (a.owner != "" && wasMade(a.owner)) {
			out = append(out, fmt.Sprintf("%s %s %s was made by this run and is still on the server", a.kind, a.id, a.fields))
		} else {
			others++
		}
	}
	if others > 0 {
		fmt.Printf("live suite: %d record(s) made, changed or removed by another run on the server, not this one: left out\n", others)
	}
	sort.Strings(out)
	return out
}

// uncalledTools are the tools the binary registers with every toolset on
// that no live test called through liveClient.
func uncalledTools(base, key string) ([]string, error) {
	bin := os.Getenv("ABS_MCP_BIN")
	if bin == "" {
		return nil, fmt.Errorf("ABS_MCP_BIN is not set (make test-live sets it)")
	}
	cmd := exec.Command(bin)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "AUDIOBOOKSHELF_URL=" + base, "AUDIOBOOKSHELF_API_KEY=" + key,
		"AUDIOBOOKSHELF_TOOLSETS=all", "ELICITATION=true"}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-live-tools", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	var uncalled []string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		liveRun.mu.Lock()
		n, ok := liveRun.called[tool.Name], liveRun.ok[tool.Name]
		liveRun.mu.Unlock()
		if n == 0 {
			uncalled = append(uncalled, tool.Name)
		} else if ok == 0 {
			fmt.Printf("live suite: tool %s was called %d time(s), each answered with an error\n", tool.Name, n)
		}
	}
	sort.Strings(uncalled)
	return uncalled, nil
}

// standinDifferences calls each read tool the run called on the real
// server once on the stand-in (the binary's --demo, with the tool's
// example of tools.yaml) and names each top-level field of the answers that
// one side has and the other never had.
func standinDifferences() ([]string, error) {
	root, err := contract.RepoRoot()
	if err != nil {
		return nil, err
	}
	m, err := toolgen.Load(filepath.Join(root, "tools.yaml"))
	if err != nil {
		return nil, err
	}
	readOnly := map[string]bool{}
	for _, rt := range registry.All {
		readOnly[rt.Name] = rt.ReadOnly
	}
	cmd := exec.Command(os.Getenv("ABS_MCP_BIN"), "--demo")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "AUDIOBOOKSHELF_TOOLSETS=all"}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-live-standin", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	var out []string
	compared := 0
	for _, tool := range m.Tools {
		liveRun.mu.Lock()
		real := liveRun.fields[tool.Name]
		liveRun.mu.Unlock()
		if tool.Example == nil || !readOnly[tool.Name] || real == nil {
			continue
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool.Name, Arguments: tool.Example})
		if err != nil {
			return nil, fmt.Errorf("%s on the stand-in: %v", tool.Name, err)
		}
		stand := topFields(res)
		if stand == nil {
			out = append(out, fmt.Sprintf("%s: its example on the stand-in answers no JSON object (error %v)", tool.Name, res.IsError))
			continue
		}
		compared++
		for _, k := range slices.Sorted(maps.Keys(stand)) {
			if !real[k] && !dataDependent[k] && !dataDependent[tool.Name+"."+k] {
				out = append(out, fmt.Sprintf("%s: the stand-in answers the field %q, the real server never did", tool.Name, k))
			}
		}
		for _, k := range slices.Sorted(maps.Keys(real)) {
			if !stand[k] && !dataDependent[k] && !dataDependent[tool.Name+"."+k] {
				out = append(out, fmt.Sprintf("%s: the real server answered the field %q, the stand-in's example does not", tool.Name, k))
			}
		}
	}
	fmt.Printf("live suite: the top-level fields of %d read tools' answers compared with the stand-in's\n", compared)
	return out, nil
}

// dataDependent are fields an answer has or leaves out by the data it
// reads, not by the server: FIELD for every tool, or TOOL.FIELD.
var dataDependent = map[string]bool{
	"next":                                   true, // a paged list's: only when a further page exists
	"get_listening_by_period.finished_count": true, // only when a book was finished in the period
	// An extra that is false or 0 is left out: a book without a cover,
	// one without chapters (the run's own books have neither).
	"search_covers.has_cover":             true,
	"get_provider_chapters.book_chapters": true,
}

// runMarker names the inactive API key of root that says a live run is on
// the server; one older than claimStale is a run that died.
const runMarker = "mcp-live-run "

// mark makes this run's marker and counts the other runs' markers.
func (r *rootClient) mark() (string, int, error) {
	var me struct {
		ID string `json:"id"`
	}
	if err := r.get("/api/me", &me); err != nil {
		return "", 0, err
	}
	body, _ := json.Marshal(map[string]any{"name": fmt.Sprintf("%s%d-%d", runMarker, os.Getpid(), time.Now().UnixNano()), "userId": me.ID, "isActive": false})
	req, err := http.NewRequest("POST", r.base+"/api/api-keys", bytes.NewReader(body))
	if err != nil {
		return "", 0, err
	}
	req.Header.Set("Authorization", "Bearer "+r.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := r.hc.Do(req)
	if err != nil {
		return "", 0, err
	}
	defer resp.Body.Close()
	var made struct {
		APIKey struct{ ID string } `json:"apiKey"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&made); err != nil || resp.StatusCode != 200 || made.APIKey.ID == "" {
		return "", 0, fmt.Errorf("POST /api/api-keys: %d %v", resp.StatusCode, err)
	}
	n, err := r.otherRuns(made.APIKey.ID)
	return made.APIKey.ID, n, err
}

// otherRuns counts the markers of runs other than mine on the server.
func (r *rootClient) otherRuns(mine string) (int, error) {
	var keys struct {
		APIKeys []claimKey `json:"apiKeys"`
	}
	if err := r.get("/api/api-keys", &keys); err != nil {
		return 0, err
	}
	n := 0
	for _, k := range keys.APIKeys {
		if !strings.HasPrefix(k.Name, runMarker) || k.ID == mine {
			continue
		}
		if at, err := time.Parse(time.RFC3339, k.CreatedAt); err == nil && time.Since(at) > claimStale {
			continue
		}
		n++
	}
	return n, nil
}

// unmark deletes this run's marker.
func (r *rootClient) unmark(mine string) {
	req, err := http.NewRequest("DELETE", r.base+"/api/api-keys/"+mine, nil)
	if err != nil {
		return
	}
	req.Header.Set("Authorization", "Bearer "+r.key)
	if resp, err := r.hc.Do(req); err == nil {
		resp.Body.Close()
	}
}

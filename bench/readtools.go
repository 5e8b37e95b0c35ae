package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Target is an Audiobookshelf to measure against: a real server, or the
// stand-in served by bench/cmd/standinserver.
type Target struct {
	URL, Key string
}

// Get makes one GET to t with the key, as the server does, and reads the
// whole body; an answer other than 200 is an error.
func (t Target) Get(ctx context.Context, hc *http.Client, uri string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.URL+uri, nil)
	if err != nil {
		return nil, err
	}
	if t.Key != "" {
		req.Header.Set("Authorization", "Bearer "+t.Key)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		// The path only: nothing of the request's headers.
		return nil, fmt.Errorf("GET %s: %s", strings.SplitN(uri, "?", 2)[0], resp.Status)
	}
	return b, nil
}

// Version is the server's version from GET /status (no key needed).
func (t Target) Version(ctx context.Context, hc *http.Client) (string, error) {
	b, err := Target{URL: t.URL}.Get(ctx, hc, "/status")
	if err != nil {
		return "", err
	}
	var s struct {
		App           string `json:"app"`
		ServerVersion string `json:"serverVersion"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return "", fmt.Errorf("/status: %w", err)
	}
	return s.App + " " + s.ServerVersion, nil
}

// ReadTool is one of the read tools whose overhead is measured, with
// arguments that name things that exist on the target.
type ReadTool struct {
	Name string
	Args map[string]any
	// What says which call it is, for the table.
	What string
}

// ReadTools picks arguments for the six read tools the overhead table
// measures, from what the target has: its first book library (or its
// first library), that library's first item, and a word of that item's
// title to search for. Only reads are sent.
func ReadTools(ctx context.Context, hc *http.Client, t Target) ([]ReadTool, error) {
	b, err := t.Get(ctx, hc, "/api/libraries")
	if err != nil {
		return nil, err
	}
	var libs struct {
		Libraries []struct {
			ID        string `json:"id"`
			MediaType string `json:"mediaType"`
		} `json:"libraries"`
	}
	if err := json.Unmarshal(b, &libs); err != nil {
		return nil, fmt.Errorf("/api/libraries: %w", err)
	}
	if len(libs.Libraries) == 0 {
		return nil, fmt.Errorf("the server has no library to measure")
	}
	lib := libs.Libraries[0].ID
	for _, l := range libs.Libraries {
		if l.MediaType == "book" {
			lib = l.ID
			break
		}
	}
	b, err = t.Get(ctx, hc, "/api/libraries/"+url.PathEscape(lib)+"/items?limit=1&page=0")
	if err != nil {
		return nil, err
	}
	var page struct {
		Results []struct {
			ID    string `json:"id"`
			Media struct {
				Metadata struct {
					Title string `json:"title"`
				} `json:"metadata"`
			} `json:"media"`
		} `json:"results"`
	}
	if err := json.Unmarshal(b, &page); err != nil {
		return nil, fmt.Errorf("library items: %w", err)
	}
	if len(page.Results) == 0 {
		return nil, fmt.Errorf("library %s has no item to measure", lib)
	}
	item := page.Results[0]
	q := searchWord(item.Media.Metadata.Title)
	return []ReadTool{
		{Name: "list_libraries", Args: map[string]any{}, What: "`list_libraries`"},
		{Name: "list_library_items", Args: map[string]any{"library_id": lib, "limit": 25}, What: "`list_library_items` limit 25"},
		{Name: "get_library_item", Args: map[string]any{"library_item_id": item.ID}, What: "`get_library_item`"},
		{Name: "search_library", Args: map[string]any{"library_id": lib, "q": q}, What: fmt.Sprintf("`search_library` q %q", q)},
		{Name: "get_me", Args: map[string]any{}, What: "`get_me`"},
		{Name: "list_series", Args: map[string]any{"library_id": lib}, What: "`list_series`"},
	}, nil
}

// searchWord is the longest word of a title (a query that finds it).
func searchWord(title string) string {
	best := ""
	for _, w := range strings.FieldsFunc(title, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') }) {
		if len(w) > len(best) {
			best = w
		}
	}
	if best == "" {
		return title
	}
	return best
}

// Recorder is a reverse proxy in front of a target that records the
// request URIs (path and query) passing through it, so that a server
// pointed at it shows which requests a call makes. It records nothing of
// the headers.
type Recorder struct {
	URL  string
	mu   sync.Mutex
	uris []string
	stop func()
}

// StartRecorder starts a Recorder on 127.0.0.1 in front of target.
func StartRecorder(target string) (*Recorder, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &Recorder{URL: "http://" + ln.Addr().String()}
	proxy := httputil.NewSingleHostReverseProxy(u)
	hs := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.uris = append(r.uris, req.Method+" "+req.URL.RequestURI())
		r.mu.Unlock()
		proxy.ServeHTTP(w, req)
	})}
	go func() { _ = hs.Serve(ln) }()
	r.stop = func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = hs.Shutdown(ctx)
	}
	return r, nil
}

// Take returns the requests recorded since the last Take and forgets them.
func (r *Recorder) Take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.uris
	r.uris = nil
	return out
}

// Close stops the proxy.
func (r *Recorder) Close() { r.stop() }

// DirectCall makes the GET requests uris (path and query) to t, all at
// the same time when there are several — as a person would who wanted the
// same answer the tool gives — and reads every body whole.
func DirectCall(ctx context.Context, hc *http.Client, t Target, uris []string) error {
	if len(uris) == 1 {
		_, err := t.Get(ctx, hc, uris[0])
		return err
	}
	errs := make([]error, len(uris))
	var wg sync.WaitGroup
	for i, u := range uris {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = t.Get(ctx, hc, u)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

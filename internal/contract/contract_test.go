package contract

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

func check(t *testing.T, method, target, ctype, body string, status int) Result {
	t.Helper()
	s, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(method, target, nil)
	h := http.Header{}
	if ctype != "" {
		h.Set("Content-Type", ctype)
	}
	return s.Check(req, "", nil, status, h, []byte(body))
}

func TestCheck(t *testing.T) {
	for _, tt := range []struct {
		name, method, target, ctype, body string
		status                            int
		op, err                           string // err "" means conforms; else a substring
	}{
		{"conforming list", "GET", "/api/libraries", "application/json", `{"libraries":[{"id":"l1","name":"Books","mediaType":"book"}]}`, 200, "listLibraries", ""},
		{"enum broken", "GET", "/api/libraries", "application/json", `{"libraries":[{"id":"l1","name":"Books","mediaType":"audio"}]}`, 200, "listLibraries", "field /libraries/0/mediaType"},
		{"required field missing", "GET", "/api/libraries", "application/json", `{"results":[]}`, 200, "listLibraries", `property "libraries" is missing`},
		{"wrong type deep", "GET", "/api/me/progress/li1", "application/json", `{"id":"p","mediaItemId":"b","mediaItemType":"book","currentTime":"12"}`, 200, "getMediaProgress", "field /currentTime"},
		{"plain OK", "DELETE", "/api/collections/c1", "text/plain; charset=utf-8", "OK", 200, "deleteCollection", ""},
		{"sentence as html", "GET", "/api/collections/c1", "text/html; charset=utf-8", "Collection not found", 404, "getCollection", ""},
		{"undocumented status", "GET", "/api/me", "text/plain", "Teapot", 418, "getMe", "status is not supported"},
		{"JSON where text is documented", "DELETE", "/api/playlists/p1", "application/json", `{"ok":true}`, 200, "deletePlaylist", "Content-Type"},
		{"route the spec lacks", "GET", "/api/backups", "application/json", `[]`, 200, "", "no route"},
		{"method the spec lacks", "PUT", "/api/me", "application/json", `{}`, 200, "", "no route"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := check(t, tt.method, tt.target, tt.ctype, tt.body, tt.status)
			if r.Operation != tt.op {
				t.Errorf("operation %q, want %q", r.Operation, tt.op)
			}
			switch {
			case tt.err == "" && r.Err != nil:
				t.Errorf("want conforms, got %v", r.Err)
			case tt.err != "" && r.Err == nil:
				t.Errorf("want an error with %q, got conforms", tt.err)
			case tt.err != "" && !strings.Contains(r.Err.Error(), tt.err):
				t.Errorf("error %q does not contain %q", r.Err, tt.err)
			}
		})
	}
}

func TestRequestChecked(t *testing.T) {
	s, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest("POST", "/api/me/item/li1/bookmark", nil)
	req.Header.Set("Content-Type", "application/json")
	r := s.Check(req, "", []byte(`{"time":"7.5","title":"x"}`), 200, http.Header{"Content-Type": {"application/json"}}, []byte(`{"libraryItemId":"li1","time":7.5,"title":"x"}`))
	if r.Err == nil || !strings.Contains(r.Err.Error(), "request") || !strings.Contains(r.Err.Error(), "/time") {
		t.Errorf("a string time in the request body: got %v", r.Err)
	}
}

// The proxy forwards to a server under a base path, passes the answer on
// unchanged and reports each exchange.
func TestProxy(t *testing.T) {
	s, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/abs/api/libraries" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		io.WriteString(w, `{"libraries":[{"id":"l1","name":"Books","mediaType":7}]}`)
	}))
	defer backend.Close()
	u, _ := url.Parse(backend.URL + "/abs")
	var mu sync.Mutex
	var got []Result
	front := httptest.NewServer(s.Proxy(u, func(r Result) { mu.Lock(); got = append(got, r); mu.Unlock() }))
	defer front.Close()
	resp, err := http.Get(front.URL + "/api/libraries")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `"mediaType":7`) {
		t.Errorf("answer changed on the way: %s", b)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0].Operation != "listLibraries" || got[0].Path != "/api/libraries" || got[0].Err == nil ||
		!strings.Contains(got[0].Err.Error(), "/libraries/0/mediaType") {
		t.Errorf("reports %v, want one listLibraries report naming /libraries/0/mediaType", got)
	}
}

// A verdict served from the cache is the verdict: a bad answer stays bad,
// and the same request with another answer is judged anew.
func TestCachedVerdicts(t *testing.T) {
	bad := `{"libraries":[{"id":"l1","name":"Books","mediaType":"audio"}]}`
	good := `{"libraries":[{"id":"l1","name":"Books","mediaType":"book"}]}`
	for i := 0; i < 2; i++ {
		if r := check(t, "GET", "/api/libraries", "application/json", bad, 200); r.Err == nil {
			t.Errorf("round %d: a bad answer conforms", i)
		}
		if r := check(t, "GET", "/api/libraries", "application/json", good, 200); r.Err != nil {
			t.Errorf("round %d: a good answer: %v", i, r.Err)
		}
	}
}

// The deferred transport answers at once, validates nothing until flush,
// and then reports every verdict.
func TestDeferredTransport(t *testing.T) {
	s, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"libraries":[{"id":"l1","name":"Books","mediaType":"audio"}]}`)
	}))
	defer backend.Close()
	var mu sync.Mutex
	var got []Result
	rt, flush := s.DeferredTransport(nil, "", func(r Result) { mu.Lock(); got = append(got, r); mu.Unlock() })
	hc := &http.Client{Transport: rt}
	for range 3 {
		resp, err := hc.Get(backend.URL + "/api/libraries")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(b), `"audio"`) {
			t.Errorf("answer changed: %s", b)
		}
	}
	mu.Lock()
	if len(got) != 0 {
		t.Errorf("%d verdicts before flush", len(got))
	}
	mu.Unlock()
	flush()
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 3 {
		t.Fatalf("%d verdicts, want 3", len(got))
	}
	for _, r := range got {
		if r.Err == nil || !strings.Contains(r.Err.Error(), "/libraries/0/mediaType") {
			t.Errorf("verdict %v", r)
		}
	}
}

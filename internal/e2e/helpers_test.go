package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/contract"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// approve answers every question with approval.
func approve(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
}

// answerer keeps the text of every question it is asked, and declines
// each until approve is set.
type answerer struct {
	mu      sync.Mutex
	asked   []string
	approve bool
}

func (a *answerer) elicit(ctx context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	a.mu.Lock()
	a.asked = append(a.asked, r.Params.Message)
	ok := a.approve
	a.mu.Unlock()
	if !ok {
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	return approve(ctx, r)
}

// decode parses a successful result's JSON text.
func decode(t *testing.T, res *mcp.CallToolResult) any {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", apptest.Text(res))
	}
	var v any
	if err := json.Unmarshal([]byte(apptest.Text(res)), &v); err != nil {
		t.Fatalf("result is not JSON: %v\n%s", err, apptest.Text(res))
	}
	return v
}

// at walks decoded JSON: string keys for objects, ints for arrays.
func at(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("at %v: not an object: %v", path, v)
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				t.Fatalf("at %v: not an array with %d entries: %v", path, k+1, v)
			}
			v = a[k]
		}
	}
	return v
}

func str(v any) string { return fmt.Sprint(v) }

// lastRequest is the last request the stand-in received with that method
// and a path ending in suffix.
func lastRequest(t *testing.T, s *standin.Server, method, suffix string) standin.Request {
	t.Helper()
	reqs := s.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		if reqs[i].Method == method && strings.HasSuffix(reqs[i].Path, suffix) {
			return reqs[i]
		}
	}
	var seen []string
	for _, r := range reqs {
		seen = append(seen, r.Method+" "+r.Path)
	}
	t.Fatalf("no %s …%s among %v", method, suffix, seen)
	return standin.Request{}
}

func mutations(s *standin.Server) []string {
	var out []string
	for _, r := range s.Mutations() {
		out = append(out, r.Method+" "+r.Path)
	}
	return out
}

// start is apptest.Start with every answer of the stand-in held to
// spec/audiobookshelf.yaml (validated).
func start(t *testing.T, o apptest.Options) *apptest.Env {
	t.Helper()
	o.Transport = validated(t, o.Transport)
	// A generous timeout: these tests are about what the tools do, not
	// about time (internal/reliability is), and the largest answers of the
	// sample library take seconds under -race on a busy machine.
	cfg := o.Config
	o.Config = func(c *config.Config) {
		c.Timeout = 30 * time.Second
		if cfg != nil {
			cfg(c)
		}
	}
	return apptest.Start(t, o)
}

// validated wraps a transport to the stand-in (nil: the default) so that
// each request the server sends and the answer the stand-in gives are
// validated against their operation's schemas in spec/audiobookshelf.yaml;
// an answer the spec does not allow fails the test, naming the field.
func validated(t *testing.T, base http.RoundTripper) http.RoundTripper {
	t.Helper()
	spec, err := contract.Load()
	if err != nil {
		t.Fatalf("%v", err)
	}
	// Validated when the test ends (Cleanup), not during the calls: a large
	// answer validated under -race on a busy machine must not push a call
	// past its timeout.
	rt, flush := spec.DeferredTransport(base, "", func(r contract.Result) {
		if r.Err != nil {
			t.Errorf("stand-in against the spec: %s", r)
		}
	})
	t.Cleanup(flush)
	return rt
}

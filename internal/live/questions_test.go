package live

import (
	"context"
	"encoding/json"
	"net/url"
	"sync"
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/contract"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// asker is the binary with the curation toolset on, behind the recording
// proxy (every answer it reads is checked against spec/), whose questions
// are answered as the test says (declined or approved) and kept.
type asker struct {
	t       *testing.T
	cs      *mcp.ClientSession
	mu      sync.Mutex
	asked   []string
	decline bool
}

// curationBinary starts an asker on target; it returns the recorder, the
// spec and a client of Audiobookshelf's own API through the proxy too.
func curationBinary(t *testing.T, target *url.URL, key string, decline bool) (*asker, *recorder, *contract.Spec, *abs) {
	t.Helper()
	a := &asker{t: t, decline: decline}
	proxyURL, rec, spec, direct := specProxy(t, target, key)
	a.cs = connectBinary(t, proxyURL, key, []string{"AUDIOBOOKSHELF_TOOLSETS=default,curation"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			a.mu.Lock()
			defer a.mu.Unlock()
			a.asked = append(a.asked, r.Params.Message)
			if a.decline {
				return &mcp.ElicitResult{Action: "decline"}, nil
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
		}})
	return a, rec, spec, direct
}

// call calls tool; it answers the result's JSON (nil when it is not), its
// text and whether it is an error.
func (a *asker) call(tool string, args map[string]any) (map[string]any, string, bool) {
	a.t.Helper()
	text, isErr := callText(a.t, a.cs, tool, args)
	var v map[string]any
	json.Unmarshal([]byte(text), &v)
	return v, text, isErr
}

// nAsked is how many questions were asked so far.
func (a *asker) nAsked() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.asked)
}

// last is how many questions were asked so far and the last one's text
// ("" when none was).
func (a *asker) last() (int, string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.asked) == 0 {
		return 0, ""
	}
	return len(a.asked), a.asked[len(a.asked)-1]
}

// setDecline says how the next questions are answered.
func (a *asker) setDecline(d bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.decline = d
}

package live

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/contract"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// liveServer is the real Audiobookshelf a live test runs against:
// AUDIOBOOKSHELF_URL (an http(s) URL) and AUDIOBOOKSHELF_API_KEY. The test is
// skipped when either is unset.
func liveServer(t *testing.T) (*url.URL, string) {
	t.Helper()
	rawURL, key := os.Getenv("AUDIOBOOKSHELF_URL"), os.Getenv("AUDIOBOOKSHELF_API_KEY")
	if rawURL == "" || key == "" {
		t.Skip("AUDIOBOOKSHELF_URL and AUDIOBOOKSHELF_API_KEY are not both set: nothing to run against")
	}
	target, err := url.Parse(strings.TrimRight(rawURL, "/"))
	if err != nil || (target.Scheme != "http" && target.Scheme != "https") {
		t.Fatalf("AUDIOBOOKSHELF_URL is not an http(s) URL")
	}
	return target, key
}

// liveABS is the Audiobookshelf of `make test-live` (liveServer; the test
// is skipped outside that run, which sets ABS_LIVE=1) and a client of its
// own API.
func liveABS(t *testing.T) (*url.URL, string, *abs) {
	t.Helper()
	if os.Getenv("ABS_LIVE") != "1" {
		t.Skip("the live run is `make test-live` (it sets ABS_LIVE=1)")
	}
	target, key := liveServer(t)
	return target, key, &abs{t: t, base: target.String(), key: key, hc: &http.Client{Timeout: 60 * time.Second}}
}

// callText calls tool through cs and answers the result's text and
// whether it is an error; a call that fails, or has no answer within 3
// minutes, fails the test.
func callText(t *testing.T, cs *mcp.ClientSession, tool string, args any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res.Content[0].(*mcp.TextContent).Text, res.IsError
}

// callJSON calls tool, which must answer, without an error, a JSON object.
func callJSON(t *testing.T, cs *mcp.ClientSession, tool string, args any) map[string]any {
	t.Helper()
	text, isErr := callText(t, cs, tool, args)
	if isErr {
		t.Fatalf("%s %v: %s", tool, args, text)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("%s: the answer is not JSON: %s", tool, text)
	}
	return v
}

// specProxy puts the recording proxy in front of target, which checks every
// answer against spec/; it returns the proxy's URL, the recorder, the spec,
// and a client of Audiobookshelf's own API through the proxy.
func specProxy(t *testing.T, target *url.URL, key string) (proxyURL string, rec *recorder, spec *contract.Spec, a *abs) {
	t.Helper()
	spec, err := contract.Load()
	if err != nil {
		t.Fatal(err)
	}
	rec = &recorder{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	proxy := &http.Server{Handler: spec.Proxy(target, rec.add), ReadHeaderTimeout: 10 * time.Second}
	go proxy.Serve(ln)
	t.Cleanup(func() { proxy.Close() })
	proxyURL = "http://" + ln.Addr().String()
	return proxyURL, rec, spec, &abs{t: t, base: proxyURL, key: key, hc: &http.Client{Timeout: 60 * time.Second}}
}

// serverBinary is the binary under test: ABS_MCP_BIN (make test-live builds
// it), else one built from this checkout.
func serverBinary(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("ABS_MCP_BIN"); bin != "" {
		return bin
	}
	bin := filepath.Join(t.TempDir(), "audiobookshelf-mcp")
	root, err := contract.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-o", bin, "./cmd/audiobookshelf-mcp")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

package app_test

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/app"
)

// rfc6750Challenge is a Bearer challenge with realm, error and
// error_description, whose values hold only the characters RFC 6750 §3
// allows in them (printable ASCII without '"' and '\').
var rfc6750Challenge = regexp.MustCompile(`^Bearer realm="audiobookshelf-mcp", error="(invalid_request|invalid_token)", error_description="([\x20\x21\x23-\x5B\x5D-\x7E]+)"$`)

func get(t *testing.T, method, url string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(`{}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// discoveryURLs are the OAuth requests clients make after a 401 (mcp-remote,
// the Inspector, the SDKs' auth), for an endpoint at base+/mcp.
func discoveryURLs(base string) [][2]string {
	var out [][2]string
	for _, p := range []string{
		"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp",
		"/.well-known/oauth-authorization-server", "/.well-known/oauth-authorization-server/mcp",
		"/.well-known/openid-configuration", "/.well-known/openid-configuration/mcp", "/mcp/.well-known/openid-configuration",
	} {
		out = append(out, [2]string{"GET", base + p})
	}
	return append(out, [2]string{"POST", base + "/register"}, [2]string{"GET", base + "/authorize"}, [2]string{"POST", base + "/token"})
}

// TestUnauthorizedSaysWhatToSend: without the right bearer token, the 401's
// RFC 6750 challenge says invalid_request (no token) or invalid_token (a
// wrong one), with an error_description naming the header; each OAuth
// discovery and registration request a client makes next gets 404 with a
// JSON error_description naming it again. For the shared token and for
// per-person keys; with no authentication, those paths are plain 404.
func TestUnauthorizedSaysWhatToSend(t *testing.T) {
	const token = "a-long-enough-test-token-0123"
	shared := startHTTP(t, false, app.HTTPOptions{BearerToken: token}, nil)
	person := startHousehold(t, false)
	for _, c := range []struct {
		name, url, wrong, names string
	}{
		{"shared token", shared.url, "Bearer not-" + token, "AUDIOBOOKSHELF_MCP_TOKEN"},
		{"per person", person.url, "Bearer not-a-key-audiobookshelf-knows", "Audiobookshelf API key"},
	} {
		for _, auth := range []string{"", c.wrong, "Basic dXNlcjpwYXNz"} {
			resp, body := get(t, "POST", c.url, map[string]string{"Authorization": auth})
			ch := resp.Header.Get("WWW-Authenticate")
			m := rfc6750Challenge.FindStringSubmatch(ch)
			if resp.StatusCode != 401 || m == nil {
				t.Errorf("%s, Authorization %q: %d, WWW-Authenticate %q", c.name, auth, resp.StatusCode, ch)
				continue
			}
			want := "invalid_request"
			if auth == c.wrong {
				want = "invalid_token"
			}
			if m[1] != want || !strings.Contains(m[2], "Authorization: Bearer") || !strings.Contains(m[2], c.names) || !strings.Contains(m[2], "does not use OAuth") {
				t.Errorf("%s, Authorization %q: %s", c.name, auth, ch)
			}
			if !strings.Contains(body, "Authorization: Bearer") || strings.Contains(body, token) || strings.Contains(ch, token) {
				t.Errorf("%s, Authorization %q: body %q", c.name, auth, body)
			}
		}
		base := strings.TrimSuffix(c.url, app.MCPPath)
		for _, u := range discoveryURLs(base) {
			resp, body := get(t, u[0], u[1], nil)
			var got map[string]string
			if err := json.Unmarshal([]byte(body), &got); err != nil || resp.StatusCode != 404 || resp.Header.Get("Content-Type") != "application/json" {
				t.Errorf("%s, %s %s: %d %q %s", c.name, u[0], u[1], resp.StatusCode, resp.Header.Get("Content-Type"), body)
				continue
			}
			d := got["error_description"]
			if got["error"] != "invalid_request" || !strings.Contains(d, "does not use OAuth") || !strings.Contains(d, "Authorization: Bearer") ||
				!strings.Contains(d, c.names) {
				t.Errorf("%s, %s %s: %s", c.name, u[0], u[1], body)
			}
		}
	}
	open := startHTTP(t, false, app.HTTPOptions{}, nil)
	for _, u := range discoveryURLs(strings.TrimSuffix(open.url, app.MCPPath)) {
		if resp, body := get(t, u[0], u[1], nil); resp.StatusCode != 404 || strings.Contains(body, "OAuth") {
			t.Errorf("no authentication, %s %s: %d %s", u[0], u[1], resp.StatusCode, body)
		}
	}
}

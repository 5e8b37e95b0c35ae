package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CheckReport is what `audiobookshelf-mcp --check` found: the server's
// version (from GET /status), the API key's user (GET /api/me) and the
// libraries that user sees (GET /api/libraries).
type CheckReport struct {
	URL, ServerVersion string
	Username, UserType string
	Libraries          int
	LibraryNames       []string
	// Lacks is what the tools use that this server's version has not.
	Lacks []string
}

// Check connects to Audiobookshelf once, as the tools would, and reports
// what it found; the error is the one a tool call would give (what failed
// and what to do), without the key.
func (d *Deps) Check(ctx context.Context) (*CheckReport, error) {
	if res := d.Ready(true); res != nil {
		return nil, resultError(res)
	}
	r := &CheckReport{URL: d.BaseURL}
	st, res := d.send(ctx, false, func(ctx context.Context) (*http.Response, error) { return d.API.GetServerStatus(ctx) })
	if res != nil {
		return nil, resultError(res)
	}
	if st.Status == http.StatusNotFound || (st.Status/100 == 2 && isPage(bytes.TrimSpace(st.Body))) {
		return nil, &WrongPathError{URL: d.BaseURL, Status: st.Status}
	}
	if st.Status/100 != 2 {
		return nil, resultError(statusError(st, "the server status", false))
	}
	body := st.Body
	var s struct {
		App           string `json:"app"`
		ServerVersion string `json:"serverVersion"`
	}
	if res := decode(body, &s); res != nil {
		return nil, resultError(res)
	}
	if s.App != "audiobookshelf" && s.ServerVersion == "" {
		return nil, errors.New("the server at " + d.BaseURL + " answered /status, but not as Audiobookshelf does: is AUDIOBOOKSHELF_URL the Audiobookshelf server?")
	}
	r.ServerVersion = s.ServerVersion
	for _, l := range lacks(s.ServerVersion) {
		r.Lacks = append(r.Lacks, fmt.Sprintf("%v (Audiobookshelf %v)", l["what"], l["since"]))
	}
	_, u, res := d.getMe(ctx)
	if res != nil {
		return nil, resultError(res)
	}
	r.Username, r.UserType = u.Username, u.Type
	body, res = d.get(ctx, "the library list", func(ctx context.Context) (*http.Response, error) { return d.API.ListLibraries(ctx) })
	if res != nil {
		return nil, resultError(res)
	}
	var v struct {
		Libraries []absLibrary `json:"libraries"`
	}
	if res := decode(body, &v); res != nil {
		return nil, resultError(res)
	}
	r.Libraries = len(v.Libraries)
	for _, l := range v.Libraries {
		r.LibraryNames = append(r.LibraryNames, cleanText(l.Name))
	}
	return r, nil
}

// WrongPathError is Check's error when nothing of Audiobookshelf answers
// under AUDIOBOOKSHELF_URL's path: its status route is not there (404), or
// a web page answers it. The likeliest cause is a path in the URL that
// Audiobookshelf is not served under (/api, a page's path).
type WrongPathError struct {
	URL    string
	Status int
}

func (e *WrongPathError) Error() string {
	what := fmt.Sprintf("answered %d %s", e.Status, http.StatusText(e.Status))
	if e.Status/100 == 2 {
		what = "answered with a web page"
	}
	return fmt.Sprintf("the server at %s %s where Audiobookshelf answers its status (GET %s/status): Audiobookshelf is not served at this path. Set AUDIOBOOKSHELF_URL to the address Audiobookshelf's web page opens at, without /api or the path of a page (such as http://HOST:13378); keep a path only when Audiobookshelf is set up to be served under it.", e.URL, what, pathOf(e.URL))
}

func pathOf(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		if j := strings.IndexByte(u[i+3:], '/'); j >= 0 {
			return u[i+3+j:]
		}
	}
	return ""
}

// resultError is the text of an error result.
func resultError(res *mcp.CallToolResult) error {
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			return errors.New(t.Text)
		}
	}
	return errors.New("the check failed")
}

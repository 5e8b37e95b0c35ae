package kit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
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
	if err := d.Ready(true); err != nil {
		return nil, err
	}
	r := &CheckReport{URL: d.BaseURL}
	st, err := d.Send(ctx, false, func(ctx context.Context) (*http.Response, error) { return d.API.GetServerStatus(ctx) })
	if err != nil {
		return nil, err
	}
	if st.Status == http.StatusNotFound || (st.Status/100 == 2 && isPage(bytes.TrimSpace(st.Body))) {
		return nil, &WrongPathError{URL: d.BaseURL, Status: st.Status}
	}
	if st.Status/100 != 2 {
		return nil, StatusError(st, "the server status", false)
	}
	var s absdata.ServerStatus
	if err := Decode(st.Body, &s); err != nil {
		return nil, err
	}
	if s.App != "audiobookshelf" && s.ServerVersion == "" {
		return nil, errors.New("the server at " + d.BaseURL + " answered /status, but not as Audiobookshelf does: is AUDIOBOOKSHELF_URL the Audiobookshelf server?")
	}
	r.ServerVersion = s.ServerVersion
	for _, l := range Lacks(s.ServerVersion) {
		r.Lacks = append(r.Lacks, fmt.Sprintf("%v (Audiobookshelf %v)", l["what"], l["since"]))
	}
	_, u, err := d.ReadMe(ctx)
	if err != nil {
		return nil, err
	}
	r.Username, r.UserType = u.Username, u.Type
	libs, err := d.ReadLibraries(ctx)
	if err != nil {
		return nil, err
	}
	r.Libraries = len(libs)
	for _, l := range libs {
		r.LibraryNames = append(r.LibraryNames, CleanText(l.Name))
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

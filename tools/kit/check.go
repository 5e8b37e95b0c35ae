package kit

import (
	"context"
	"errors"
	"fmt"
	"net/http"

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
	body, err := d.Get(ctx, "the server status", func(ctx context.Context) (*http.Response, error) { return d.API.GetServerStatus(ctx) })
	if err != nil {
		return nil, err
	}
	var s absdata.ServerStatus
	if err := Decode(body, &s); err != nil {
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
	body, err = d.Get(ctx, "the library list", func(ctx context.Context) (*http.Response, error) { return d.API.ListLibraries(ctx) })
	if err != nil {
		return nil, err
	}
	var v struct {
		Libraries []absdata.Library `json:"libraries"`
	}
	if err := Decode(body, &v); err != nil {
		return nil, err
	}
	r.Libraries = len(v.Libraries)
	for _, l := range v.Libraries {
		r.LibraryNames = append(r.LibraryNames, CleanText(l.Name))
	}
	return r, nil
}

package listening

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
)

// What the server's prompts and completions (internal/app) look up by
// name: libraries, series and authors, and items by id, each read with the
// key of the call's person, like a tool.

// MaxCompletions is the most values one completion answers (MCP's limit).
const MaxCompletions = 100

// LibraryNamed is the library whose name is name (case folded); the error
// names the libraries there are.
func LibraryNamed(ctx context.Context, d *kit.Deps, name string) (*absdata.Library, error) {
	libs, err := d.ReadLibraries(ctx)
	if err != nil {
		return nil, err
	}
	var names []string
	for i := range libs {
		if strings.EqualFold(strings.TrimSpace(libs[i].Name), strings.TrimSpace(name)) {
			return &libs[i], nil
		}
		names = append(names, fmt.Sprintf("%q", libs[i].Name))
	}
	return nil, fmt.Errorf(`argument "library": no library is named %q; there are %s`, name, strings.Join(names, ", "))
}

// bookLibraries is the library named library, or every book library when
// library is "".
func bookLibraries(ctx context.Context, d *kit.Deps, library string) ([]absdata.Library, error) {
	if library != "" {
		l, err := LibraryNamed(ctx, d, library)
		if err != nil {
			return nil, err
		}
		return []absdata.Library{*l}, nil
	}
	libs, err := d.ReadLibraries(ctx)
	if err != nil {
		return nil, err
	}
	var out []absdata.Library
	for _, l := range libs {
		if l.MediaType == "book" {
			out = append(out, l)
		}
	}
	return out, nil
}

// Matching is the values that start with value (case folded), then those
// that contain it, each once, in that order, at most MaxCompletions; and
// how many matched.
func Matching(values []string, value string) ([]string, int) {
	v := strings.ToLower(strings.TrimSpace(value))
	seen := map[string]bool{}
	var first, then []string
	for _, s := range values {
		if s == "" || seen[s] {
			continue
		}
		seen[s] = true
		l := strings.ToLower(s)
		switch {
		case strings.HasPrefix(l, v):
			first = append(first, s)
		case strings.Contains(l, v):
			then = append(then, s)
		}
	}
	sort.Strings(first)
	sort.Strings(then)
	all := append(first, then...)
	n := len(all)
	if n > MaxCompletions {
		all = all[:MaxCompletions]
	}
	return all, n
}

// LibraryNames completes a library's name.
func LibraryNames(ctx context.Context, d *kit.Deps, value string) ([]string, int, error) {
	return libraryNames(ctx, d, value, false)
}

// BookLibraryNames completes the name of a book library.
func BookLibraryNames(ctx context.Context, d *kit.Deps, value string) ([]string, int, error) {
	return libraryNames(ctx, d, value, true)
}

// libraryNames completes the name of a library, of a book library when
// books is true.
func libraryNames(ctx context.Context, d *kit.Deps, value string, books bool) ([]string, int, error) {
	libs, err := d.ReadLibraries(ctx)
	if err != nil {
		return nil, 0, err
	}
	var names []string
	for _, l := range libs {
		if !books || l.MediaType == "book" {
			names = append(names, l.Name)
		}
	}
	out, n := Matching(names, value)
	return out, n, nil
}

// search is a library's search for q.
func search(ctx context.Context, d *kit.Deps, libraryID, q string) (*absdata.SearchResults, error) {
	body, err := d.Get(ctx, "library "+libraryID, func(ctx context.Context) (*http.Response, error) {
		return d.API.SearchLibrary(ctx, libraryID, &abs.SearchLibraryParams{Q: q, Limit: kit.Ptr(25)})
	})
	if err != nil {
		return nil, err
	}
	var v absdata.SearchResults
	if err := kit.Decode(body, &v); err != nil {
		return nil, err
	}
	return &v, nil
}

// SeriesRef is a series found by name.
type SeriesRef struct{ ID, Name, LibraryID string }

// seriesOf is the series of the book libraries (or the one named library)
// whose names match value: by the library's search, or with no value the
// first MaxCompletions by name.
func seriesOf(ctx context.Context, d *kit.Deps, library, value string) ([]SeriesRef, error) {
	libs, err := bookLibraries(ctx, d, library)
	if err != nil {
		return nil, err
	}
	var out []SeriesRef
	for _, l := range libs {
		if strings.TrimSpace(value) == "" {
			body, err := d.Get(ctx, "library "+l.ID, func(ctx context.Context) (*http.Response, error) {
				return d.API.ListLibrarySeries(ctx, l.ID, &abs.ListLibrarySeriesParams{Limit: kit.Ptr(MaxCompletions), Page: kit.Ptr(0), Sort: kit.Ptr("name")})
			})
			if err != nil {
				return nil, err
			}
			var v absdata.Listing[absdata.Series]
			if err := kit.Decode(body, &v); err != nil {
				return nil, err
			}
			rows, _ := v.Rows()
			for _, s := range rows {
				out = append(out, SeriesRef{s.ID, s.Name, l.ID})
			}
			continue
		}
		r, err := search(ctx, d, l.ID, value)
		if err != nil {
			return nil, err
		}
		for _, s := range r.Series {
			out = append(out, SeriesRef{s.Series.ID, s.Series.Name, l.ID})
		}
	}
	return out, nil
}

// SeriesNames completes a series' name.
func SeriesNames(ctx context.Context, d *kit.Deps, library, value string) ([]string, int, error) {
	found, err := seriesOf(ctx, d, library, value)
	if err != nil {
		return nil, 0, err
	}
	var names []string
	for _, s := range found {
		names = append(names, s.Name)
	}
	out, n := Matching(names, value)
	return out, n, nil
}

// SeriesNamed is the series whose name is name (case folded), in the named
// library or any book library; the error names close ones.
func SeriesNamed(ctx context.Context, d *kit.Deps, library, name string) (*SeriesRef, error) {
	found, err := seriesOf(ctx, d, library, name)
	if err != nil {
		return nil, err
	}
	var close []string
	for i := range found {
		if strings.EqualFold(strings.TrimSpace(found[i].Name), strings.TrimSpace(name)) {
			return &found[i], nil
		}
		close = append(close, fmt.Sprintf("%q", found[i].Name))
	}
	if len(close) == 0 {
		return nil, fmt.Errorf(`argument "series": no series is named %q; completion/complete on the argument lists the series`, name)
	}
	if len(close) > 10 {
		close = close[:10]
	}
	return nil, fmt.Errorf(`argument "series": no series is named %q exactly; close: %s`, name, strings.Join(close, ", "))
}

// AuthorNames completes an author's name.
func AuthorNames(ctx context.Context, d *kit.Deps, library, value string) ([]string, int, error) {
	libs, err := bookLibraries(ctx, d, library)
	if err != nil {
		return nil, 0, err
	}
	var names []string
	for _, l := range libs {
		if strings.TrimSpace(value) == "" {
			body, err := d.Get(ctx, "library "+l.ID, func(ctx context.Context) (*http.Response, error) {
				return d.API.ListLibraryAuthors(ctx, l.ID, &abs.ListLibraryAuthorsParams{Limit: kit.Ptr(MaxCompletions), Page: kit.Ptr(0)})
			})
			if err != nil {
				return nil, 0, err
			}
			var v absdata.Listing[absdata.Author]
			if err := kit.Decode(body, &v); err != nil {
				return nil, 0, err
			}
			rows, _ := v.Rows()
			for _, a := range rows {
				names = append(names, a.Name)
			}
			continue
		}
		r, err := search(ctx, d, l.ID, value)
		if err != nil {
			return nil, 0, err
		}
		for _, a := range r.Authors {
			names = append(names, a.Name)
		}
	}
	out, n := Matching(names, value)
	return out, n, nil
}

// ItemIDs completes a library item's id: the items whose title, author or
// series match value, or with no value the items in progress.
func ItemIDs(ctx context.Context, d *kit.Deps, value string) ([]string, int, error) {
	var ids []string
	if strings.TrimSpace(value) == "" {
		body, _, _, err := d.ItemsInProgress(ctx, MaxCompletions)
		if err != nil {
			return nil, 0, err
		}
		var v struct {
			LibraryItems []absdata.Item `json:"libraryItems"`
		}
		if err := kit.Decode(body, &v); err != nil {
			return nil, 0, err
		}
		for _, it := range v.LibraryItems {
			ids = append(ids, it.ID)
		}
		out, n := Matching(ids, "")
		return out, n, nil
	}
	libs, err := d.ReadLibraries(ctx)
	if err != nil {
		return nil, 0, err
	}
	for _, l := range libs {
		r, err := search(ctx, d, l.ID, value)
		if err != nil {
			return nil, 0, err
		}
		for _, h := range append(r.Book, r.Podcast...) {
			ids = append(ids, h.LibraryItem.ID)
		}
		for _, s := range r.Series {
			for _, b := range s.Books {
				ids = append(ids, b.ID)
			}
		}
	}
	// An id is matched by what it stands for, not by its letters.
	seen := map[string]bool{}
	var out []string
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	n := len(out)
	if n > MaxCompletions {
		out = out[:MaxCompletions]
	}
	return out, n, nil
}

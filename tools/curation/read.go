package curation

import (
	"context"
	"fmt"
	"net/http"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
)

// The pages the audits read Audiobookshelf in: a page of books is 100
// minified items (about 1,000 characters each with a description), a
// page of series 50 series with every book of each.
const (
	itemsPage  = 100
	seriesPage = 50
	// authorsPage: an author is about 300 characters.
	authorsPage = 500
	// maxPages bounds one walk: 2,000 pages of 100 books is a library of
	// 200,000, beyond any household's; a walk that gets there stops with
	// an error rather than loop on a server that never says it is done.
	maxPages = 2000
)

// readItems reads a book library's items, filtered by filterBy (""
// for all), page after page of itemsPage until Audiobookshelf's total.
// A podcast among them is refused: the audits are of books.
func readItems(ctx context.Context, d *kit.Deps, libraryID, filterBy string) ([]absdata.Item, error) {
	return walkItems(ctx, d, libraryID, filterBy, false)
}

// walkItems reads a library's items, filtered by filterBy, page after
// page; a podcast among them is refused unless podcasts is true.
func walkItems(ctx context.Context, d *kit.Deps, libraryID, filterBy string, podcasts bool) ([]absdata.Item, error) {
	return once(ctx, fmt.Sprintf("items %s %q %t", libraryID, filterBy, podcasts), func() ([]absdata.Item, error) {
		return walkItemPages(ctx, d, libraryID, filterBy, podcasts)
	})
}

func walkItemPages(ctx context.Context, d *kit.Deps, libraryID, filterBy string, podcasts bool) ([]absdata.Item, error) {
	return walkPages(ctx, d, libraryID, "books", itemsPage, func(ctx context.Context, page int) (*http.Response, error) {
		params := &abs.ListLibraryItemsParams{Limit: kit.Ptr(itemsPage), Page: kit.Ptr(page)}
		if filterBy != "" {
			params.Filter = kit.Ptr(filterBy)
		}
		return d.API.ListLibraryItems(ctx, libraryID, params)
	}, func(rows []absdata.Item) error {
		for i := range rows {
			if rows[i].MediaType == "podcast" && !podcasts {
				return notBooks(libraryID)
			}
		}
		return nil
	})
}

// readSeries reads a library's series with their books, page after page
// of seriesPage until Audiobookshelf's total.
func readSeries(ctx context.Context, d *kit.Deps, libraryID string) ([]absdata.Series, error) {
	return once(ctx, "series "+libraryID, func() ([]absdata.Series, error) { return readSeriesPages(ctx, d, libraryID) })
}

func readSeriesPages(ctx context.Context, d *kit.Deps, libraryID string) ([]absdata.Series, error) {
	return walkPages[absdata.Series](ctx, d, libraryID, "series", seriesPage, func(ctx context.Context, page int) (*http.Response, error) {
		return d.API.ListLibrarySeries(ctx, libraryID, &abs.ListLibrarySeriesParams{Limit: kit.Ptr(seriesPage), Page: kit.Ptr(page)})
	}, nil)
}

// readAuthors reads a book library's authors, sorted by name, page after
// page of authorsPage until Audiobookshelf's total.
func readAuthors(ctx context.Context, d *kit.Deps, libraryID string) ([]absdata.Author, error) {
	return once(ctx, "authors "+libraryID, func() ([]absdata.Author, error) { return readAuthorPages(ctx, d, libraryID) })
}

func readAuthorPages(ctx context.Context, d *kit.Deps, libraryID string) ([]absdata.Author, error) {
	return walkPages[absdata.Author](ctx, d, libraryID, "authors", authorsPage, func(ctx context.Context, page int) (*http.Response, error) {
		return d.API.ListLibraryAuthors(ctx, libraryID, &abs.ListLibraryAuthorsParams{Limit: kit.Ptr(authorsPage), Page: kit.Ptr(page), Sort: kit.Ptr("name")})
	}, nil)
}

// walkPages reads one of a library's listings page after page (get, per
// a page) until Audiobookshelf's total, at most maxPages; check, when
// given, may refuse a page's rows.
func walkPages[T any](ctx context.Context, d *kit.Deps, libraryID, what string, per int, get func(context.Context, int) (*http.Response, error), check func([]T) error) ([]T, error) {
	var all []T
	for page := 0; page < maxPages; page++ {
		body, err := d.Get(ctx, "library "+libraryID, func(ctx context.Context) (*http.Response, error) { return get(ctx, page) })
		if err != nil {
			return nil, err
		}
		var v absdata.Listing[T]
		if err := kit.Decode(body, &v); err != nil {
			return nil, err
		}
		rows, total := v.Rows()
		if check != nil {
			if err := check(rows); err != nil {
				return nil, err
			}
		}
		all = append(all, rows...)
		if total == nil || len(rows) == 0 || len(all) >= *total {
			return all, nil
		}
	}
	return nil, kit.Errorf(kit.Unchanged, "library %s: Audiobookshelf was still sending pages after %d pages of %d %s; the audit stopped there.", libraryID, maxPages, per, what)
}

// readNarrators reads a library's narrators (Audiobookshelf sends them
// all at once), spelt as the books hold them.
func readNarrators(ctx context.Context, d *kit.Deps, libraryID string) ([]string, error) {
	return once(ctx, "narrators "+libraryID, func() ([]string, error) { return readNarratorList(ctx, d, libraryID) })
}

func readNarratorList(ctx context.Context, d *kit.Deps, libraryID string) ([]string, error) {
	body, err := d.Get(ctx, "library "+libraryID, func(ctx context.Context) (*http.Response, error) {
		return d.API.ListLibraryNarrators(ctx, libraryID)
	})
	if err != nil {
		return nil, err
	}
	var v struct {
		Narrators []absdata.Narrator `json:"narrators"`
	}
	if err := kit.Decode(body, &v); err != nil {
		return nil, err
	}
	names := make([]string, len(v.Narrators))
	for i, n := range v.Narrators {
		names[i] = n.Name
	}
	return names, nil
}

type narratorsRead struct {
	names []string
	err   error
}

func notBooks(libraryID string) error {
	return kit.Errorf(kit.Unchanged, `argument "library_id": library %s is a podcast library; the audits look at book libraries (list_libraries gives their ids).`, libraryID)
}

// titleOf is an item's title for a finding.
func titleOf(it *absdata.Item) string { return it.Media.Metadata.Title.Value }

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

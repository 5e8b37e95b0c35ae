package libraries

import (
	"context"
	"fmt"
	"net/http"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/compact"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// seriesSorts maps list_series' sort names (seriesFilters.getFilteredSeries).
var seriesSorts = map[string]string{
	"name": "name", "num_books": "numBooks", "total_duration": "totalDuration", "added_at": "addedAt",
	"last_book_added": "lastBookAdded", "last_book_updated": "lastBookUpdated",
}

// SeriesBrief is a series in a list.
type SeriesBrief struct {
	ID       string              `json:"id"`
	Name     string              `json:"name"`
	NumBooks int                 `json:"num_books"`
	Books    []compact.ItemBrief `json:"books,omitempty"`
	// More says how many books were left out and where they are.
	More string `json:"more,omitempty"`
}

// SeriesBooksCap is how many books list_series shows of each series.
const SeriesBooksCap = 10

// ListSeries is list_series.
func ListSeries(ctx context.Context, d *kit.Deps, a toolargs.ListSeries) (*mcp.CallToolResult, error) {
	params := &abs.ListLibrarySeriesParams{Limit: kit.Ptr(int(a.Limit)), Page: kit.Ptr(int(a.Page))}
	if a.Sort != nil {
		params.Sort = kit.Ptr(seriesSorts[*a.Sort])
	}
	if a.Descending {
		params.Desc = kit.Ptr(abs.ListLibrarySeriesParamsDescN1)
	}
	body, err := d.Get(ctx, "library "+a.LibraryID, func(ctx context.Context) (*http.Response, error) {
		return d.API.ListLibrarySeries(ctx, a.LibraryID, params)
	})
	if err != nil {
		return nil, err
	}
	if result.Full(a.Detail) {
		return result.RawResult(body)
	}
	var v absdata.Listing[absdata.Series]
	if err := kit.Decode(body, &v); err != nil {
		return nil, err
	}
	rows, total := v.Rows()
	return result.Page(d, "results", result.PagingOf(a.Page, a.Limit), rows, total, seriesBrief)
}

// seriesBrief is a series in list_series, with its first SeriesBooksCap
// books.
func seriesBrief(s *absdata.Series) SeriesBrief {
	sb := SeriesBrief{ID: s.ID, Name: s.Name, NumBooks: len(s.Books)}
	for i := range s.Books {
		if i == SeriesBooksCap {
			sb.More = fmt.Sprintf("+%d more: list_library_items with filter_group series, filter_value %s, sort sequence (paged)", len(s.Books)-i, s.ID)
			break
		}
		b := compact.Brief(&s.Books[i], nil)
		b.Authors, b.Added = "", ""
		sb.Books = append(sb.Books, b)
	}
	return sb
}

// GetSeries is get_series.
func GetSeries(ctx context.Context, d *kit.Deps, a toolargs.GetSeries) (*mcp.CallToolResult, error) {
	// Audiobookshelf answers a series of any library by id
	// (SeriesController.middleware filters its books by tags and explicit
	// content, not by library): one of a library the user does not see is
	// answered as not found.
	libs := d.SeenLibraries(ctx)
	body, err := d.Get(ctx, "series "+a.SeriesID, func(ctx context.Context) (*http.Response, error) {
		return d.API.GetSeries(ctx, a.SeriesID, &abs.GetSeriesParams{Include: kit.Ptr("progress")})
	})
	if err != nil {
		libs.Abandon()
		return nil, err
	}
	var s absdata.Series
	if err := kit.Decode(body, &s); err != nil {
		libs.Abandon()
		return nil, err
	}
	if err := libs.Wait().Check("series_id", "series", a.SeriesID, s.LibraryID); err != nil {
		return nil, err
	}
	if result.Full(a.Detail) {
		return result.RawResult(body)
	}
	out := map[string]any{"id": s.ID, "name": s.Name, "added": compact.Date(s.AddedAt)}
	// Its books in series order: the library's items filtered to the
	// series, sorted by sequence (the series' own answer lists them in no
	// order), up to SeriesBooksInOrder; the rest are a page away.
	if s.LibraryID != "" {
		books, total, err := seriesBooks(ctx, d, s.LibraryID, s.ID, SeriesBooksInOrder)
		if err != nil {
			return nil, err
		}
		out["library_id"] = s.LibraryID
		out["books"] = books
		if total > len(books) {
			out["books_more"] = fmt.Sprintf("%d more: list_library_items with library_id %s, filter_group series, filter_value %s, sort sequence, page 1, limit %d", total-len(books), s.LibraryID, s.ID, SeriesBooksInOrder)
		}
	}
	if desc, n := compact.Collapse(s.Description.String(), compact.DescriptionLimit); desc != "" {
		out["description"] = desc
		if n > 0 {
			out["description_length"] = n
		}
	}
	if s.Progress != nil {
		out["finished_book_ids"] = nonNil(s.Progress.LibraryItemIDsFinished)
		out["finished"] = s.Progress.IsFinished
		// A long series' ids are cut evenly to fit the budget.
		books := "list_library_items with filter_group series, filter_value " + s.ID + ", sort sequence (paged)"
		cuts := map[string]result.Cut{}
		result.FitLists(d, out, map[string]string{"finished_book_ids": books}, cuts)
		if len(cuts) > 0 {
			out["cut"] = cuts
		}
	}
	return result.JSONResult(out)
}

// SeriesBooksInOrder is how many of a series' books get_series lists.
const SeriesBooksInOrder = 50

// seriesBook is a book of a series, with its place in it.
type seriesBook struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Sequence string `json:"sequence,omitempty"`
}

// seriesBooks reads the first limit books of a series in series order
// (the library's items filtered to it, sorted by sequence), and how many
// it has.
func seriesBooks(ctx context.Context, d *kit.Deps, libraryID, seriesID string, limit int) ([]seriesBook, int, error) {
	return filteredBooks(ctx, d, libraryID, "series", seriesID, "sequence", limit)
}

// filteredBooks reads the first limit books of a library that a filter of
// the group ("series", "authors") and id holds, in the sort given (a key of
// itemSorts), and how many it holds. Sequence is the book's place in the
// series when the group is series.
func filteredBooks(ctx context.Context, d *kit.Deps, libraryID, group, id, sort string, limit int) ([]seriesBook, int, error) {
	seriesID := ""
	if group == "series" {
		seriesID = id
	}
	if _, err := EncodeFilter(group, &id); err != nil {
		return nil, 0, err
	}
	rows, n, err := d.ReadFilteredBooks(ctx, "library "+libraryID, libraryID, group, id, itemSorts[sort], limit)
	if err != nil {
		return nil, 0, err
	}
	out := make([]seriesBook, 0, len(rows))
	for i := range rows {
		it := &rows[i]
		b := seriesBook{ID: it.ID, Title: it.Media.Metadata.Title.Value}
		for _, sr := range it.Media.Metadata.Series {
			if seriesID != "" && (sr.ID == seriesID || len(it.Media.Metadata.Series) == 1) {
				b.Sequence = sr.Sequence.Value
			}
		}
		out = append(out, b)
	}
	return out, n, nil
}

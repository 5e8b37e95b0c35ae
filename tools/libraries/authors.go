package libraries

import (
	"context"
	"net/http"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/compact"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// authorSorts maps list_authors' sort names to Audiobookshelf's
// (LibraryController.getAuthors).
var authorSorts = map[string]string{
	"name": "name", "last_first": "lastFirst", "added_at": "addedAt", "updated_at": "updatedAt", "num_books": "numBooks",
}

// AuthorBrief is an author in a list.
type AuthorBrief struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	NumBooks int    `json:"num_books"`
}

// ListAuthors is list_authors.
func ListAuthors(ctx context.Context, d *kit.Deps, a toolargs.ListAuthors) (*mcp.CallToolResult, error) {
	// Audiobookshelf pages the authors when limit and page are both given
	// (LibraryController.getAuthors): a page costs it a page of rows.
	params := &abs.ListLibraryAuthorsParams{Limit: kit.Ptr(int(a.Limit)), Page: kit.Ptr(int(a.Page)), Sort: kit.Ptr(authorSorts[a.Sort])}
	body, err := d.Get(ctx, "library "+a.LibraryID, func(ctx context.Context) (*http.Response, error) {
		return d.API.ListLibraryAuthors(ctx, a.LibraryID, params)
	})
	if err != nil {
		return nil, err
	}
	if result.Full(a.Detail) {
		return result.RawResult(body)
	}
	// A server that sent every author (no total) has its page cut here.
	var v absdata.Listing[absdata.Author]
	if err := kit.Decode(body, &v); err != nil {
		return nil, err
	}
	rows, total := v.Rows()
	return result.Page(d, "authors", result.PagingOf(a.Page, a.Limit), rows, total, func(au *absdata.Author) AuthorBrief {
		return AuthorBrief{ID: au.ID, Name: au.Name, NumBooks: au.NumBooks}
	})
}

// GetAuthor is get_author.
func GetAuthor(ctx context.Context, d *kit.Deps, a toolargs.GetAuthor) (*mcp.CallToolResult, error) {
	params := &abs.GetAuthorParams{}
	if a.IncludeItems {
		params.Include = kit.Ptr("items,series")
	}
	// Audiobookshelf answers an author of any library by id, with its
	// books (AuthorController.middleware checks no library): one of a
	// library the user does not see is answered as not found.
	libs := d.SeenLibraries(ctx)
	body, err := d.Get(ctx, "author "+a.AuthorID, func(ctx context.Context) (*http.Response, error) {
		return d.API.GetAuthor(ctx, a.AuthorID, params)
	})
	if err != nil {
		libs.Abandon()
		return nil, err
	}
	var au absdata.Author
	if err := kit.Decode(body, &au); err != nil {
		libs.Abandon()
		return nil, err
	}
	// An author without a library (a server older than its libraries'
	// authors) cannot be checked, and is shown as before.
	if seen := libs.Wait(); au.LibraryID != "" {
		if err := seen.Check("author_id", "author", a.AuthorID, au.LibraryID); err != nil {
			return nil, err
		}
	}
	if result.Full(a.Detail) {
		return result.RawResult(body)
	}
	out := map[string]any{"id": au.ID, "name": au.Name, "library_id": au.LibraryID}
	if a.LibraryID != nil && au.LibraryID != "" && au.LibraryID != *a.LibraryID {
		// An author belongs to one library: none of its books are in another.
		au.LibraryItems, au.Series = nil, nil
		out["note"] = "This author belongs to library " + au.LibraryID + ", so it has no books in library " + *a.LibraryID + "."
	}
	if desc, n := compact.Collapse(au.Description, compact.DescriptionLimit); desc != "" {
		out["description"] = desc
		if n > 0 {
			out["description_length"] = n
		}
	}
	if a.IncludeItems {
		items := make([]compact.ItemBrief, 0, len(au.LibraryItems))
		for i := range au.LibraryItems {
			b := compact.Brief(&au.LibraryItems[i], nil)
			b.Authors = ""
			items = append(items, b)
		}
		out["books"] = items
		type ser struct {
			ID      string   `json:"id"`
			Name    string   `json:"name"`
			BookIDs []string `json:"book_ids"`
		}
		series := make([]ser, 0, len(au.Series))
		for _, s := range au.Series {
			x := ser{ID: s.ID, Name: s.Name, BookIDs: []string{}}
			for _, it := range s.Items {
				x.BookIDs = append(x.BookIDs, it.ID)
			}
			series = append(series, x)
		}
		out["series"] = series
		cuts := map[string]result.Cut{}
		books := "list_library_items with filter_group authors, filter_value " + au.ID + " (paged)"
		result.FitLists(d, out, map[string]string{"books": books, "series": books}, cuts)
		if len(cuts) > 0 {
			out["cut"] = cuts
		}
	}
	return result.JSONResult(out)
}

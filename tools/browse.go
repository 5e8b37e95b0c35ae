package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/versions"
)

// SearchLibrary is search_library.
func SearchLibrary(ctx context.Context, d *Deps, a toolargs.SearchLibrary) (*mcp.CallToolResult, error) {
	params := &abs.SearchLibraryParams{Q: a.Q, Limit: ptrOf(int(a.Limit))}
	body, res := d.get(ctx, "library "+a.LibraryID, func(ctx context.Context) (*http.Response, error) {
		return d.API.SearchLibrary(ctx, a.LibraryID, params)
	})
	if res != nil {
		return res, nil
	}
	if full(a.Detail) {
		return rawResult(body), nil
	}
	type hit struct {
		LibraryItem absItem `json:"libraryItem"`
		MatchKey    string  `json:"matchKey"`
		MatchText   string  `json:"matchText"`
	}
	var v struct {
		Book    []hit `json:"book"`
		Podcast []hit `json:"podcast"`
		Series  []struct {
			Series absRef    `json:"series"`
			Books  []absItem `json:"books"`
		} `json:"series"`
		Authors []struct {
			ID       string `json:"id"`
			Name     string `json:"name"`
			NumBooks int    `json:"numBooks"`
		} `json:"authors"`
		Narrators []struct {
			Name     string `json:"name"`
			NumBooks int    `json:"numBooks"`
		} `json:"narrators"`
		Tags []struct {
			Name     string `json:"name"`
			NumItems int    `json:"numItems"`
		} `json:"tags"`
		Genres []struct {
			Name     string `json:"name"`
			NumItems int    `json:"numItems"`
		} `json:"genres"`
	}
	if res := decode(body, &v); res != nil {
		return res, nil
	}
	type itemHit struct {
		ItemBrief
		Matched string `json:"matched,omitempty"`
	}
	out := map[string]any{}
	var items []itemHit
	for _, h := range append(v.Book, v.Podcast...) {
		items = append(items, itemHit{ItemBrief: brief(&h.LibraryItem, nil), Matched: h.MatchKey})
	}
	out["items"] = nonNil(items)
	type seriesHit struct {
		ID    string   `json:"id"`
		Name  string   `json:"name"`
		Books []string `json:"book_ids,omitempty"`
	}
	var series []seriesHit
	for _, s := range v.Series {
		h := seriesHit{ID: s.Series.ID, Name: s.Series.Name}
		for _, b := range s.Books {
			h.Books = append(h.Books, b.ID)
		}
		series = append(series, h)
	}
	if len(series) > 0 {
		out["series"] = series
	}
	if len(v.Authors) > 0 {
		out["authors"] = v.Authors
	}
	if len(v.Narrators) > 0 {
		out["narrators"] = v.Narrators
	}
	if len(v.Tags) > 0 {
		out["tags"] = v.Tags
	}
	if len(v.Genres) > 0 {
		out["genres"] = v.Genres
	}
	cuts := map[string]Cut{}
	rest := map[string]string{}
	for k := range out {
		rest[k] = "a more precise q, or a smaller limit"
	}
	d.fitLists(out, rest, cuts)
	if len(cuts) > 0 {
		out["cut"] = cuts
	}
	return jsonResult(out), nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// GetPersonalizedShelves is get_personalized_shelves.
func GetPersonalizedShelves(ctx context.Context, d *Deps, a toolargs.GetPersonalizedShelves) (*mcp.CallToolResult, error) {
	params := &abs.GetPersonalizedShelvesParams{Limit: ptrOf(int(a.Limit))}
	body, res := d.get(ctx, "library "+a.LibraryID, func(ctx context.Context) (*http.Response, error) {
		return d.API.GetPersonalizedShelves(ctx, a.LibraryID, params)
	})
	if res != nil {
		return res, nil
	}
	if full(a.Detail) {
		return rawResult(body), nil
	}
	var shelves []struct {
		ID       string            `json:"id"`
		Label    string            `json:"label"`
		Type     string            `json:"type"`
		Entities []json.RawMessage `json:"entities"`
		Total    int               `json:"total"`
	}
	if res := decode(body, &shelves); res != nil {
		return res, nil
	}
	type shelf struct {
		ID       string `json:"id"`
		Label    string `json:"label"`
		Type     string `json:"type"`
		Total    int    `json:"total,omitempty"`
		More     string `json:"more,omitempty"`
		Entities []any  `json:"entities"`
	}
	out := make([]shelf, 0, len(shelves))
	for _, s := range shelves {
		sh := shelf{ID: s.ID, Label: s.Label, Type: s.Type, Total: s.Total, Entities: []any{}}
		for _, e := range s.Entities {
			switch s.Type {
			case "book", "podcast":
				var it absItem
				if unmarshal(e, &it) == nil {
					sh.Entities = append(sh.Entities, brief(&it, nil))
				}
			case "episode":
				var it absItem
				if unmarshal(e, &it) == nil && it.RecentEpisode != nil {
					sh.Entities = append(sh.Entities, episodeBrief(it.RecentEpisode, it.Media.Metadata.Title))
				}
			case "series":
				var se struct {
					ID    string    `json:"id"`
					Name  string    `json:"name"`
					Books []absItem `json:"books"`
				}
				if unmarshal(e, &se) == nil {
					ids := make([]string, 0, len(se.Books))
					for _, b := range se.Books {
						ids = append(ids, b.ID)
					}
					sh.Entities = append(sh.Entities, map[string]any{"id": se.ID, "name": se.Name, "book_ids": ids})
				}
			case "authors":
				var au struct {
					ID       string `json:"id"`
					Name     string `json:"name"`
					NumBooks int    `json:"numBooks"`
				}
				if unmarshal(e, &au) == nil {
					sh.Entities = append(sh.Entities, map[string]any{"id": au.ID, "name": au.Name, "num_books": au.NumBooks})
				}
			default:
				var x struct {
					ID   string `json:"id"`
					Name string `json:"name"`
				}
				if unmarshal(e, &x) == nil {
					sh.Entities = append(sh.Entities, x)
				}
			}
		}
		out = append(out, sh)
	}
	// Shelves of limit 100 can pass the budget together: each is then cut
	// to the same number of entries, the most that fit.
	sizes := make([][]int, len(out))
	longest := 0
	for i := range out {
		for _, e := range out[i].Entities {
			b, _ := marshal(e)
			sizes[i] = append(sizes[i], len(b)+1)
		}
		longest = max(longest, len(sizes[i]))
	}
	cost := func(c int) int {
		n := 0
		for i := range sizes {
			n += 200 + len(out[i].Label)
			for j := 0; j < min(c, len(sizes[i])); j++ {
				n += sizes[i][j]
			}
		}
		return n
	}
	if cost(longest) > d.room() {
		c := max(sort.Search(longest+1, func(c int) bool { return cost(c) > d.room() })-1, 0)
		for i := range out {
			if n := len(out[i].Entities); n > c {
				out[i].Entities = out[i].Entities[:c]
				out[i].More = fmt.Sprintf("+%d more: cut to fit the result budget; a smaller limit shows fewer on every shelf, list_library_items pages the library", n-c)
			}
		}
	}
	return jsonResult(map[string]any{"shelves": out}), nil
}

type absSeriesEntry struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	Description lazyText  `json:"description"`
	AddedAt     int64     `json:"addedAt"`
	Books       []absItem `json:"books"`
	NumBooks    int       `json:"numBooks"`
}

// SeriesBrief is a series in a list.
type SeriesBrief struct {
	ID       string      `json:"id"`
	Name     string      `json:"name"`
	NumBooks int         `json:"num_books"`
	Books    []ItemBrief `json:"books,omitempty"`
	// More says how many books were left out and where they are.
	More string `json:"more,omitempty"`
}

// SeriesBooksCap is how many books list_series shows of each series.
const SeriesBooksCap = 10

// ListSeries is list_series.
func ListSeries(ctx context.Context, d *Deps, a toolargs.ListSeries) (*mcp.CallToolResult, error) {
	params := &abs.ListLibrarySeriesParams{Limit: ptrOf(int(a.Limit)), Page: ptrOf(int(a.Page))}
	if a.Sort != nil {
		params.Sort = ptrOf(seriesSorts[*a.Sort])
	}
	if a.Descending {
		params.Desc = ptrOf(abs.ListLibrarySeriesParamsDescN1)
	}
	body, res := d.get(ctx, "library "+a.LibraryID, func(ctx context.Context) (*http.Response, error) {
		return d.API.ListLibrarySeries(ctx, a.LibraryID, params)
	})
	if res != nil {
		return res, nil
	}
	if full(a.Detail) {
		return rawResult(body), nil
	}
	var v struct {
		Results []absSeriesEntry `json:"results"`
		Total   int              `json:"total"`
	}
	if res := decode(body, &v); res != nil {
		return res, nil
	}
	out := make([]SeriesBrief, 0, len(v.Results))
	for _, s := range v.Results {
		sb := SeriesBrief{ID: s.ID, Name: s.Name, NumBooks: len(s.Books)}
		for i := range s.Books {
			if i == SeriesBooksCap {
				sb.More = fmt.Sprintf("+%d more: list_library_items with filter_group series, filter_value %s, sort sequence (paged)", len(s.Books)-i, s.ID)
				break
			}
			b := brief(&s.Books[i], nil)
			b.Authors, b.Added = "", ""
			sb.Books = append(sb.Books, b)
		}
		out = append(out, sb)
	}
	return pageResult(d, "results", out, v.Total, int(a.Page), int(a.Limit)), nil
}

// GetSeries is get_series.
func GetSeries(ctx context.Context, d *Deps, a toolargs.GetSeries) (*mcp.CallToolResult, error) {
	body, res := d.get(ctx, "series "+a.SeriesID, func(ctx context.Context) (*http.Response, error) {
		return d.API.GetSeries(ctx, a.SeriesID, &abs.GetSeriesParams{Include: ptrOf("progress")})
	})
	if res != nil {
		return res, nil
	}
	if full(a.Detail) {
		return rawResult(body), nil
	}
	var s struct {
		ID          string `json:"id"`
		Name        string `json:"name"`
		Description string `json:"description"`
		AddedAt     int64  `json:"addedAt"`
		Progress    *struct {
			LibraryItemIDs         []string `json:"libraryItemIds"`
			LibraryItemIDsFinished []string `json:"libraryItemIdsFinished"`
			IsFinished             bool     `json:"isFinished"`
		} `json:"progress"`
	}
	if res := decode(body, &s); res != nil {
		return res, nil
	}
	out := map[string]any{"id": s.ID, "name": s.Name, "added": date(s.AddedAt),
		"books_in_order": "list_library_items with filter_group series, filter_value " + s.ID + ", sort sequence"}
	if desc, n := collapse(s.Description, DescriptionLimit); desc != "" {
		out["description"] = desc
		if n > 0 {
			out["description_length"] = n
		}
	}
	if s.Progress != nil {
		out["book_ids"] = s.Progress.LibraryItemIDs
		out["finished_book_ids"] = nonNil(s.Progress.LibraryItemIDsFinished)
		out["finished"] = s.Progress.IsFinished
		// A long series' ids are cut evenly to fit the budget.
		books := "list_library_items with filter_group series, filter_value " + s.ID + ", sort sequence (paged)"
		cuts := map[string]Cut{}
		d.fitLists(out, map[string]string{"book_ids": books, "finished_book_ids": books}, cuts)
		if len(cuts) > 0 {
			out["cut"] = cuts
		}
	}
	return jsonResult(out), nil
}

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
func ListAuthors(ctx context.Context, d *Deps, a toolargs.ListAuthors) (*mcp.CallToolResult, error) {
	// Audiobookshelf pages the authors when limit and page are both given
	// (LibraryController.getAuthors): a page costs it a page of rows.
	params := &abs.ListLibraryAuthorsParams{Limit: ptrOf(int(a.Limit)), Page: ptrOf(int(a.Page)), Sort: ptrOf(authorSorts[a.Sort])}
	body, res := d.get(ctx, "library "+a.LibraryID, func(ctx context.Context) (*http.Response, error) {
		return d.API.ListLibraryAuthors(ctx, a.LibraryID, params)
	})
	if res != nil {
		return res, nil
	}
	if full(a.Detail) {
		return rawResult(body), nil
	}
	type author struct {
		ID       string `json:"id"`
		Name     string `json:"name"`
		NumBooks int    `json:"numBooks"`
	}
	var v struct {
		Results []author `json:"results"`
		Authors []author `json:"authors"` // an unpaged answer
		Total   *int     `json:"total"`
	}
	if res := decode(body, &v); res != nil {
		return res, nil
	}
	rows, total := v.Results, 0
	if v.Total != nil {
		total = *v.Total
	} else {
		// A server that sent every author: the page is cut here.
		total = len(v.Authors)
		rows = pageOf(v.Authors, int(a.Page), int(a.Limit))
	}
	out := make([]AuthorBrief, 0, len(rows))
	for _, au := range rows {
		out = append(out, AuthorBrief(au))
	}
	return pageResult(d, "authors", out, total, int(a.Page), int(a.Limit)), nil
}

// GetAuthor is get_author.
func GetAuthor(ctx context.Context, d *Deps, a toolargs.GetAuthor) (*mcp.CallToolResult, error) {
	params := &abs.GetAuthorParams{}
	if a.IncludeItems {
		params.Include = ptrOf("items,series")
	}
	body, res := d.get(ctx, "author "+a.AuthorID, func(ctx context.Context) (*http.Response, error) {
		return d.API.GetAuthor(ctx, a.AuthorID, params)
	})
	if res != nil {
		return res, nil
	}
	if full(a.Detail) {
		return rawResult(body), nil
	}
	var au struct {
		ID           string    `json:"id"`
		Name         string    `json:"name"`
		Description  string    `json:"description"`
		ASIN         string    `json:"asin"`
		LibraryID    string    `json:"libraryId"`
		AddedAt      int64     `json:"addedAt"`
		LibraryItems []absItem `json:"libraryItems"`
		Series       []struct {
			ID    string    `json:"id"`
			Name  string    `json:"name"`
			Items []absItem `json:"items"`
		} `json:"series"`
	}
	if res := decode(body, &au); res != nil {
		return res, nil
	}
	out := map[string]any{"id": au.ID, "name": au.Name, "library_id": au.LibraryID}
	if a.LibraryID != nil && au.LibraryID != "" && au.LibraryID != *a.LibraryID {
		// An author belongs to one library: none of its books are in another.
		au.LibraryItems, au.Series = nil, nil
		out["note"] = "This author belongs to library " + au.LibraryID + ", so it has no books in library " + *a.LibraryID + "."
	}
	if desc, n := collapse(au.Description, DescriptionLimit); desc != "" {
		out["description"] = desc
		if n > 0 {
			out["description_length"] = n
		}
	}
	if a.IncludeItems {
		items := make([]ItemBrief, 0, len(au.LibraryItems))
		for i := range au.LibraryItems {
			b := brief(&au.LibraryItems[i], nil)
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
		cuts := map[string]Cut{}
		books := "list_library_items with filter_group authors, filter_value " + au.ID + " (paged)"
		d.fitLists(out, map[string]string{"books": books, "series": books}, cuts)
		if len(cuts) > 0 {
			out["cut"] = cuts
		}
	}
	return jsonResult(out), nil
}

// ListTags is list_tags.
func ListTags(ctx context.Context, d *Deps, a toolargs.ListTags) (*mcp.CallToolResult, error) {
	body, res := d.get(ctx, "the tag list", func(ctx context.Context) (*http.Response, error) { return d.API.ListTags(ctx) })
	if res != nil {
		return res, nil
	}
	var v struct {
		Tags []string `json:"tags"`
	}
	if res := decode(body, &v); res != nil {
		return res, nil
	}
	return pageResult(d, "tags", pageOf(v.Tags, int(a.Page), int(a.Limit)), len(v.Tags), int(a.Page), int(a.Limit)), nil
}

// ListGenres is list_genres.
func ListGenres(ctx context.Context, d *Deps, a toolargs.ListGenres) (*mcp.CallToolResult, error) {
	body, res := d.get(ctx, "the genre list", func(ctx context.Context) (*http.Response, error) { return d.API.ListGenres(ctx) })
	if res != nil {
		return res, nil
	}
	var v struct {
		Genres []string `json:"genres"`
	}
	if res := decode(body, &v); res != nil {
		return res, nil
	}
	return pageResult(d, "genres", pageOf(v.Genres, int(a.Page), int(a.Limit)), len(v.Genres), int(a.Page), int(a.Limit)), nil
}

// GetServerStatus is get_server_status.
func GetServerStatus(ctx context.Context, d *Deps, a toolargs.GetServerStatus) (*mcp.CallToolResult, error) {
	body, res := d.get(ctx, "the server status", func(ctx context.Context) (*http.Response, error) { return d.API.GetServerStatus(ctx) })
	if res != nil {
		return res, nil
	}
	var s struct {
		App           string   `json:"app"`
		ServerVersion string   `json:"serverVersion"`
		IsInit        bool     `json:"isInit"`
		Language      string   `json:"language"`
		AuthMethods   []string `json:"authMethods"`
	}
	if res := decode(body, &s); res != nil {
		return res, nil
	}
	out := map[string]any{"reachable": true, "url": d.BaseURL, "app": s.App, "server_version": s.ServerVersion,
		"initialized": s.IsInit, "auth_methods": s.AuthMethods, "api_key_configured": d.HasKey,
		"written_for": versions.Spec}
	// What this server's version lacks of what the tools use (the
	// x-abs-since gates of the spec).
	if l := lacks(s.ServerVersion); len(l) > 0 {
		out["lacks"] = l
		out["note"] = fmt.Sprintf("Audiobookshelf %s is older than some routes the tools use (listed in lacks, each with the release it came in); update the server to %s for all of them.", s.ServerVersion, versions.Spec)
	}
	return jsonResult(out), nil
}

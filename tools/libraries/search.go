package libraries

import (
	"context"
	"fmt"
	"net/http"
	"sort"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/compact"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// orderedSeries is how many series hits of a search get their books in
// series order, and authorsWithBooks how many author hits get their books
// (the first authorBooks of each, by title).
const (
	orderedSeries    = 3
	authorsWithBooks = 3
	authorBooks      = 25
)

// SearchLibrary is search_library.
func SearchLibrary(ctx context.Context, d *kit.Deps, a toolargs.SearchLibrary) (*mcp.CallToolResult, error) {
	params := &abs.SearchLibraryParams{Q: a.Q, Limit: kit.Ptr(int(a.Limit))}
	body, err := d.Get(ctx, "library "+a.LibraryID, func(ctx context.Context) (*http.Response, error) {
		return d.API.SearchLibrary(ctx, a.LibraryID, params)
	})
	if err != nil {
		return nil, err
	}
	if result.Full(a.Detail) {
		return result.RawResult(body)
	}
	var v absdata.SearchResults
	if err := kit.Decode(body, &v); err != nil {
		return nil, err
	}
	type itemHit struct {
		compact.ItemBrief
		Matched string `json:"matched,omitempty"`
	}
	out := map[string]any{}
	var items []itemHit
	for _, h := range append(v.Book, v.Podcast...) {
		items = append(items, itemHit{ItemBrief: compact.Brief(&h.LibraryItem, nil), Matched: h.MatchKey})
	}
	out["items"] = nonNil(items)
	type seriesHit struct {
		ID      string   `json:"id"`
		Name    string   `json:"name"`
		Books   []string `json:"book_ids,omitempty"`
		InOrder bool     `json:"in_series_order,omitempty"`
	}
	var series []seriesHit
	for _, s := range v.Series {
		h := seriesHit{ID: s.Series.ID, Name: s.Series.Name}
		for _, b := range s.Books {
			h.Books = append(h.Books, b.ID)
		}
		series = append(series, h)
	}
	// Audiobookshelf lists a series' books in no order, and without their
	// sequence: the first orderedSeries hits get theirs in series order
	// (the library's items filtered to each, all at the same time).
	ordered := min(len(series), orderedSeries)
	kit.EachLimit(ordered, orderedSeries, func(i int) {
		books, total, err := seriesBooks(ctx, d, a.LibraryID, series[i].ID, SeriesBooksInOrder)
		if err != nil || total != len(books) || len(books) < len(series[i].Books) {
			return // left as Audiobookshelf sent it
		}
		ids := make([]string, len(books))
		for j, b := range books {
			ids[j] = b.ID
		}
		series[i].Books = ids
		series[i].InOrder = true
	})
	if len(series) > 0 {
		out["series"] = series
	}
	if len(v.Authors) > 0 {
		// Audiobookshelf's own three fields, as they were named there; the
		// first authorsWithBooks hits with their books (the library's items
		// filtered to each author, by title, all at the same time).
		type author struct {
			ID        string       `json:"id"`
			Name      string       `json:"name"`
			NumBooks  int          `json:"numBooks"`
			Books     []seriesBook `json:"books,omitempty"`
			BooksMore int          `json:"books_more,omitempty"`
		}
		authors := make([]author, 0, len(v.Authors))
		for _, au := range v.Authors {
			authors = append(authors, author{ID: au.ID, Name: au.Name, NumBooks: au.NumBooks})
		}
		kit.EachLimit(min(len(authors), authorsWithBooks), authorsWithBooks, func(i int) {
			books, total, err := filteredBooks(ctx, d, a.LibraryID, "authors", authors[i].ID, "title", authorBooks)
			if err != nil {
				return // the author as Audiobookshelf sent it
			}
			authors[i].Books, authors[i].BooksMore = books, max(total-len(books), 0)
		})
		out["authors"] = authors
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
	cuts := map[string]result.Cut{}
	rest := map[string]string{}
	for k := range out {
		rest[k] = "a more precise q, or a smaller limit"
	}
	result.FitLists(d, out, rest, cuts)
	if len(cuts) > 0 {
		out["cut"] = cuts
	}
	return result.JSONResult(out)
}

// shelfEntity is one entity of a shelf of type kind in compact form: nil
// for an episode shelf's entry that names no episode, an error for one
// that cannot be read.
func shelfEntity(kind string, e absdata.RawValue) (any, error) {
	switch kind {
	case "book", "podcast":
		var it absdata.Item
		if err := absdata.Unmarshal(e, &it); err != nil {
			return nil, err
		}
		return compact.Brief(&it, nil), nil
	case "episode":
		var it absdata.Item
		if err := absdata.Unmarshal(e, &it); err != nil {
			return nil, err
		}
		if it.RecentEpisode == nil {
			return nil, nil
		}
		return compact.Episode(it.RecentEpisode, it.Media.Metadata.Title.Value), nil
	case "series":
		var se absdata.Series
		if err := absdata.Unmarshal(e, &se); err != nil {
			return nil, err
		}
		ids := make([]string, 0, len(se.Books))
		for _, b := range se.Books {
			ids = append(ids, b.ID)
		}
		return map[string]any{"id": se.ID, "name": se.Name, "book_ids": ids}, nil
	case "authors":
		var au absdata.Author
		if err := absdata.Unmarshal(e, &au); err != nil {
			return nil, err
		}
		return map[string]any{"id": au.ID, "name": au.Name, "num_books": au.NumBooks}, nil
	}
	var x absdata.Ref
	if err := absdata.Unmarshal(e, &x); err != nil {
		return nil, err
	}
	return x, nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// GetPersonalizedShelves is get_personalized_shelves.
func GetPersonalizedShelves(ctx context.Context, d *kit.Deps, a toolargs.GetPersonalizedShelves) (*mcp.CallToolResult, error) {
	params := &abs.GetPersonalizedShelvesParams{Limit: kit.Ptr(int(a.Limit))}
	body, err := d.Get(ctx, "library "+a.LibraryID, func(ctx context.Context) (*http.Response, error) {
		return d.API.GetPersonalizedShelves(ctx, a.LibraryID, params)
	})
	if err != nil {
		return nil, err
	}
	if result.Full(a.Detail) {
		return result.RawResult(body)
	}
	var shelves []absdata.Shelf
	if err := kit.Decode(body, &shelves); err != nil {
		return nil, err
	}
	type shelf struct {
		ID    string `json:"id"`
		Label string `json:"label"`
		Type  string `json:"type"`
		Total int    `json:"total,omitempty"`
		More  string `json:"more,omitempty"`
		// Unread says how many entities of the shelf Audiobookshelf sent
		// in a shape that could not be read, and why: left out.
		Unread   string `json:"unread,omitempty"`
		Entities []any  `json:"entities"`
	}
	out := make([]shelf, 0, len(shelves))
	for _, s := range shelves {
		sh := shelf{ID: s.ID, Label: s.Label, Type: s.Type, Total: s.Total, Entities: []any{}}
		unread, why := 0, ""
		for _, e := range s.Entities {
			ent, err := shelfEntity(s.Type, e)
			if err != nil {
				if unread++; why == "" {
					why = kit.Clip(err.Error(), 120)
				}
				continue
			}
			if ent != nil {
				sh.Entities = append(sh.Entities, ent)
			}
		}
		if unread > 0 {
			sh.Unread = fmt.Sprintf("%d entities of this shelf could not be read and are left out (%s); detail full shows the shelf as Audiobookshelf sent it", unread, why)
		}
		out = append(out, sh)
	}
	// Shelves of limit 100 can pass the budget together: each is then cut
	// to the same number of entries, the most that fit.
	sizes := make([][]int, len(out))
	longest := 0
	for i := range out {
		for _, e := range out[i].Entities {
			b, _ := result.Marshal(e)
			sizes[i] = append(sizes[i], len(b)+1)
		}
		longest = max(longest, len(sizes[i]))
	}
	cost := func(c int) int {
		n := 0
		for i := range sizes {
			n += 200 + len(out[i].Label) + len(out[i].Unread)
			for j := 0; j < min(c, len(sizes[i])); j++ {
				n += sizes[i][j]
			}
		}
		return n
	}
	if cost(longest) > result.Room(d) {
		c := max(sort.Search(longest+1, func(c int) bool { return cost(c) > result.Room(d) })-1, 0)
		for i := range out {
			if n := len(out[i].Entities); n > c {
				out[i].Entities = out[i].Entities[:c]
				out[i].More = fmt.Sprintf("+%d more: cut to fit the result budget; a smaller limit shows fewer on every shelf, list_library_items pages the library", n-c)
			}
		}
	}
	return result.JSONResult(map[string]any{"shelves": out})
}

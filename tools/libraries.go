package tools

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
)

func full(detail string) bool { return detail == "full" }

func ptrOf[T any](v T) *T { return &v }

// LibraryBrief is a library in a list.
type LibraryBrief struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	MediaType string `json:"media_type"`
	Folders   int    `json:"folders,omitempty"`
}

type absLibrary struct {
	ID           string            `json:"id"`
	Name         string            `json:"name"`
	MediaType    string            `json:"mediaType"`
	Provider     string            `json:"provider"`
	Folders      []json.RawMessage `json:"folders"`
	DisplayOrder int               `json:"displayOrder"`
	Settings     json.RawMessage   `json:"settings"`
	CreatedAt    int64             `json:"createdAt"`
	LastUpdate   int64             `json:"lastUpdate"`
}

// ListLibraries is list_libraries.
func ListLibraries(ctx context.Context, d *Deps, a toolargs.ListLibraries) (*mcp.CallToolResult, error) {
	body, err := d.get(ctx, "the library list", func(ctx context.Context) (*http.Response, error) {
		return d.API.ListLibraries(ctx)
	})
	if err != nil {
		return nil, err
	}
	if full(a.Detail) {
		return rawResult(body)
	}
	var v struct {
		Libraries []absLibrary `json:"libraries"`
	}
	if err := decode(body, &v); err != nil {
		return nil, err
	}
	out := make([]LibraryBrief, 0, len(v.Libraries))
	for _, l := range v.Libraries {
		out = append(out, LibraryBrief{ID: l.ID, Name: l.Name, MediaType: l.MediaType, Folders: len(l.Folders)})
	}
	return jsonResult(map[string]any{"libraries": out})
}

// GetLibrary is get_library.
func GetLibrary(ctx context.Context, d *Deps, a toolargs.GetLibrary) (*mcp.CallToolResult, error) {
	body, err := d.get(ctx, "library "+a.LibraryID, func(ctx context.Context) (*http.Response, error) {
		return d.API.GetLibrary(ctx, a.LibraryID)
	})
	if err != nil {
		return nil, err
	}
	if full(a.Detail) {
		return rawResult(body)
	}
	var l absLibrary
	if err := decode(body, &l); err != nil {
		return nil, err
	}
	var folders []struct {
		ID       string `json:"id"`
		FullPath string `json:"fullPath"`
	}
	for _, f := range l.Folders {
		var x struct {
			ID       string `json:"id"`
			FullPath string `json:"fullPath"`
		}
		if unmarshal(f, &x) == nil {
			folders = append(folders, x)
		}
	}
	out := map[string]any{"id": l.ID, "name": l.Name, "media_type": l.MediaType, "provider": l.Provider,
		"folders": folders, "created": date(l.CreatedAt)}
	if len(l.Settings) > 0 {
		out["settings"] = l.Settings
	}
	return jsonResult(out)
}

// GetLibraryStats is get_library_stats.
func GetLibraryStats(ctx context.Context, d *Deps, a toolargs.GetLibraryStats) (*mcp.CallToolResult, error) {
	body, err := d.get(ctx, "library "+a.LibraryID, func(ctx context.Context) (*http.Response, error) {
		return d.API.GetLibraryStats(ctx, a.LibraryID)
	})
	if err != nil {
		return nil, err
	}
	// Audiobookshelf's own object, but for genresWithCount, which holds
	// every genre of the library (LibraryController.stats): it shows the
	// first StatsGenresCap, most used first, and says where the rest is.
	var v map[string]json.RawMessage
	if err := decode(body, &v); err != nil {
		return nil, err
	}
	var genres []json.RawMessage
	if raw, ok := v["genresWithCount"]; !ok || unmarshal(raw, &genres) != nil || len(genres) <= StatsGenresCap {
		return rawResult(body)
	}
	cuts := map[string]Cut{}
	out := map[string]any{}
	for k, raw := range v {
		out[k] = raw
	}
	rest := map[string]string{"genresWithCount": "list_genres (paged) names every genre; list_library_items with filter_group genres gives one genre's books and their total"}
	out["genresWithCount"] = firstOf(genres, StatsGenresCap, rest["genresWithCount"], cuts, "genresWithCount")
	d.fitLists(out, rest, cuts)
	out["cut"] = cuts
	return jsonResult(out)
}

// StatsGenresCap is how many genres get_library_stats shows with their
// counts.
const StatsGenresCap = 100

// GetLibraryFilterData is get_library_filter_data.
func GetLibraryFilterData(ctx context.Context, d *Deps, a toolargs.GetLibraryFilterData) (*mcp.CallToolResult, error) {
	body, err := d.get(ctx, "library "+a.LibraryID, func(ctx context.Context) (*http.Response, error) {
		return d.API.GetLibraryFilterData(ctx, a.LibraryID)
	})
	if err != nil {
		return nil, err
	}
	// Every value of the library, in lists that grow with it (a household
	// library has thousands of authors and tags): each shows its first
	// FilterValuesCap values, says how many more and which tool pages them.
	var v map[string]json.RawMessage
	if err := decode(body, &v); err != nil {
		return nil, err
	}
	out := map[string]any{}
	cuts := map[string]Cut{}
	rest := map[string]string{}
	for k, raw := range v {
		var list []json.RawMessage
		if len(raw) == 0 || raw[0] != '[' || unmarshal(raw, &list) != nil {
			out[k] = raw
			continue
		}
		rest[k] = filterRest[k]
		out[k] = firstOf(list, FilterValuesCap, rest[k], cuts, k)
	}
	d.fitLists(out, rest, cuts)
	if len(cuts) > 0 {
		out["cut"] = cuts
	}
	return jsonResult(out)
}

// FilterValuesCap is how many values of each kind get_library_filter_data
// shows.
const FilterValuesCap = 100

// filterRest says where the rest of each kind of filter value is.
var filterRest = map[string]string{
	"authors":    "list_authors (paged)",
	"series":     "list_series (paged)",
	"tags":       "list_tags (paged)",
	"genres":     "list_genres (paged)",
	"narrators":  "search_library (q matches narrators)",
	"publishers": "list_library_items with filter_group publishers and a name",
	"languages":  "list_library_items with filter_group languages and a name",
}

// itemSorts maps list_library_items' sort names to Audiobookshelf's keys
// (libraryItemsBookFilters.getOrder).
var itemSorts = map[string]string{
	"title": "media.metadata.title", "author": "media.metadata.authorName", "author_last_first": "media.metadata.authorNameLF",
	"published_year": "media.metadata.publishedYear", "duration": "media.duration", "added_at": "addedAt",
	"size": "size", "sequence": "sequence", "progress": "progress",
}

// seriesSorts maps list_series' sort names (seriesFilters.getFilteredSeries).
var seriesSorts = map[string]string{
	"name": "name", "num_books": "numBooks", "total_duration": "totalDuration", "added_at": "addedAt",
	"last_book_added": "lastBookAdded", "last_book_updated": "lastBookUpdated",
}

// standaloneFilters take no value (libraryFilters.getFilteredLibraryItems
// treats a group outside its search groups as the whole filter).
var standaloneFilters = map[string]bool{"abridged": true, "explicit": true, "issues": true, "feed-open": true}

// EncodeFilter builds Audiobookshelf's filter parameter: group, or
// group.base64(value) for a group that takes a value (libraryFilters.decode
// reverses it with decodeURIComponent then base64).
func EncodeFilter(group string, value *string) (string, error) {
	if group == "" {
		if value != nil {
			return "", Errorf(NotSent, `argument "filter_value": needs filter_group.`)
		}
		return "", nil
	}
	if standaloneFilters[group] {
		if value != nil {
			return "", Errorf(NotSent, `argument "filter_value": filter_group %q takes no value; leave filter_value out.`, group)
		}
		return group, nil
	}
	if value == nil || *value == "" {
		return "", Errorf(NotSent, `argument "filter_value": filter_group %q needs a value (get_library_filter_data lists them).`, group)
	}
	return group + "." + base64.StdEncoding.EncodeToString([]byte(*value)), nil
}

// ListLibraryItems is list_library_items.
func ListLibraryItems(ctx context.Context, d *Deps, a toolargs.ListLibraryItems) (*mcp.CallToolResult, error) {
	group := ""
	if a.FilterGroup != nil {
		group = *a.FilterGroup
	}
	filter, err := EncodeFilter(group, a.FilterValue)
	if err != nil {
		return nil, err
	}
	params := &abs.ListLibraryItemsParams{Limit: ptrOf(int(a.Limit)), Page: ptrOf(int(a.Page))}
	if a.Sort != nil {
		params.Sort = ptrOf(itemSorts[*a.Sort])
	}
	if a.Descending {
		params.Desc = ptrOf(abs.ListLibraryItemsParamsDescN1)
	}
	if filter != "" {
		params.Filter = &filter
	}
	if a.CollapseSeries {
		params.Collapseseries = ptrOf(abs.ListLibraryItemsParamsCollapseseriesN1)
	}
	// The page carries no progress of the user (its include knows only
	// rssfeed, share and, for podcasts, numEpisodesIncomplete:
	// LibraryController.getLibraryItems, LibraryItem.getByFilterAndSort), so
	// the compact form asks for the user's progress at the same time.
	var progress *pending[map[string]*absProgress]
	if !full(a.Detail) {
		progress = alongside(ctx, d.bookProgress)
	}
	body, err := d.get(ctx, "library "+a.LibraryID, func(ctx context.Context) (*http.Response, error) {
		return d.API.ListLibraryItems(ctx, a.LibraryID, params)
	})
	if err != nil {
		if progress != nil {
			progress.abandon()
		}
		return nil, err
	}
	if full(a.Detail) {
		return rawResult(body)
	}
	var v struct {
		Results []absItem `json:"results"`
		Total   *int      `json:"total"`
	}
	if err := decode(body, &v); err != nil {
		progress.abandon()
		return nil, err
	}
	byItem := progress.wait()
	out := make([]ItemBrief, 0, len(v.Results))
	for i := range v.Results {
		out = append(out, brief(&v.Results[i], byItem))
	}
	total := len(out)
	if v.Total != nil {
		total = *v.Total
	}
	return pageResult(d, "results", out, total, int(a.Page), int(a.Limit))
}

package libraries

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/compact"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// LibraryBrief is a library in a list.
type LibraryBrief struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	MediaType string `json:"media_type"`
	Folders   int    `json:"folders,omitempty"`
}

// ListLibraries is list_libraries.
func ListLibraries(ctx context.Context, d *kit.Deps, a toolargs.ListLibraries) (*mcp.CallToolResult, error) {
	body, err := d.Get(ctx, "the library list", func(ctx context.Context) (*http.Response, error) {
		return d.API.ListLibraries(ctx)
	})
	if err != nil {
		return nil, err
	}
	if result.Full(a.Detail) {
		return result.RawResult(body)
	}
	var v struct {
		Libraries []absdata.Library `json:"libraries"`
	}
	if err := kit.Decode(body, &v); err != nil {
		return nil, err
	}
	out := make([]LibraryBrief, 0, len(v.Libraries))
	for _, l := range v.Libraries {
		out = append(out, LibraryBrief{ID: l.ID, Name: l.Name, MediaType: l.MediaType, Folders: len(l.Folders)})
	}
	return result.JSONResult(map[string]any{"libraries": out})
}

// GetLibrary is get_library.
func GetLibrary(ctx context.Context, d *kit.Deps, a toolargs.GetLibrary) (*mcp.CallToolResult, error) {
	body, l, err := d.ReadLibrary(ctx, a.LibraryID)
	if err != nil {
		return nil, err
	}
	if result.Full(a.Detail) {
		return result.RawResult(body)
	}
	type folder struct {
		ID       string `json:"id"`
		FullPath string `json:"fullPath"`
	}
	var folders []folder
	for _, f := range l.Folders {
		folders = append(folders, folder(f))
	}
	out := map[string]any{"id": l.ID, "name": l.Name, "media_type": l.MediaType, "provider": l.Provider,
		"folders": folders, "created": compact.Date(l.CreatedAt)}
	if len(l.Settings) > 0 {
		out["settings"] = l.Settings
	}
	return result.JSONResult(out)
}

// GetLibraryStats is get_library_stats.
func GetLibraryStats(ctx context.Context, d *kit.Deps, a toolargs.GetLibraryStats) (*mcp.CallToolResult, error) {
	body, err := d.Get(ctx, "library "+a.LibraryID, func(ctx context.Context) (*http.Response, error) {
		return d.API.GetLibraryStats(ctx, a.LibraryID)
	})
	if err != nil {
		return nil, err
	}
	// Audiobookshelf's own object, but for genresWithCount, which holds
	// every genre of the library (LibraryController.stats): it shows the
	// first StatsGenresCap, most used first, and says where the rest is.
	var v map[string]json.RawMessage
	if err := kit.Decode(body, &v); err != nil {
		return nil, err
	}
	var genres []json.RawMessage
	if raw, ok := v["genresWithCount"]; !ok || absdata.Unmarshal(raw, &genres) != nil || len(genres) <= StatsGenresCap {
		return result.RawResult(body)
	}
	cuts := map[string]result.Cut{}
	out := map[string]any{}
	for k, raw := range v {
		out[k] = raw
	}
	rest := map[string]string{"genresWithCount": "list_genres (paged) names every genre; list_library_items with filter_group genres gives one genre's books and their total"}
	out["genresWithCount"] = result.FirstOf(genres, StatsGenresCap, rest["genresWithCount"], cuts, "genresWithCount")
	result.FitLists(d, out, rest, cuts)
	out["cut"] = cuts
	return result.JSONResult(out)
}

// StatsGenresCap is how many genres get_library_stats shows with their
// counts.
const StatsGenresCap = 100

// GetLibraryFilterData is get_library_filter_data.
func GetLibraryFilterData(ctx context.Context, d *kit.Deps, a toolargs.GetLibraryFilterData) (*mcp.CallToolResult, error) {
	body, err := d.Get(ctx, "library "+a.LibraryID, func(ctx context.Context) (*http.Response, error) {
		return d.API.GetLibraryFilterData(ctx, a.LibraryID)
	})
	if err != nil {
		return nil, err
	}
	// Every value of the library, in lists that grow with it (a household
	// library has thousands of authors and tags): each shows its first
	// FilterValuesCap values, says how many more and which tool pages them.
	var v map[string]json.RawMessage
	if err := kit.Decode(body, &v); err != nil {
		return nil, err
	}
	out := map[string]any{}
	cuts := map[string]result.Cut{}
	rest := map[string]string{}
	for k, raw := range v {
		var list []json.RawMessage
		if len(raw) == 0 || raw[0] != '[' || absdata.Unmarshal(raw, &list) != nil {
			out[k] = raw
			continue
		}
		rest[k] = filterRest[k]
		out[k] = result.FirstOf(list, FilterValuesCap, rest[k], cuts, k)
	}
	result.FitLists(d, out, rest, cuts)
	if len(cuts) > 0 {
		out["cut"] = cuts
	}
	return result.JSONResult(out)
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

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

// itemSorts maps list_library_items' sort names to Audiobookshelf's keys
// (libraryItemsBookFilters.getOrder).
var itemSorts = map[string]string{
	"title": "media.metadata.title", "author": "media.metadata.authorName", "author_last_first": "media.metadata.authorNameLF",
	"published_year": "media.metadata.publishedYear", "duration": "media.duration", "added_at": "addedAt",
	"size": "size", "sequence": "sequence", "progress": "progress",
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
			return "", kit.Errorf(kit.NotSent, `argument "filter_value": needs filter_group.`)
		}
		return "", nil
	}
	if standaloneFilters[group] {
		if value != nil {
			return "", kit.Errorf(kit.NotSent, `argument "filter_value": filter_group %q takes no value; leave filter_value out.`, group)
		}
		return group, nil
	}
	if value == nil || *value == "" {
		return "", kit.Errorf(kit.NotSent, `argument "filter_value": filter_group %q needs a value (get_library_filter_data lists them).`, group)
	}
	return kit.Filter(group, *value), nil
}

// ListLibraryItems is list_library_items.
func ListLibraryItems(ctx context.Context, d *kit.Deps, a toolargs.ListLibraryItems) (*mcp.CallToolResult, error) {
	group := ""
	if a.FilterGroup != nil {
		group = *a.FilterGroup
	}
	filter, err := EncodeFilter(group, a.FilterValue)
	if err != nil {
		return nil, err
	}
	params := &abs.ListLibraryItemsParams{Limit: kit.Ptr(int(a.Limit)), Page: kit.Ptr(int(a.Page))}
	if a.Sort != nil {
		params.Sort = kit.Ptr(itemSorts[*a.Sort])
	}
	if a.Descending {
		params.Desc = kit.Ptr(abs.ListLibraryItemsParamsDescN1)
	}
	if filter != "" {
		params.Filter = &filter
	}
	if a.CollapseSeries {
		params.Collapseseries = kit.Ptr(abs.ListLibraryItemsParamsCollapseseriesN1)
	}
	// The page carries no progress of the user (its include knows only
	// rssfeed, share and, for podcasts, numEpisodesIncomplete:
	// LibraryController.getLibraryItems, LibraryItem.getByFilterAndSort), so
	// the compact form asks for the user's progress at the same time.
	var progress *kit.Pending[map[string]*absdata.Progress]
	if !result.Full(a.Detail) {
		progress = kit.Alongside(ctx, d.BookProgress)
	}
	body, err := d.Get(ctx, "library "+a.LibraryID, func(ctx context.Context) (*http.Response, error) {
		return d.API.ListLibraryItems(ctx, a.LibraryID, params)
	})
	if err != nil {
		if progress != nil {
			progress.Abandon()
		}
		return nil, err
	}
	if result.Full(a.Detail) {
		return result.RawResult(body)
	}
	var v absdata.Listing[absdata.Item]
	if err := kit.Decode(body, &v); err != nil {
		progress.Abandon()
		return nil, err
	}
	byItem := progress.Wait()
	rows, total := v.Rows()
	return result.Page(d, "results", result.PagingOf(a.Page, a.Limit), rows, total, func(it *absdata.Item) compact.ItemBrief {
		return compact.Brief(it, byItem)
	})
}

package libraries

import (
	"context"
	"net/http"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ListTags is list_tags.
func ListTags(ctx context.Context, d *kit.Deps, a toolargs.ListTags) (*mcp.CallToolResult, error) {
	body, err := d.Get(ctx, "the tag list", func(ctx context.Context) (*http.Response, error) { return d.API.ListTags(ctx) })
	if err != nil {
		return nil, err
	}
	var v struct {
		Tags []string `json:"tags"`
	}
	if err := kit.Decode(body, &v); err != nil {
		return nil, err
	}
	return result.Page(d, "tags", result.PagingOf(a.Page, a.Limit), v.Tags, nil, result.AsIs)
}

// ListGenres is list_genres.
func ListGenres(ctx context.Context, d *kit.Deps, a toolargs.ListGenres) (*mcp.CallToolResult, error) {
	body, err := d.Get(ctx, "the genre list", func(ctx context.Context) (*http.Response, error) { return d.API.ListGenres(ctx) })
	if err != nil {
		return nil, err
	}
	var v struct {
		Genres []string `json:"genres"`
	}
	if err := kit.Decode(body, &v); err != nil {
		return nil, err
	}
	return result.Page(d, "genres", result.PagingOf(a.Page, a.Limit), v.Genres, nil, result.AsIs)
}

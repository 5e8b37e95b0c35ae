package podcasts

import (
	"context"
	"fmt"
	"net/http"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
)

// FeedTextLimit is how many characters of a feed's description a compact
// answer shows.
const FeedTextLimit = 500

// holds reports whether podcast p holds the feed episode e, matched as
// Audiobookshelf matches it: the same guid, or the same enclosure URL; id
// is its episode.
func holds(p *absdata.Item, e *absdata.FeedEpisode) (id string, ok bool) {
	for i := range p.Media.Episodes {
		ep := &p.Media.Episodes[i]
		if ep.GUID != nil && *ep.GUID != "" && e.GUID != nil && *ep.GUID == *e.GUID {
			return ep.ID, true
		}
		if ep.Enclosure != nil && ep.Enclosure.URL != "" && ep.Enclosure.URL == e.Enclosure.URL {
			return ep.ID, true
		}
	}
	return "", false
}

// podcastRefusal is the error for a 403 on a podcast route: it reads the
// user to name what they lack (only on this failure path).
func podcastRefusal(ctx context.Context, d *kit.Deps, r *kit.Response, what, needs string, mutating bool) error {
	if r.Status != http.StatusForbidden {
		return kit.StatusError(r, what, mutating)
	}
	_, u, err := d.ReadMe(ctx)
	if err == nil && u.Type != "admin" && u.Type != "root" && needs == "admin" {
		return &kit.Error{Text: fmt.Sprintf("Audiobookshelf refused %s (403 Forbidden): it lets only admin and root users subscribe to podcasts, read feeds and download episodes, and the user of this API key (%s) is of type %s. Use an API key of an admin user.", what, u.Username, u.Type), Outcome: kit.Unchanged, Status: r.Status}
	}
	if err == nil && needs == "delete" && !u.Can("delete") {
		return &kit.Error{Text: fmt.Sprintf("Audiobookshelf refused %s (403 Forbidden): deleting it needs the delete permission, which the user of this API key (%s) does not have. An admin can grant it under Settings → Users.", what, u.Username), Outcome: kit.Unchanged, Status: r.Status}
	}
	return &kit.Error{Text: fmt.Sprintf("Audiobookshelf refused %s (403 Forbidden): the user of this API key may not access this podcast's library.", what), Outcome: kit.Unchanged, Status: r.Status}
}

// podGet is get for the podcast routes: a 403 names the permission.
func podGet(ctx context.Context, d *kit.Deps, what, needs string, s kit.Sender) ([]byte, error) {
	r, err := d.Send(ctx, false, s)
	if err != nil {
		return nil, err
	}
	if r.Status/100 != 2 {
		return nil, podcastRefusal(ctx, d, r, what, needs, false)
	}
	return r.Body, nil
}

// podMutate is mutate for the podcast routes.
func podMutate(ctx context.Context, d *kit.Deps, what, needs string, s kit.Sender) ([]byte, error) {
	r, err := d.Send(ctx, true, s)
	if err != nil {
		return nil, err
	}
	if r.Status/100 != 2 {
		return nil, podcastRefusal(ctx, d, r, what, needs, true)
	}
	if err := d.CheckWrite(r, what); err != nil {
		return nil, err
	}
	return r.Body, nil
}

// getPodcast reads a podcast item as Audiobookshelf keeps it (its
// episodes with guid, enclosure and audio file).
func getPodcast(ctx context.Context, d *kit.Deps, id string) (*absdata.Item, error) {
	it, err := d.ReadItemRecord(ctx, id)
	if err != nil {
		return nil, err
	}
	if it.MediaType != "podcast" {
		return nil, kit.Errorf(kit.Unchanged, `argument "library_item_id": library item %s is a %s, not a podcast (list_library_items of a podcast library gives podcasts).`, id, it.MediaType)
	}
	return it, nil
}

// podcastFeed reads a podcast and its feed.
func podcastFeed(ctx context.Context, d *kit.Deps, id string) (*absdata.Item, *feed, error) {
	it, err := getPodcast(ctx, d, id)
	if err != nil {
		return nil, nil, err
	}
	feedURL := it.Media.Metadata.FeedURL.Value
	if feedURL == "" {
		return nil, nil, kit.Errorf(kit.Unchanged, "Podcast %s has no feed URL in Audiobookshelf, so there is no feed to check or download from.", id)
	}
	f, err := readFeed(ctx, d, feedURL)
	if err != nil {
		return nil, nil, err
	}
	return it, f, nil
}

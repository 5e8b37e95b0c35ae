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

// podcastRefusal is the error for a 403 on a podcast route. The tool's
// permission (tools.yaml) was checked before it ran (kit.Deps.Permit), so a
// 403 means the user lost it since (per person a key's check is believed
// for a minute), or may not see the library: the user is read to say which
// (only on this failure path).
func podcastRefusal(ctx context.Context, d *kit.Deps, r *kit.Response, what string, mutating bool) error {
	if r.Status != http.StatusForbidden {
		return kit.StatusError(r, what, mutating)
	}
	refused := func(format string, a ...any) error {
		return &kit.Error{Text: fmt.Sprintf(format, a...), Outcome: kit.Unchanged, Status: r.Status}
	}
	_, u, err := d.ReadMe(ctx)
	if need := kit.NeededBy(ctx); err == nil && !kit.PersonOf(u).Has(need) {
		if need.ForAdmins() {
			return refused("Audiobookshelf refused %s (403 Forbidden): it lets only admin and root users do this, and the user of this API key (%s) is of type %s. Use an API key of an admin user.", what, u.Username, u.Type)
		}
		return refused("Audiobookshelf refused %s (403 Forbidden): it needs Audiobookshelf's %s permission (%s), which the user of this API key (%s) does not have. An admin can grant it under Settings → Users.", what, need, need.Field(), u.Username)
	}
	return refused("Audiobookshelf refused %s (403 Forbidden): the user of this API key may not access this podcast's library.", what)
}

// podGet is get for the podcast routes: a 403 names the permission.
func podGet(ctx context.Context, d *kit.Deps, what string, s kit.Sender) ([]byte, error) {
	r, err := d.Send(ctx, false, s)
	if err != nil {
		return nil, err
	}
	if r.Status/100 != 2 {
		return nil, podcastRefusal(ctx, d, r, what, false)
	}
	return r.Body, nil
}

// podMutate is mutate for the podcast routes.
func podMutate(ctx context.Context, d *kit.Deps, what string, s kit.Sender) ([]byte, error) {
	r, err := d.Send(ctx, true, s)
	if err != nil {
		return nil, err
	}
	if r.Status/100 != 2 {
		return nil, podcastRefusal(ctx, d, r, what, true)
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

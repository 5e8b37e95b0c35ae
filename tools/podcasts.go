package tools

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/guard"
)

// The podcasts toolset: searching (iTunes, through Audiobookshelf), reading
// feeds as Audiobookshelf parses them, subscribing, finding and queueing the
// episodes a feed has that the library lacks, and deleting an episode.
//
// A feed episode has no Audiobookshelf id until it is downloaded, and its
// guid is free text (often a URL), so the tools name it by a key: "fe"
// and the first 16 hex digits of the SHA-256 of its guid, or of its
// enclosure URL when it has no guid. That is the same pair Audiobookshelf
// matches a feed episode with (PodcastEpisode.checkMatchesGuidOrEnclosureUrl),
// and the key is an id a model can pass back without quoting a URL.

// FeedTextLimit is how many characters of a feed's description a compact
// answer shows.
const FeedTextLimit = 500

// RecentlyAddedCap is how many of a podcast's most recently added
// episodes list_podcast_downloads shows.
const RecentlyAddedCap = 5

// ---------------------------------------------------------------- decoding

type podEpisode struct {
	ID        string  `json:"id"`
	Title     string  `json:"title"`
	GUID      *string `json:"guid"`
	Enclosure *struct {
		URL string `json:"url"`
	} `json:"enclosure"`
	PublishedAt int64 `json:"publishedAt"`
	AddedAt     int64 `json:"addedAt"`
	AudioFile   *struct {
		Ino      string  `json:"ino"`
		Duration float64 `json:"duration"`
		Metadata struct {
			Path string `json:"path"`
			Size int64  `json:"size"`
		} `json:"metadata"`
	} `json:"audioFile"`
}

type podItem struct {
	ID           string `json:"id"`
	LibraryID    string `json:"libraryId"`
	MediaType    string `json:"mediaType"`
	Path         string `json:"path"`
	UpdatedAt    int64  `json:"updatedAt"`
	LibraryFiles []struct {
		Ino      string `json:"ino"`
		FileType string `json:"fileType"`
	} `json:"libraryFiles"`
	Media struct {
		Metadata struct {
			Title   string  `json:"title"`
			FeedURL *string `json:"feedUrl"`
		} `json:"metadata"`
		Episodes []podEpisode `json:"episodes"`
	} `json:"media"`
}

func (p *podItem) feedURL() string {
	if p.Media.Metadata.FeedURL == nil {
		return ""
	}
	return *p.Media.Metadata.FeedURL
}

// has reports whether the podcast holds the feed episode, matched as
// Audiobookshelf matches it: the same guid, or the same enclosure URL.
func (p *podItem) has(e *feedEpisode) (string, bool) {
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

type feedEpisode struct {
	Title           string  `json:"title"`
	PubDate         string  `json:"pubDate"`
	Season          string  `json:"season"`
	Episode         string  `json:"episode"`
	DurationSeconds float64 `json:"durationSeconds"`
	PublishedAt     int64   `json:"publishedAt"`
	GUID            *string `json:"guid"`
	Enclosure       struct {
		URL string `json:"url"`
	} `json:"enclosure"`
	raw json.RawMessage
}

// key names a feed episode for the tools (see the top of this file).
func (e *feedEpisode) key() string {
	src := e.Enclosure.URL
	if e.GUID != nil && *e.GUID != "" {
		src = *e.GUID
	}
	sum := sha256.Sum256([]byte(src))
	return "fe" + hex.EncodeToString(sum[:8])
}

type feedMetadata struct {
	Title            string   `json:"title"`
	Author           string   `json:"author"`
	Language         string   `json:"language"`
	Explicit         string   `json:"explicit"`
	Image            string   `json:"image"`
	Categories       []string `json:"categories"`
	FeedURL          string   `json:"feedUrl"`
	Description      string   `json:"description"`
	DescriptionPlain string   `json:"descriptionPlain"`
	Type             string   `json:"type"`
	Link             string   `json:"link"`
}

type feed struct {
	Metadata feedMetadata
	// Episodes newest first (by publishedAt; undated ones last, in feed
	// order).
	Episodes []*feedEpisode
}

// FeedEpisode is one episode of a feed in a compact answer.
type FeedEpisode struct {
	Key       string `json:"key"`
	Title     string `json:"title"`
	Published string `json:"published,omitempty"`
	DurationS int64  `json:"duration_s,omitempty"`
	Season    string `json:"season,omitempty"`
	Episode   string `json:"episode,omitempty"`
	// EpisodeID is the library's episode when the podcast has it.
	EpisodeID string `json:"episode_id,omitempty"`
}

func feedEpisodeBrief(e *feedEpisode) FeedEpisode {
	out := FeedEpisode{Key: e.key(), Title: e.Title, DurationS: seconds(e.DurationSeconds), Season: e.Season, Episode: e.Episode}
	if e.PublishedAt > 0 {
		out.Published = date(e.PublishedAt)
	}
	return out
}

// ---------------------------------------------------------------- reads

// podcastRefusal is the error for a 403 on a podcast route. The tool's
// permission (tools.yaml) was checked before it ran (Permit), so a 403 means
// the user lost it since (per person a key's check is believed for a
// minute), or may not see the library: the user is read to say which (only
// on this failure path).
func (d *Deps) podcastRefusal(ctx context.Context, r *response, what string, mutating bool) *mcp.CallToolResult {
	if r.Status != http.StatusForbidden {
		return statusError(r, what, mutating)
	}
	unchanged := " Nothing was changed."
	_, u, res := d.getMe(ctx)
	if need := neededBy(ctx); res == nil && !u.person().Has(need) {
		if need.ForAdmins() {
			return errorResult("Audiobookshelf refused %s (403 Forbidden): it lets only admin and root users do this, and the user of this API key (%s) is of type %s. Use an API key of an admin user.%s", what, u.Username, u.Type, unchanged)
		}
		return errorResult("Audiobookshelf refused %s (403 Forbidden): it needs Audiobookshelf's %s permission (%s), which the user of this API key (%s) does not have. An admin can grant it under Settings → Users.%s", what, need, need.Field(), u.Username, unchanged)
	}
	return errorResult("Audiobookshelf refused %s (403 Forbidden): the user of this API key may not access this podcast's library.%s", what, unchanged)
}

// person is u as a permission check reads it.
func (u *absUser) person() Person {
	var p struct {
		Update   bool `json:"update"`
		Delete   bool `json:"delete"`
		Download bool `json:"download"`
		Upload   bool `json:"upload"`
	}
	_ = unmarshal(u.Permissions, &p)
	return Person{UserID: u.ID, Username: u.Username, Type: u.Type,
		CanUpdate: p.Update, CanDelete: p.Delete, CanDownload: p.Download, CanUpload: p.Upload}
}

// podGet is get for the podcast routes: a 403 names the permission.
func (d *Deps) podGet(ctx context.Context, what string, s sender) ([]byte, *mcp.CallToolResult) {
	r, res := d.send(ctx, false, s)
	if res != nil {
		return nil, res
	}
	if r.Status/100 != 2 {
		return nil, d.podcastRefusal(ctx, r, what, false)
	}
	return r.Body, nil
}

// podMutate is mutate for the podcast routes.
func (d *Deps) podMutate(ctx context.Context, what string, s sender) ([]byte, *mcp.CallToolResult) {
	r, res := d.send(ctx, true, s)
	if res != nil {
		return nil, res
	}
	if r.Status/100 != 2 {
		return nil, d.podcastRefusal(ctx, r, what, true)
	}
	if res := d.checkWrite(r, what); res != nil {
		return nil, res
	}
	return r.Body, nil
}

// readFeed asks Audiobookshelf to fetch and parse a feed.
func (d *Deps) readFeed(ctx context.Context, feedURL string) (*feed, *mcp.CallToolResult) {
	body, res := d.podGet(ctx, "the feed "+feedURL, func(ctx context.Context) (*http.Response, error) {
		return d.API.GetPodcastFeed(ctx, abs.GetPodcastFeedJSONRequestBody{RssFeed: feedURL})
	})
	if res != nil {
		if strings.Contains(apptextOf(res), "404 Not Found") {
			return nil, errorResult("Audiobookshelf could not read a podcast feed at %s: the request failed or the answer was not an RSS feed with a channel and episodes (404 from POST /api/podcasts/feed). Check the URL; a feed on a private or loopback address is refused by Audiobookshelf's SSRF filter unless its SSRF_REQUEST_FILTER_WHITELIST names that host. Nothing was changed.", feedURL)
		}
		return nil, res
	}
	var v struct {
		Podcast struct {
			Metadata feedMetadata      `json:"metadata"`
			Episodes []json.RawMessage `json:"episodes"`
		} `json:"podcast"`
	}
	if res := decode(body, &v); res != nil {
		return nil, res
	}
	f := &feed{Metadata: v.Podcast.Metadata}
	for _, raw := range v.Podcast.Episodes {
		e := &feedEpisode{raw: raw}
		if err := unmarshal(raw, e); err != nil || e.Enclosure.URL == "" {
			continue
		}
		f.Episodes = append(f.Episodes, e)
	}
	sort.SliceStable(f.Episodes, func(i, j int) bool {
		a, b := f.Episodes[i].PublishedAt, f.Episodes[j].PublishedAt
		if (a > 0) != (b > 0) {
			return a > 0
		}
		return a > b
	})
	return f, nil
}

func apptextOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// getPodcast reads a podcast item (without expanded=1: its episodes with
// guid, enclosure and audio file, not every file's probe data).
func (d *Deps) getPodcast(ctx context.Context, id string) (*podItem, *mcp.CallToolResult) {
	body, res := d.get(ctx, "library item "+id, func(ctx context.Context) (*http.Response, error) {
		return d.API.GetLibraryItem(ctx, id, nil)
	})
	if res != nil {
		return nil, res
	}
	var it podItem
	if res := decode(body, &it); res != nil {
		return nil, res
	}
	if it.MediaType != "podcast" {
		return nil, errorResult(`argument "library_item_id": library item %s is a %s, not a podcast (list_library_items of a podcast library gives podcasts). Nothing was changed.`, id, it.MediaType)
	}
	return &it, nil
}

// podcastFeed reads a podcast and its feed.
func (d *Deps) podcastFeed(ctx context.Context, id string) (*podItem, *feed, *mcp.CallToolResult) {
	it, res := d.getPodcast(ctx, id)
	if res != nil {
		return nil, nil, res
	}
	if it.feedURL() == "" {
		return nil, nil, errorResult("Podcast %s has no feed URL in Audiobookshelf, so there is no feed to check or download from. Nothing was changed.", id)
	}
	f, res := d.readFeed(ctx, it.feedURL())
	if res != nil {
		return nil, nil, res
	}
	return it, f, nil
}

// ---------------------------------------------------------------- tools

// PodcastResult is one result of search_podcasts.
type PodcastResult struct {
	ITunesID int64  `json:"itunes_id,omitempty"`
	Title    string `json:"title"`
	Author   string `json:"author,omitempty"`
	FeedURL  string `json:"feed_url,omitempty"`
	Episodes int    `json:"episodes,omitempty"`
	Genres   string `json:"genres,omitempty"`
	Explicit bool   `json:"explicit,omitempty"`
}

// SearchPodcasts is search_podcasts.
func SearchPodcasts(ctx context.Context, d *Deps, a toolargs.SearchPodcasts) (*mcp.CallToolResult, error) {
	body, res := d.get(ctx, "the podcast search", func(ctx context.Context) (*http.Response, error) {
		return d.API.SearchPodcasts(ctx, &abs.SearchPodcastsParams{Term: a.Term})
	})
	if res != nil {
		return res, nil
	}
	var v []struct {
		ID         int64    `json:"id"`
		Title      string   `json:"title"`
		ArtistName string   `json:"artistName"`
		FeedURL    string   `json:"feedUrl"`
		TrackCount int      `json:"trackCount"`
		Genres     []string `json:"genres"`
		Explicit   bool     `json:"explicit"`
	}
	if res := decode(body, &v); res != nil {
		return res, nil
	}
	out := make([]PodcastResult, 0, len(v))
	for _, r := range v {
		g := r.Genres
		if len(g) > 3 {
			g = g[:3]
		}
		out = append(out, PodcastResult{ITunesID: r.ID, Title: r.Title, Author: r.ArtistName, FeedURL: r.FeedURL, Episodes: r.TrackCount, Genres: strings.Join(g, ", "), Explicit: r.Explicit})
	}
	var extra []field
	if len(out) == 0 {
		extra = append(extra, field{"note", "No results. Audiobookshelf asks iTunes and answers an empty list when it cannot reach it too (its server needs internet access); a feed URL known otherwise works with get_podcast_feed and create_podcast."})
	}
	return pageResult(d, "podcasts", pageOf(out, int(a.Page), int(a.Limit)), len(out), int(a.Page), int(a.Limit), extra...), nil
}

// GetPodcastFeed is get_podcast_feed.
func GetPodcastFeed(ctx context.Context, d *Deps, a toolargs.GetPodcastFeed) (*mcp.CallToolResult, error) {
	f, res := d.readFeed(ctx, a.FeedUrl)
	if res != nil {
		return res, nil
	}
	eps := make([]FeedEpisode, 0, len(f.Episodes))
	for _, e := range f.Episodes {
		eps = append(eps, feedEpisodeBrief(e))
	}
	m := f.Metadata
	desc := m.DescriptionPlain
	if desc == "" {
		desc = m.Description
	}
	desc, descLen := collapse(desc, FeedTextLimit)
	cats := m.Categories
	if len(cats) > TermsCap {
		cats = cats[:TermsCap]
	}
	return pageResult(d, "episodes", pageOf(eps, int(a.Page), int(a.Limit)), len(eps), int(a.Page), int(a.Limit),
		field{"title", m.Title}, field{"author", m.Author}, field{"feed_url", m.FeedURL}, field{"language", m.Language},
		field{"type", m.Type}, field{"categories", strings.Join(cats, ", ")},
		field{"description", desc}, field{"description_length", descLen}), nil
}

// CreatePodcast is create_podcast.
func CreatePodcast(ctx context.Context, d *Deps, a toolargs.CreatePodcast) (*mcp.CallToolResult, error) {
	body, res := d.get(ctx, "library "+a.LibraryID, func(ctx context.Context) (*http.Response, error) {
		return d.API.GetLibrary(ctx, a.LibraryID)
	})
	if res != nil {
		return res, nil
	}
	var lib struct {
		ID        string `json:"id"`
		MediaType string `json:"mediaType"`
		Folders   []struct {
			ID       string `json:"id"`
			FullPath string `json:"fullPath"`
		} `json:"folders"`
	}
	if res := decode(body, &lib); res != nil {
		return res, nil
	}
	if lib.MediaType != "podcast" {
		return errorResult(`argument "library_id": library %s is a %s library; podcasts go into a podcast library (list_libraries shows each library's media type). Nothing was changed.`, a.LibraryID, lib.MediaType), nil
	}
	var folderID, folderPath string
	var ids []string
	for _, f := range lib.Folders {
		ids = append(ids, f.ID)
		if a.FolderID != nil && f.ID == *a.FolderID {
			folderID, folderPath = f.ID, f.FullPath
		}
	}
	switch {
	case a.FolderID != nil && folderID == "":
		return errorResult(`argument "folder_id": library %s has no folder %s; its folders are %s. Nothing was changed.`, a.LibraryID, *a.FolderID, listIDs(ids)), nil
	case a.FolderID == nil && len(lib.Folders) == 1:
		folderID, folderPath = lib.Folders[0].ID, lib.Folders[0].FullPath
	case a.FolderID == nil && len(lib.Folders) == 0:
		return errorResult("Library %s has no folder to put a podcast in (add one in Audiobookshelf's library settings). Nothing was changed.", a.LibraryID), nil
	case a.FolderID == nil:
		return errorResult(`argument "folder_id": library %s has %d folders (%s); name the one to put the podcast in. Nothing was changed.`, a.LibraryID, len(ids), listIDs(ids)), nil
	}
	f, res := d.readFeed(ctx, a.FeedUrl)
	if res != nil {
		return res, nil
	}
	m := f.Metadata
	dir := sanitizeFilename(m.Title)
	if dir == "" {
		return errorResult("The feed at %s has no usable title, which Audiobookshelf needs for the podcast's folder name. Nothing was changed.", a.FeedUrl), nil
	}
	req := abs.CreatePodcastJSONRequestBody{LibraryId: lib.ID, FolderId: folderID, Path: path.Join(folderPath, dir)}
	// PodcastController.create takes over a folder that is already on disk
	// (fs.ensureDir), writes the feed's cover into it (replacing any
	// cover.* there) and, deleted with its files, would take the folder's
	// other files with it. So a folder that exists is refused: what this
	// call makes is then exactly what its put-back deletes.
	if exists, res := d.folderExists(ctx, req.Path); res != nil {
		return res, nil
	} else if exists {
		return errorResult(`Library %s already has a folder %s on disk: a podcast with this title is subscribed already (list_library_items shows it), or the folder was left by a podcast deleted without its files, or made by somebody else. Audiobookshelf would refuse the first and take over the others with what is in it, write this feed's cover over any cover there, and deleting the podcast with its files would then take files this call did not make; so nothing was sent. Move or remove that folder, or scan_library to add what it holds. Nothing was changed.`, a.LibraryID, req.Path), nil
	}
	md := &req.Media.Metadata
	md.Title = ptrOf(m.Title)
	md.Author = ptrOf(m.Author)
	md.Description = ptrOf(m.DescriptionPlain)
	md.FeedUrl = ptrOf(a.FeedUrl)
	md.ImageUrl = ptrOf(m.Image)
	md.Language = ptrOf(m.Language)
	md.Explicit = ptrOf(m.Explicit == "yes" || m.Explicit == "true")
	md.Genres = ptrOf(append([]string{}, m.Categories...))
	typ := m.Type
	if typ == "" {
		typ = "episodic"
	}
	md.Type = ptrOf(typ)
	req.Media.AutoDownloadEpisodes = ptrOf(a.AutoDownload)
	rb, res := d.podMutate(ctx, "a new podcast in library "+a.LibraryID, func(ctx context.Context) (*http.Response, error) {
		return d.API.CreatePodcast(ctx, req)
	})
	if res != nil {
		if strings.Contains(apptextOf(res), "already exists") {
			return errorResult("Audiobookshelf refused: library %s already has an item at %s (a podcast with this title). Nothing was changed.", a.LibraryID, req.Path), nil
		}
		return res, nil
	}
	var it podItem
	if res := decode(rb, &it); res != nil {
		return res, nil
	}
	return jsonResult(map[string]any{
		"created": true, "library_item_id": it.ID, "library_id": it.LibraryID, "title": it.Media.Metadata.Title,
		"folder_id": folderID, "path": req.Path, "feed_url": a.FeedUrl, "feed_episodes": len(f.Episodes),
		"auto_download": a.AutoDownload,
		"next":          "It has no episodes yet: check_new_episodes lists the feed's, download_podcast_episodes fetches them.",
		"put_back": &PutBack{Tool: "delete_podcast", Arguments: map[string]any{"library_item_id": it.ID, "delete_files": true},
			Note: "Deletes the podcast with its folder " + req.Path + ", which this call made (it was not on disk before), with what is in it then: the cover Audiobookshelf downloaded into it, and any episode downloaded since. It asks the person first, as every delete does."},
	}), nil
}

// folderExists reports whether path is on the server's disk (a folder or
// a file): GET /api/filesystem answers 200 for a path that exists and 400
// for one that does not (FileSystemController.getPaths, admins only).
func (d *Deps) folderExists(ctx context.Context, p string) (bool, *mcp.CallToolResult) {
	r, res := d.send(ctx, false, func(ctx context.Context) (*http.Response, error) {
		return d.API.GetFilesystemPaths(ctx, &abs.GetFilesystemPathsParams{Path: &p})
	})
	if res != nil {
		return false, res
	}
	switch r.Status {
	case http.StatusOK:
		return true, nil
	case http.StatusBadRequest:
		return false, nil
	}
	return false, d.podcastRefusal(ctx, r, "the check whether "+p+" is on disk", false)
}

// CheckNewEpisodes is check_new_episodes.
func CheckNewEpisodes(ctx context.Context, d *Deps, a toolargs.CheckNewEpisodes) (*mcp.CallToolResult, error) {
	it, f, res := d.podcastFeed(ctx, a.LibraryItemID)
	if res != nil {
		return res, nil
	}
	var missing []FeedEpisode
	for _, e := range f.Episodes {
		if _, ok := it.has(e); !ok {
			missing = append(missing, feedEpisodeBrief(e))
		}
	}
	if missing == nil {
		missing = []FeedEpisode{}
	}
	return pageResult(d, "episodes", pageOf(missing, int(a.Page), int(a.Limit)), len(missing), int(a.Page), int(a.Limit),
		field{"library_item_id", it.ID}, field{"feed_episodes", len(f.Episodes)},
		field{"in_library", len(f.Episodes) - len(missing)}), nil
}

// download is one entry of Audiobookshelf's download queue.
type download struct {
	ID            string  `json:"id"`
	Title         *string `json:"episodeDisplayTitle"`
	URL           string  `json:"url"`
	LibraryItemID string  `json:"libraryItemId"`
	GUID          *string `json:"guid"`
	PublishedAt   *int64  `json:"publishedAt"`
	StartedAt     *int64  `json:"startedAt"`
	CreatedAt     *int64  `json:"createdAt"`
	PodcastTitle  *string `json:"podcastTitle"`
}

func (d *Deps) downloadQueue(ctx context.Context, libraryID string) (current *download, queue []download, res *mcp.CallToolResult) {
	body, res := d.get(ctx, "the download queue of library "+libraryID, func(ctx context.Context) (*http.Response, error) {
		return d.API.ListEpisodeDownloads(ctx, libraryID)
	})
	if res != nil {
		return nil, nil, res
	}
	var v struct {
		Current *download  `json:"currentDownload"`
		Queue   []download `json:"queue"`
	}
	if res := decode(body, &v); res != nil {
		return nil, nil, res
	}
	return v.Current, v.Queue, nil
}

// queuedFor reports whether the episode is running or queued for the item:
// Audiobookshelf compares the encoded enclosure URL
// (PodcastEpisodeDownload.setData).
func queuedFor(e *feedEpisode, itemID string, all []download) bool {
	u := e.Enclosure.URL
	enc := u
	if dec, err := url.PathUnescape(u); err == nil && dec == u {
		enc = encodeURI(u)
	}
	for _, q := range all {
		if q.LibraryItemID == itemID && (q.URL == u || q.URL == enc) {
			return true
		}
	}
	return false
}

// encodeURI is JavaScript's encodeURI.
func encodeURI(s string) string {
	const keep = ";,/?:@&=+$-_.!~*'()#"
	var b strings.Builder
	for _, c := range []byte(s) {
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(keep, c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// DownloadPodcastEpisodes is download_podcast_episodes.
func DownloadPodcastEpisodes(ctx context.Context, d *Deps, a toolargs.DownloadPodcastEpisodes) (*mcp.CallToolResult, error) {
	it, f, res := d.podcastFeed(ctx, a.LibraryItemID)
	if res != nil {
		return res, nil
	}
	current, queue, res := d.downloadQueue(ctx, it.LibraryID)
	if res != nil {
		return res, nil
	}
	all := queue
	if current != nil {
		all = append([]download{*current}, queue...)
	}
	var pick []*feedEpisode
	var skipped []map[string]string
	if a.Episodes != nil {
		byKey := map[string]*feedEpisode{}
		for _, e := range f.Episodes {
			if _, dup := byKey[e.key()]; !dup {
				byKey[e.key()] = e
			}
		}
		seen := map[string]bool{}
		var unknown []string
		for _, k := range a.Episodes {
			e := byKey[k]
			switch {
			case e == nil:
				unknown = append(unknown, k)
			case seen[k]:
			default:
				seen[k] = true
				pick = append(pick, e)
			}
		}
		if len(unknown) > 0 {
			return errorResult(`argument "episodes": %s %s not in the feed of podcast %s (check_new_episodes lists the keys of the episodes it lacks). Nothing was changed.`, listIDs(unknown), pluralBe(len(unknown)), it.ID), nil
		}
		var have []string
		for _, e := range pick {
			if id, ok := it.has(e); ok {
				have = append(have, e.key()+" (episode "+id+")")
			}
		}
		if len(have) > 0 {
			return errorResult(`argument "episodes": podcast %s already has %s; Audiobookshelf would download a second copy. Leave %s out. Nothing was changed.`, it.ID, listIDs(have), map[bool]string{true: "it", false: "them"}[len(have) == 1]), nil
		}
	} else {
		for _, e := range f.Episodes {
			if len(pick) == int(*a.Newest) {
				break
			}
			if _, ok := it.has(e); !ok && !queuedFor(e, it.ID, all) {
				pick = append(pick, e)
			}
		}
	}
	var send []*feedEpisode
	for _, e := range pick {
		if queuedFor(e, it.ID, all) {
			skipped = append(skipped, map[string]string{"key": e.key(), "why": "already queued or downloading"})
			continue
		}
		send = append(send, e)
	}
	queued := make([]QueuedEpisode, 0, len(send))
	keys := make([]string, 0, len(send))
	for _, e := range send {
		q := QueuedEpisode{FeedEpisode: feedEpisodeBrief(e), EnclosureURL: e.Enclosure.URL}
		if e.GUID != nil {
			q.GUID = *e.GUID
		}
		queued = append(queued, q)
		keys = append(keys, q.Key)
	}
	out := map[string]any{"library_item_id": it.ID, "queued": queued}
	if len(skipped) > 0 {
		out["skipped"] = skipped
	}
	if len(send) == 0 {
		out["note"] = "Nothing was queued: the podcast has every episode asked for, or they are queued already. Nothing was sent."
		return jsonResult(out), nil
	}
	var buf bytes.Buffer
	buf.WriteByte('[')
	for i, e := range send {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(e.raw)
	}
	buf.WriteByte(']')
	if _, res := d.podMutate(ctx, "the download of episodes of podcast "+it.ID, func(ctx context.Context) (*http.Response, error) {
		return d.API.DownloadPodcastEpisodesWithBody(ctx, it.ID, "application/json", bytes.NewReader(buf.Bytes()))
	}); res != nil {
		return res, nil
	}
	find := map[string]any{"library_id": it.LibraryID, "library_item_id": it.ID, "episodes": keys}
	out["next"] = fmt.Sprintf(`Audiobookshelf downloads them one at a time; list_podcast_downloads {"library_id": %q, "library_item_id": %q} follows them.`, it.LibraryID, it.ID)
	out["episode_ids_from"] = &PutBack{Tool: "list_podcast_downloads", Arguments: find,
		Note: "Once a download has finished, this names its episode id (under episodes, by key). Audiobookshelf keeps the feed's guid and enclosure URL on the new episode, and the key is made from them (the guid, or the enclosure URL when there is none), as it is for each entry of queued."}
	out["put_back"] = &PutBack{Tool: "delete_podcast_episode", Arguments: map[string]any{"library_item_id": it.ID, "delete_file": true},
		Note: "One call for each downloaded episode, with its episode_id from episode_ids_from added; it removes the episode with its file, and asks the person first, as every delete does. A download that failed made no episode and needs no put-back."}
	out["also_changed"] = downloadSideEffects
	return jsonResult(out), nil
}

// QueuedEpisode is one episode download_podcast_episodes queued, with what
// identifies it on the episode Audiobookshelf makes of it
// (PodcastEpisode.createFromRssPodcastEpisode keeps the feed's enclosure
// URL and guid).
type QueuedEpisode struct {
	FeedEpisode
	GUID         string `json:"guid,omitempty"`
	EnclosureURL string `json:"enclosure_url"`
}

// downloadSideEffects is what a finished download changes on the podcast
// beyond the new episode (PodcastManager.scanAddPodcastEpisodeAudioFile),
// and what of it the put-back leaves.
const downloadSideEffects = "A finished download also adds the audio file to the podcast's files, sets its episode count (numEpisodes), recounts the item's size from all its files and moves its updatedAt. delete_podcast_episode takes the file and the count back, not the size: Audiobookshelf does not recount it on a delete, so it keeps counting the deleted file until it next recounts (the next finished download of this podcast does). The podcast's lastEpisodeCheck is not touched (only the scheduled episode check sets it)."

// episodeKey is the key of a library episode: the one its feed episode
// had, made from what Audiobookshelf kept of it (guid, enclosure URL).
func episodeKey(ep *podEpisode) string {
	e := feedEpisode{GUID: ep.GUID}
	if ep.Enclosure != nil {
		e.Enclosure.URL = ep.Enclosure.URL
	}
	return e.key()
}

// downloadKey is the key of a queued download (its guid, or its URL as
// queued or as the feed had it before Audiobookshelf encoded it).
func downloadKey(q *download) []string {
	if q.GUID != nil && *q.GUID != "" {
		return []string{(&feedEpisode{GUID: q.GUID}).key()}
	}
	out := []string{(&feedEpisode{Enclosure: struct {
		URL string `json:"url"`
	}{q.URL}}).key()}
	if dec, err := url.PathUnescape(q.URL); err == nil && dec != q.URL {
		out = append(out, (&feedEpisode{Enclosure: struct {
			URL string `json:"url"`
		}{dec}}).key())
	}
	return out
}

// KeyState is where the episode of one download key is, in
// list_podcast_downloads.
type KeyState struct {
	Key       string `json:"key"`
	State     string `json:"state"`
	EpisodeID string `json:"episode_id,omitempty"`
	Title     string `json:"title,omitempty"`
	Note      string `json:"note,omitempty"`
}

// Download is one running or queued download in list_podcast_downloads.
type Download struct {
	ID            string `json:"id"`
	LibraryItemID string `json:"library_item_id"`
	Podcast       string `json:"podcast,omitempty"`
	Title         string `json:"title,omitempty"`
	Published     string `json:"published,omitempty"`
	State         string `json:"state"`
}

// AddedEpisode is one of a podcast's most recently added episodes.
type AddedEpisode struct {
	EpisodeID string `json:"episode_id"`
	Title     string `json:"title"`
	Added     string `json:"added"`
	DurationS int64  `json:"duration_s,omitempty"`
}

// ListPodcastDownloads is list_podcast_downloads.
func ListPodcastDownloads(ctx context.Context, d *Deps, a toolargs.ListPodcastDownloads) (*mcp.CallToolResult, error) {
	if a.Episodes != nil && a.LibraryItemID == nil {
		return errorResult(`argument "episodes": give library_item_id too (the podcast the keys were queued for). Nothing was sent to Audiobookshelf.`), nil
	}
	current, queue, res := d.downloadQueue(ctx, a.LibraryID)
	if res != nil {
		return res, nil
	}
	var out []Download
	add := func(q *download, state string) {
		if a.LibraryItemID != nil && q.LibraryItemID != *a.LibraryItemID {
			return
		}
		dl := Download{ID: q.ID, LibraryItemID: q.LibraryItemID, State: state}
		if q.Title != nil {
			dl.Title = *q.Title
		}
		if q.PodcastTitle != nil && a.LibraryItemID == nil {
			dl.Podcast = *q.PodcastTitle
		}
		if q.PublishedAt != nil && *q.PublishedAt > 0 {
			dl.Published = date(*q.PublishedAt)
		}
		out = append(out, dl)
	}
	if current != nil {
		add(current, "downloading")
	}
	for i := range queue {
		add(&queue[i], "queued")
	}
	if out == nil {
		out = []Download{}
	}
	extra := []field{{"library_id", a.LibraryID}}
	if a.LibraryItemID != nil {
		it, res := d.getPodcast(ctx, *a.LibraryItemID)
		if res != nil {
			return res, nil
		}
		if it.LibraryID != a.LibraryID {
			return errorResult(`argument "library_item_id": podcast %s is in library %s, not in %s. Nothing was changed.`, it.ID, it.LibraryID, a.LibraryID), nil
		}
		eps := append([]podEpisode{}, it.Media.Episodes...)
		sort.SliceStable(eps, func(i, j int) bool { return eps[i].AddedAt > eps[j].AddedAt })
		added := []AddedEpisode{}
		for _, e := range eps[:min(len(eps), RecentlyAddedCap)] {
			ae := AddedEpisode{EpisodeID: e.ID, Title: e.Title, Added: stamp(e.AddedAt)}
			if e.AudioFile != nil {
				ae.DurationS = seconds(e.AudioFile.Duration)
			}
			added = append(added, ae)
		}
		extra = append(extra, field{"library_item_id", it.ID}, field{"recently_added", added}, field{"episodes_in_library", len(it.Media.Episodes)})
		if a.Episodes != nil {
			extra = append(extra, field{"episodes", keyStates(it, a.Episodes, current, queue)})
		}
	}
	extra = append(extra, field{"finished", "Audiobookshelf keeps no list of finished downloads: a finished one is an episode of its podcast (recently_added, with library_item_id); one that left the queue without becoming an episode failed (the Audiobookshelf log says why)."})
	return pageResult(d, "downloads", pageOf(out, int(a.Page), int(a.Limit)), len(out), int(a.Page), int(a.Limit), extra...), nil
}

// keyStates says for each download key where its episode is: an episode
// of the podcast (its id), downloading or queued, or neither.
func keyStates(it *podItem, keys []string, current *download, queue []download) []KeyState {
	eps := map[string]*podEpisode{}
	for i := range it.Media.Episodes {
		ep := &it.Media.Episodes[i]
		if k := episodeKey(ep); eps[k] == nil {
			eps[k] = ep
		}
	}
	waiting := map[string]string{}
	if current != nil && current.LibraryItemID == it.ID {
		for _, k := range downloadKey(current) {
			waiting[k] = "downloading"
		}
	}
	for i := range queue {
		if queue[i].LibraryItemID == it.ID {
			for _, k := range downloadKey(&queue[i]) {
				if waiting[k] == "" {
					waiting[k] = "queued"
				}
			}
		}
	}
	out := make([]KeyState, 0, len(keys))
	seen := map[string]bool{}
	for _, k := range keys {
		if seen[k] {
			continue
		}
		seen[k] = true
		switch {
		case eps[k] != nil:
			out = append(out, KeyState{Key: k, State: "downloaded", EpisodeID: eps[k].ID, Title: eps[k].Title})
		case waiting[k] != "":
			out = append(out, KeyState{Key: k, State: waiting[k]})
		default:
			out = append(out, KeyState{Key: k, State: "not_in_library", Note: "not an episode of the podcast and not in its queue: not started yet (right after download_podcast_episodes Audiobookshelf may show it nowhere for a moment; ask again), failed (the Audiobookshelf log says why), never queued, or deleted since"})
		}
	}
	return out
}

// episodeRead is what an approval to delete an episode is bound to.
type episodeRead struct {
	EpisodeID string   `json:"episode_id"`
	AudioIno  string   `json:"audio_ino"`
	Size      int64    `json:"size"`
	Progress  string   `json:"progress"`
	Playlists []string `json:"playlists"`
}

// PlanDeletePodcastEpisode plans delete_podcast_episode. A user without
// its permission (tools.yaml) was refused before it runs; the user's record
// is read for their progress of the episode.
func PlanDeletePodcastEpisode(ctx context.Context, d *Deps, a toolargs.DeletePodcastEpisode) (*Plan, *mcp.CallToolResult) {
	_, u, res := d.getMe(ctx)
	if res != nil {
		return nil, res
	}
	it, res := d.getPodcast(ctx, a.LibraryItemID)
	if res != nil {
		return nil, res
	}
	var ep *podEpisode
	for i := range it.Media.Episodes {
		if it.Media.Episodes[i].ID == a.EpisodeID {
			ep = &it.Media.Episodes[i]
		}
	}
	if ep == nil {
		return nil, errorResult(`argument "episode_id": podcast %s has no episode %s (get_library_item lists its episodes). Nothing was changed.`, it.ID, a.EpisodeID)
	}
	read := episodeRead{EpisodeID: ep.ID, Playlists: []string{}}
	if ep.AudioFile != nil {
		read.AudioIno, read.Size = ep.AudioFile.Ino, ep.AudioFile.Metadata.Size
	}
	progress := 0
	for _, p := range u.MediaProgress {
		if p.EpisodeID != nil && *p.EpisodeID == ep.ID {
			progress++
			read.Progress = fmt.Sprintf("%s:%d:%v:%v", p.ID, p.LastUpdate, p.CurrentTime, p.IsFinished)
		}
	}
	pbody, res := d.get(ctx, "the playlists", func(ctx context.Context) (*http.Response, error) { return d.API.ListPlaylists(ctx) })
	if res != nil {
		return nil, res
	}
	var pls struct {
		Playlists []absPlaylist `json:"playlists"`
	}
	if res := decode(pbody, &pls); res != nil {
		return nil, res
	}
	var in, emptied []string
	for _, p := range pls.Playlists {
		n := 0
		for _, e := range p.Items {
			if e.EpisodeID != nil && *e.EpisodeID == ep.ID {
				n++
			}
		}
		if n > 0 {
			in = append(in, p.ID)
			read.Playlists = append(read.Playlists, fmt.Sprintf("%s:%d", p.ID, len(p.Items)))
			if n == len(p.Items) {
				emptied = append(emptied, p.ID)
			}
		}
	}
	if res := plainIDs("episode "+a.EpisodeID+" of podcast "+a.LibraryItemID, append([]string{it.ID, ep.ID}, in...)...); res != nil {
		return nil, res
	}
	plan := &Plan{Targets: []string{it.ID, ep.ID}, Read: read}
	if a.DeleteFile {
		size := ""
		if read.Size > 0 {
			size = fmt.Sprintf(" (%d bytes)", read.Size)
		}
		plan.Action = fmt.Sprintf("This will remove episode %s from podcast %s and DELETE ITS AUDIO FILE FROM DISK%s.", ep.ID, it.ID, size)
		plan.Consequences = append(plan.Consequences, "The file cannot be restored from here: only a feed that still carries the episode can bring it back, as a new download with a new episode id.")
	} else {
		plan.Action = fmt.Sprintf("This will remove episode %s from podcast %s. Its audio file stays on disk in the podcast's folder.", ep.ID, it.ID)
	}
	plan.Consequences = append(plan.Consequences,
		fmt.Sprintf("The listening progress of the episode goes with it: %d record(s) of this user, and any other user's.", progress))
	if len(in) > 0 {
		c := fmt.Sprintf("It is taken out of %d playlist(s) of this user: %s.", len(in), listIDs(in))
		if len(emptied) > 0 {
			c += fmt.Sprintf(" %s %s no other entry, so Audiobookshelf deletes %s.", listIDs(emptied), map[bool]string{true: "has", false: "have"}[len(emptied) == 1], map[bool]string{true: "it", false: "them"}[len(emptied) == 1])
		}
		plan.Consequences = append(plan.Consequences, c)
	}
	hard := a.DeleteFile
	plan.Execute = func(ctx context.Context) (*mcp.CallToolResult, error) {
		var params *abs.DeletePodcastEpisodeParams
		if hard {
			params = &abs.DeletePodcastEpisodeParams{Hard: ptrOf(abs.DeletePodcastEpisodeParamsHard(1))}
		}
		rb, res := d.podMutate(ctx, "episode "+ep.ID+" of podcast "+it.ID, func(ctx context.Context) (*http.Response, error) {
			return d.API.DeletePodcastEpisode(ctx, it.ID, ep.ID, params)
		})
		if res != nil {
			return res, nil
		}
		var after podItem
		if res := decode(rb, &after); res != nil {
			return res, nil
		}
		out := map[string]any{"deleted": true, "library_item_id": it.ID, "episode_id": ep.ID, "file_deleted": hard,
			"episodes_left": len(after.Media.Episodes), "progress_records_removed": progress, "playlists_changed": len(in)}
		if len(emptied) > 0 {
			out["playlists_deleted"] = emptied
		}
		if !hard {
			out["note"] = "The audio file is still in the podcast's folder; a library scan may add it back as an episode."
		}
		return jsonResult(out), nil
	}
	return plan, nil
}

// ---------------------------------------------------------------- folder names

var (
	illegalRe         = regexp.MustCompile(`[/?<>\\:*|"]`)
	controlRe         = regexp.MustCompile("[\x00-\x1f\u0080-\u009f]")
	reservedRe        = regexp.MustCompile(`^\.+$`)
	windowsReservedRe = regexp.MustCompile(`(?i)^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$`)
	windowsTrailingRe = regexp.MustCompile(`[. ]+$`)
	spacesRe          = regexp.MustCompile(`\s+`)
)

// sanitizeFilename is the web client's $sanitizeFilename
// (client/plugins/init.client.js), with which it names a new podcast's
// folder: the first colon becomes " - ", characters illegal in file names
// go, and the name is cut to 255 bytes of UTF-16.
func sanitizeFilename(name string) string {
	s := strings.Replace(name, ":", " - ", 1)
	s = illegalRe.ReplaceAllString(s, "")
	s = controlRe.ReplaceAllString(s, "")
	s = reservedRe.ReplaceAllString(s, "")
	s = strings.NewReplacer("\n", "", "\r", "").Replace(s)
	s = windowsReservedRe.ReplaceAllString(s, "")
	s = windowsTrailingRe.ReplaceAllString(s, "")
	s = spacesRe.ReplaceAllString(s, " ")
	ext := path.Ext(s)
	base := strings.TrimSuffix(s, ext)
	u16 := func(x string) int { return 2 * len(utf16.Encode([]rune(x))) }
	if u16(base)+u16(ext) > 255 {
		room := 255 - u16(ext)
		total := 0
		var b strings.Builder
		for _, c := range base {
			total += 2 * len(utf16.Encode([]rune{c}))
			if total > room {
				break
			}
			b.WriteRune(c)
		}
		s = strings.TrimSpace(b.String()) + ext
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "")
	}
	return s
}

// plainIDs refuses, before anything is asked, a question that would carry
// an id Audiobookshelf answered that is not a plain id (letters, digits
// and _ . : - only): what goes into a question is ids and counts, checked
// as such, whatever Audiobookshelf answers.
func plainIDs(what string, ids ...string) *mcp.CallToolResult {
	for _, id := range ids {
		if !guard.ValidID(id) {
			return errorResult("%s: Audiobookshelf answered with an id that is not a plain id (letters, digits and _ . : - only), so it cannot be put into the question; it is not shown. Check it in Audiobookshelf's own interface. Nothing was asked and nothing was changed.", what)
		}
	}
	return nil
}

// podcastRead is what an approval to delete a podcast is bound to.
type podcastRead struct {
	ID        string   `json:"id"`
	UpdatedAt int64    `json:"updated_at"`
	Episodes  []string `json:"episodes"`
	Files     []string `json:"files"`
	Progress  []string `json:"progress"`
	Playlists []string `json:"playlists"`
}

// PlanDeletePodcast plans delete_podcast: DELETE /api/items/:id
// (LibraryItemController.delete), which takes out every user's progress of
// the podcast's episodes, the episodes' playlist entries (a playlist left
// empty is deleted), the episodes and the item, and with hard=1 the
// podcast's folder with everything in it.
func PlanDeletePodcast(ctx context.Context, d *Deps, a toolargs.DeletePodcast) (*Plan, *mcp.CallToolResult) {
	_, u, res := d.getMe(ctx)
	if res != nil {
		return nil, res
	}
	it, res := d.getPodcast(ctx, a.LibraryItemID)
	if res != nil {
		return nil, res
	}
	// Audiobookshelf does not cancel a podcast's downloads when it is
	// deleted: each one that starts makes the podcast's folder again
	// (PodcastManager.startPodcastEpisodeDownload), and finds no item to
	// add its episode to. So a podcast with downloads queued or running
	// is refused.
	current, queue, res := d.downloadQueue(ctx, it.LibraryID)
	if res != nil {
		return nil, res
	}
	pending := 0
	if current != nil && current.LibraryItemID == it.ID {
		pending++
	}
	for _, q := range queue {
		if q.LibraryItemID == it.ID {
			pending++
		}
	}
	if pending > 0 {
		return nil, errorResult(`Podcast %s has %d episode download(s) queued or running. Audiobookshelf does not cancel them when the podcast is deleted: a running one fails, and each queued one that starts makes the podcast's folder again; wait until list_podcast_downloads {"library_id": %q, "library_item_id": %q} shows none, then delete it. Nothing was asked and nothing was changed.`, it.ID, pending, it.LibraryID, it.ID)
	}
	read := podcastRead{ID: it.ID, UpdatedAt: it.UpdatedAt, Episodes: []string{}, Files: []string{}, Progress: []string{}, Playlists: []string{}}
	eps := map[string]bool{}
	for _, ep := range it.Media.Episodes {
		eps[ep.ID] = true
		ino := ""
		if ep.AudioFile != nil {
			ino = ep.AudioFile.Ino
		}
		read.Episodes = append(read.Episodes, ep.ID+":"+ino)
	}
	audio, other := 0, 0
	for _, f := range it.LibraryFiles {
		read.Files = append(read.Files, f.Ino+":"+f.FileType)
		if f.FileType == "audio" {
			audio++
		} else {
			other++
		}
	}
	progress := 0
	for _, p := range u.MediaProgress {
		if p.EpisodeID != nil && eps[*p.EpisodeID] {
			progress++
			read.Progress = append(read.Progress, fmt.Sprintf("%s:%d:%v:%v", p.ID, p.LastUpdate, p.CurrentTime, p.IsFinished))
		}
	}
	pbody, res := d.get(ctx, "the playlists", func(ctx context.Context) (*http.Response, error) { return d.API.ListPlaylists(ctx) })
	if res != nil {
		return nil, res
	}
	var pls struct {
		Playlists []absPlaylist `json:"playlists"`
	}
	if res := decode(pbody, &pls); res != nil {
		return nil, res
	}
	var in, emptied []string
	entries := 0
	for _, p := range pls.Playlists {
		n := 0
		for _, e := range p.Items {
			if e.EpisodeID != nil && eps[*e.EpisodeID] {
				n++
			}
		}
		if n > 0 {
			in = append(in, p.ID)
			entries += n
			read.Playlists = append(read.Playlists, fmt.Sprintf("%s:%d:%d", p.ID, len(p.Items), n))
			if n == len(p.Items) {
				emptied = append(emptied, p.ID)
			}
		}
	}
	if res := plainIDs("podcast "+a.LibraryItemID, append([]string{it.ID}, in...)...); res != nil {
		return nil, res
	}
	if it.ID != a.LibraryItemID {
		return nil, errorResult(`argument "library_item_id": Audiobookshelf answered for %s with another item. Nothing was asked and nothing was changed.`, a.LibraryItemID)
	}
	plan := &Plan{Targets: append([]string{it.ID}, in...), Read: read}
	if a.DeleteFiles {
		plan.Action = fmt.Sprintf("This will delete podcast %s with its %d episode(s) from the library, and DELETE ITS FOLDER FROM DISK with everything in it: %d audio file(s) and %d other file(s) that Audiobookshelf knows of.", it.ID, len(it.Media.Episodes), audio, other)
	} else {
		plan.Action = fmt.Sprintf("This will delete podcast %s with its %d episode(s) from the library. Its folder stays on disk with its %d audio file(s) and %d other file(s).", it.ID, len(it.Media.Episodes), audio, other)
	}
	plan.Consequences = append(plan.Consequences,
		fmt.Sprintf("The listening progress of its episodes goes with it: %d record(s) of this user, and any other user's.", progress))
	if len(in) > 0 {
		c := fmt.Sprintf("%d entry(ies) are taken out of %d playlist(s) of this user: %s.", entries, len(in), listIDs(in))
		if len(emptied) > 0 {
			c += fmt.Sprintf(" %s %s no other entry, so Audiobookshelf deletes %s.", listIDs(emptied), map[bool]string{true: "has", false: "have"}[len(emptied) == 1], map[bool]string{true: "it", false: "them"}[len(emptied) == 1])
		}
		plan.Consequences = append(plan.Consequences, c)
	}
	hard := a.DeleteFiles
	nEps := len(it.Media.Episodes)
	plan.Execute = func(ctx context.Context) (*mcp.CallToolResult, error) {
		var params *abs.DeleteLibraryItemParams
		if hard {
			params = &abs.DeleteLibraryItemParams{Hard: ptrOf(abs.DeleteLibraryItemParamsHard(1))}
		}
		if _, res := d.podMutate(ctx, "podcast "+it.ID, func(ctx context.Context) (*http.Response, error) {
			return d.API.DeleteLibraryItem(ctx, it.ID, params)
		}); res != nil {
			return res, nil
		}
		out := map[string]any{"deleted": true, "library_item_id": it.ID, "library_id": it.LibraryID, "files_deleted": hard,
			"episodes_removed": nEps, "progress_records_removed": progress, "playlists_changed": len(in)}
		if len(emptied) > 0 {
			out["playlists_deleted"] = emptied
		}
		if !hard {
			out["note"] = "The folder " + it.Path + " is still on disk with its files; a library scan may add it back as a new item, and create_podcast refuses that folder while it is there."
		}
		return jsonResult(out), nil
	}
	return plan, nil
}

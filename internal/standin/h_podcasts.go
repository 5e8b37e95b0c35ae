package standin

import (
	"fmt"
	"net/http"
	"net/url"
	"path"
	"slices"
	"sort"
	"strings"
	"time"
)

// The podcasts routes: iTunes search (SearchController.findPodcasts), feeds
// (PodcastController.getPodcastFeed), subscribing (PodcastController.create),
// the episode download queue (PodcastManager) and deleting an episode
// (PodcastController.removeEpisode). The internet is Data.Podcasts: the
// feeds the stand-in can fetch and the search results iTunes gives.

// PodcastWorld is what lies outside the library: the RSS feeds, by URL, and
// the iTunes podcast search results.
type PodcastWorld struct {
	Feeds  map[string]Feed
	Search []PodcastSearchResult
	// DeletedFiles are the audio files removed from disk (hard delete of
	// an episode) and the folders removed with everything in them (hard
	// delete of a library item), in the order they went.
	DeletedFiles []string
	// Folders are folders on disk that no library item holds: those a
	// library item left behind when it was deleted without hard=1.
	Folders []string
}

// Feed is an RSS feed as podcastUtils.getPodcastFeed parses it.
type Feed struct {
	Title, Author, Description, Language, Explicit, Image, Type, Link string
	Categories                                                        []string
	Episodes                                                          []FeedEpisode
}

// FeedEpisode is one item of a feed (podcastUtils.cleanEpisodeData).
type FeedEpisode struct {
	Title, Subtitle, Description, PubDate, Season, Episode, Duration string
	GUID                                                             string
	EnclosureURL, EnclosureType, EnclosureLength                     string
	DurationSeconds                                                  float64
}

// PodcastSearchResult is providers/iTunes.cleanPodcast.
type PodcastSearchResult struct {
	ID, ArtistID                                int64
	Title, ArtistName, Description, ReleaseDate string
	Cover, FeedURL, PageURL                     string
	Genres                                      []string
	TrackCount                                  int
	Explicit                                    bool
}

// download is a PodcastEpisodeDownload.
type download struct {
	id, itemID, libraryID, url string
	ep                         FeedEpisode
	createdAt, startedAt       int64
}

// podState is the download queue (PodcastManager.downloadQueue and
// currentDownload); guarded by Server.mu.
type podState struct {
	current *download
	queue   []download
	// held stops the queue where it is (HoldDownloads).
	held bool
}

// HoldDownloads stops the download queue where it is (on) or lets it run
// again, one step per request (off): a slow download, for tests.
func (s *Server) HoldDownloads(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pods.held = on
}

// podcastRoutes are the podcasts toolset's routes of ApiRouter.js.
func podcastRoutes() []route {
	const G, P, D = http.MethodGet, http.MethodPost, http.MethodDelete
	return []route{
		api(G, "/libraries/:id/episode-downloads", withLibrary(hEpisodeDownloads)),
		api(P, "/podcasts", hPodcastCreate),
		api(P, "/podcasts/feed", hPodcastFeed),
		api(P, "/podcasts/:id/download-episodes", withPodcast(hPodcastDownload)),
		api(D, "/podcasts/:id/episode/:episodeId", withPodcast(hPodcastEpisodeDelete)),
		api(D, "/items/:id", withItem(hItemDelete)),
		api(G, "/filesystem", hFilesystem),
		api(G, "/search/podcast", hSearchPodcast),
	}
}

// GET /api/search/podcast: SearchController.findPodcasts. A result matches
// when its title or artist holds every word of the term (iTunes' own
// ranking is not reproduced).
func hSearchPodcast(c *ctx) {
	vals, ok := c.q["term"]
	switch {
	case !ok:
		c.sendJSONStatus(http.StatusBadRequest, jobj{{"error", `Query parameter "term" is required`}})
		return
	case len(vals) > 1:
		c.sendJSONStatus(http.StatusBadRequest, jobj{{"error", `Query parameter "term" is an array`}})
		return
	case len(vals[0]) > 1000:
		c.sendJSONStatus(http.StatusBadRequest, jobj{{"error", `Query parameter "term" is too long`}})
		return
	case vals[0] == "":
		c.sendJSON(nil)
		return
	}
	words := strings.Fields(strings.ToLower(vals[0]))
	out := []jobj{}
	for _, r := range c.s.data.Podcasts.Search {
		hay := strings.ToLower(r.Title + " " + r.ArtistName)
		all := true
		for _, w := range words {
			if !strings.Contains(hay, w) {
				all = false
			}
		}
		if !all {
			continue
		}
		var artist any
		if r.ArtistID != 0 {
			artist = r.ArtistID
		}
		out = append(out, jobj{{"id", r.ID}, {"artistId", artist}, {"title", r.Title}, {"artistName", r.ArtistName},
			{"description", r.Description}, {"descriptionPlain", stripHTML(r.Description)}, {"releaseDate", r.ReleaseDate},
			{"genres", nonNil(r.Genres)}, {"cover", r.Cover}, {"trackCount", r.TrackCount}, {"feedUrl", r.FeedURL},
			{"pageUrl", r.PageURL}, {"explicit", r.Explicit}})
	}
	c.sendJSON(out)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func stripHTML(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>':
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// validateURL is utils.validateUrl: new URL(raw).toString(), or "".
func validateURL(raw any) string {
	s, ok := raw.(string)
	if !ok || s == "" {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || (u.Host == "" && u.Opaque == "") {
		return ""
	}
	return u.String()
}

// feedJSON is the podcast getPodcastFeed answers for a feed.
func feedJSON(feedURL string, f Feed) jobj {
	var desc, plain any
	if f.Description != "" {
		desc, plain = f.Description, stripHTML(f.Description)
	}
	md := jobj{{"image", ns(f.Image)}, {"categories", nonNil(f.Categories)}, {"feedUrl", feedURL}, {"description", desc},
		{"descriptionPlain", plain}, {"type", ns(f.Type)}, {"title", ns(f.Title)}, {"language", ns(f.Language)},
		{"explicit", ns(f.Explicit)}, {"author", ns(f.Author)}, {"pubDate", nil}, {"link", ns(f.Link)}}
	eps := []jobj{}
	for _, e := range f.Episodes {
		eps = append(eps, feedEpisodeJSON(e))
	}
	return jobj{{"metadata", md}, {"episodes", eps}}
}

func feedEpisodeJSON(e FeedEpisode) jobj {
	var published any
	if t, err := time.Parse(time.RFC1123Z, e.PubDate); err == nil {
		published = t.UnixMilli()
	}
	var dur any
	if e.DurationSeconds > 0 {
		dur = e.DurationSeconds
	}
	enc := jobj{{"url", e.EnclosureURL}}
	if e.EnclosureLength != "" {
		enc.set("length", e.EnclosureLength)
	}
	if e.EnclosureType != "" {
		enc.set("type", e.EnclosureType)
	}
	return jobj{{"title", e.Title}, {"subtitle", e.Subtitle}, {"description", e.Description},
		{"descriptionPlain", stripHTML(e.Description)}, {"pubDate", e.PubDate}, {"episodeType", "full"},
		{"season", e.Season}, {"episode", e.Episode}, {"author", ""}, {"duration", e.Duration},
		{"durationSeconds", dur}, {"explicit", ""}, {"publishedAt", published}, {"enclosure", enc},
		{"guid", ns(e.GUID)}, {"chaptersUrl", nil}, {"chaptersType", nil}, {"chapters", []jobj{}}}
}

// POST /api/podcasts/feed {rssFeed}: PodcastController.getPodcastFeed.
func hPodcastFeed(c *ctx) {
	if !c.user.isAdminOrUp() {
		c.sendStatus(http.StatusForbidden)
		return
	}
	u := validateURL(field(c.body, "rssFeed"))
	if u == "" {
		c.send(http.StatusBadRequest, `Invalid request body. "rssFeed" must be a valid URL`)
		return
	}
	f, ok := c.s.data.Podcasts.Feeds[u]
	if !ok || len(f.Episodes) == 0 {
		c.send(http.StatusNotFound, "Podcast RSS feed request failed or invalid response data")
		return
	}
	c.sendJSON(jobj{{"podcast", feedJSON(u, f)}})
}

// POST /api/podcasts: PodcastController.create.
func hPodcastCreate(c *ctx) {
	if !c.user.isAdminOrUp() {
		c.sendStatus(http.StatusForbidden)
		return
	}
	media, _ := field(c.body, "media").(map[string]any)
	md, _ := field(media, "metadata").(map[string]any)
	if media == nil || md == nil {
		c.send(http.StatusBadRequest, `Invalid request body. "media" and "media.metadata" are required`)
		return
	}
	lib := c.s.library(toJSStringOrEmpty(field(c.body, "libraryId")))
	if lib == nil {
		c.send(http.StatusNotFound, "Library not found")
		return
	}
	var folder *Folder
	for i := range lib.Folders {
		if lib.Folders[i].ID == toJSStringOrEmpty(field(c.body, "folderId")) {
			folder = &lib.Folders[i]
		}
	}
	if folder == nil {
		c.send(http.StatusNotFound, "Folder not found")
		return
	}
	p, ok := field(c.body, "path").(string)
	if !ok || strings.TrimSpace(p) == "" {
		c.send(http.StatusBadRequest, `Invalid request body. "path" must be a non-empty string`)
		return
	}
	if rel := strings.TrimPrefix(p, folder.FullPath); rel == p || (rel != "" && !strings.HasPrefix(rel, "/")) {
		c.send(http.StatusBadRequest, "Podcast path must be inside the selected library folder")
		return
	}
	for i := range c.s.data.Items {
		if c.s.data.Items[i].Path == p {
			c.send(http.StatusBadRequest, "Podcast already exists")
			return
		}
	}
	str := func(k string) string { s, _ := field(md, k).(string); return s }
	var genres []string
	if g, ok := field(md, "genres").([]any); ok {
		for _, x := range g {
			if s, ok := x.(string); ok {
				genres = append(genres, s)
			}
		}
	}
	now := c.nowMs()
	explicit, _ := field(md, "explicit").(bool)
	auto, _ := field(media, "autoDownloadEpisodes").(bool)
	li := LibraryItem{
		ID: c.s.newID(), Ino: fmt.Sprint(now), LibraryID: lib.ID, FolderID: folder.ID, Path: p,
		RelPath: strings.TrimPrefix(strings.TrimPrefix(p, folder.FullPath), "/"),
		MtimeMs: now, CtimeMs: now, BirthtimeMs: now, AddedAt: now, UpdatedAt: now, MediaType: "podcast", LibraryFiles: []LibraryFile{},
		Podcast: &Podcast{ID: c.s.newID(), Title: str("title"), Author: str("author"), Description: str("description"),
			ReleaseDate: str("releaseDate"), FeedURL: str("feedUrl"), ImageURL: str("imageUrl"), ITunesPageURL: str("itunesPageUrl"),
			ITunesID: str("itunesId"), ITunesArtistID: str("itunesArtistId"), Language: str("language"), Type: str("type"),
			Explicit: explicit, Genres: nonNil(genres), Tags: []string{}, AutoDownloadEpisodes: auto, AutoDownloadSchedule: "0 * * * *",
			MaxNewEpisodesToDownload: 3, Episodes: []Episode{}, CreatedAt: now, UpdatedAt: now},
	}
	// fs.ensureDir: a folder already on disk is taken over as it is.
	c.s.data.Podcasts.Folders = slices.DeleteFunc(c.s.data.Podcasts.Folders, func(f string) bool { return f == p })
	// CoverManager.downloadCoverFromUrlNew into the item's folder: the
	// stand-in's internet serves every http(s) image as a JPEG of 24 kB.
	if img := str("imageUrl"); strings.HasPrefix(img, "http") {
		cover := path.Join(p, "cover.jpg")
		meta := FileMetadata{Filename: "cover.jpg", Ext: ".jpg", Path: cover, RelPath: "cover.jpg", Size: 24576, MtimeMs: now, CtimeMs: now, BirthtimeMs: now}
		li.LibraryFiles = append(li.LibraryFiles, LibraryFile{Ino: fmt.Sprint(now + 1), Metadata: meta, AddedAt: now, UpdatedAt: now, FileType: "image"})
		li.Podcast.CoverPath = cover
	}
	c.s.data.Items = append(c.s.data.Items, li)
	c.sendJSON(c.s.itemExpanded(&c.s.data.Items[len(c.s.data.Items)-1], viewOpts{}))
}

// POST /api/podcasts/:id/download-episodes: PodcastController.downloadEpisodes.
func hPodcastDownload(c *ctx) {
	if !c.user.isAdminOrUp() {
		c.sendStatus(http.StatusForbidden)
		return
	}
	list, ok := c.body.([]any)
	if !ok || len(list) == 0 {
		c.sendStatus(http.StatusBadRequest)
		return
	}
	for _, v := range list {
		enc, _ := field(v, "enclosure").(map[string]any)
		u, _ := field(enc, "url").(string)
		if enc == nil || u == "" {
			c.crash() // setData reads rssPodcastEpisode.enclosure.url
		}
		if dec, err := url.PathUnescape(u); err == nil && dec == u {
			u = encodeURI(u)
		}
		str := func(k string) string { s, _ := field(v, k).(string); return s }
		ep := FeedEpisode{Title: str("title"), Subtitle: str("subtitle"), Description: str("description"), PubDate: str("pubDate"),
			Season: str("season"), Episode: str("episode"), Duration: str("duration"), GUID: str("guid"),
			EnclosureURL: str2(enc, "url"), EnclosureType: str2(enc, "type"), EnclosureLength: str2(enc, "length")}
		ep.DurationSeconds, _ = field(v, "durationSeconds").(float64)
		dl := download{id: c.s.newID(), itemID: c.li.ID, libraryID: c.li.LibraryID, url: u, ep: ep, createdAt: c.nowMs()}
		st := &c.s.pods
		if st.current != nil {
			dup := st.current.url == dl.url && st.current.itemID == dl.itemID
			for _, q := range st.queue {
				dup = dup || (q.url == dl.url && q.itemID == dl.itemID)
			}
			if !dup {
				st.queue = append(st.queue, dl)
			}
			continue
		}
		dl.startedAt = c.nowMs()
		st.current = &dl
	}
	c.sendStatus(http.StatusOK)
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

func str2(m map[string]any, k string) string { s, _ := m[k].(string); return s }

func downloadJSON(s *Server, d *download) jobj {
	var podcastTitle any
	explicit := false
	if li := s.item(d.itemID); li != nil && li.Podcast != nil {
		podcastTitle, explicit = li.Podcast.Title, li.Podcast.Explicit
	}
	var published any
	if t, err := time.Parse(time.RFC1123Z, d.ep.PubDate); err == nil {
		published = t.UnixMilli()
	}
	return jobj{{"id", d.id}, {"episodeDisplayTitle", d.ep.Title}, {"url", d.url}, {"libraryItemId", d.itemID},
		{"libraryId", d.libraryID}, {"isFinished", false}, {"failed", false}, {"appendRandomId", false},
		{"startedAt", nms(d.startedAt)}, {"createdAt", d.createdAt}, {"finishedAt", nil}, {"podcastTitle", podcastTitle},
		{"podcastExplicit", explicit}, {"season", d.ep.Season}, {"episode", d.ep.Episode}, {"episodeType", "full"},
		{"publishedAt", published}, {"guid", ns(d.ep.GUID)}}
}

// GET /api/libraries/:id/episode-downloads: LibraryController.getEpisodeDownloadQueue.
func hEpisodeDownloads(c *ctx) {
	st := &c.s.pods
	j := jobj{}
	if st.current != nil && st.current.libraryID == c.lib.ID {
		j.set("currentDownload", downloadJSON(c.s, st.current))
	}
	q := []jobj{}
	for i := range st.queue {
		if st.queue[i].libraryID == c.lib.ID {
			q = append(q, downloadJSON(c.s, &st.queue[i]))
		}
	}
	j.set("queue", q)
	c.sendJSON(j)
}

// stepDownloads finishes the running download, as PodcastManager does when
// ffmpeg is done, and starts the next: one step for each API request, so a
// download is seen running by the requests in between. The episode is
// PodcastEpisode.createFromRssPodcastEpisode with the probed file. Callers
// hold s.mu.
func (s *Server) stepDownloads() {
	st := &s.pods
	if st.current == nil || st.held {
		return
	}
	d := st.current
	st.current = nil
	s.dbWrite() // the finished download's episode is created
	if len(st.queue) > 0 {
		next := st.queue[0]
		st.queue = st.queue[1:]
		next.startedAt = s.now().UnixMilli()
		st.current = &next
	}
	li := s.item(d.itemID)
	if li == nil || li.Podcast == nil {
		return
	}
	now := s.now().UnixMilli()
	name := strings.TrimSpace(sanitizeName(d.ep.Title)) + ".mp3"
	for _, f := range li.LibraryFiles {
		if f.Metadata.Filename == name {
			name = strings.TrimSuffix(name, ".mp3") + " (" + d.id + ").mp3"
		}
	}
	var size int64
	fmt.Sscan(d.ep.EnclosureLength, &size)
	if size == 0 {
		size = int64(d.ep.DurationSeconds*128000/8) + 2048
	}
	meta := FileMetadata{Filename: name, Ext: ".mp3", Path: path.Join(li.Path, name), RelPath: name, Size: size, MtimeMs: now, CtimeMs: now, BirthtimeMs: now}
	af := AudioFile{Index: 1, Ino: fmt.Sprint(now) + d.id[:4], Metadata: meta, AddedAt: now, UpdatedAt: now,
		Format: "MP2/3 (MPEG audio layer 2/3)", Duration: d.ep.DurationSeconds, BitRate: 128000, Codec: "mp3", TimeBase: "1/14112000",
		Channels: 2, ChannelLayout: "stereo", Chapters: []Chapter{}, MimeType: "audio/mpeg",
		MetaTags: map[string]string{"tagTitle": d.ep.Title, "tagAlbum": li.Podcast.Title}}
	var published int64
	if t, err := time.Parse(time.RFC1123Z, d.ep.PubDate); err == nil {
		published = t.UnixMilli()
	}
	var encSize int64
	fmt.Sscan(d.ep.EnclosureLength, &encSize)
	li.Podcast.Episodes = append(li.Podcast.Episodes, Episode{
		ID: s.newID(), Index: len(li.Podcast.Episodes) + 1, Season: d.ep.Season, Episode: d.ep.Episode, EpisodeType: "full",
		Title: d.ep.Title, Subtitle: d.ep.Subtitle, Description: d.ep.Description, PubDate: d.ep.PubDate,
		EnclosureURL: d.ep.EnclosureURL, EnclosureType: d.ep.EnclosureType, EnclosureSize: encSize, GUID: d.ep.GUID,
		PublishedAt: published, AudioFile: af, Chapters: []Chapter{}, AddedAt: now, UpdatedAt: now,
	})
	li.LibraryFiles = append(li.LibraryFiles, LibraryFile{Ino: af.Ino, Metadata: meta, AddedAt: now, UpdatedAt: now, FileType: "audio"})
	// scanAddPodcastEpisodeAudioFile recounts the item's size from its
	// files (removeEpisode does not).
	li.Size = 0
	for _, f := range li.LibraryFiles {
		li.Size += f.Metadata.Size
	}
}

// sanitizeName drops the characters Audiobookshelf's sanitizeFilename drops.
func sanitizeName(s string) string {
	s = strings.Replace(s, ":", " - ", 1)
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune(`/?<>\:*|"`, r) || r < 0x20 || (r >= 0x80 && r <= 0x9f) {
			return -1
		}
		return r
	}, s)
}

// DELETE /api/podcasts/:id/episode/:episodeId: PodcastController.removeEpisode.
func hPodcastEpisodeDelete(c *ctx) {
	li := c.li
	idx := -1
	for i, ep := range li.Podcast.Episodes {
		if ep.ID == c.params["episodeId"] {
			idx = i
		}
	}
	if idx < 0 {
		c.sendStatus(http.StatusNotFound)
		return
	}
	ep := li.Podcast.Episodes[idx]
	li.Podcast.Episodes = append(li.Podcast.Episodes[:idx:idx], li.Podcast.Episodes[idx+1:]...)
	if v, _ := c.query("hard"); v == "1" {
		c.s.data.Podcasts.DeletedFiles = append(c.s.data.Podcasts.DeletedFiles, ep.AudioFile.Metadata.Path)
	}
	// Playlist.removeMediaItemsFromPlaylists: every user's playlists; one
	// left without entries is deleted.
	kept := c.s.data.Playlists[:0]
	for _, p := range c.s.data.Playlists {
		n := len(p.Items)
		items := p.Items[:0:0]
		for _, it := range p.Items {
			if it.EpisodeID != ep.ID {
				items = append(items, it)
			}
		}
		p.Items = items
		if n > 0 && len(items) == 0 {
			continue
		}
		kept = append(kept, p)
	}
	c.s.data.Playlists = kept
	// Every user's media progress of the episode.
	for i := range c.s.data.Users {
		u := &c.s.data.Users[i]
		mps := u.MediaProgress[:0]
		for _, mp := range u.MediaProgress {
			if mp.MediaItemID != ep.ID {
				mps = append(mps, mp)
			}
		}
		u.MediaProgress = mps
	}
	lfs := li.LibraryFiles[:0]
	for _, f := range li.LibraryFiles {
		if f.Ino != ep.AudioFile.Ino {
			lfs = append(lfs, f)
		}
	}
	li.LibraryFiles = lfs
	c.sendJSON(c.s.itemOld(li, viewOpts{}))
}

// DeletedFiles are the audio files a hard episode delete removed.
func (s *Server) DeletedFiles() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string{}, s.data.Podcasts.DeletedFiles...)
}

// Downloads is the download queue: the running download first, as
// "libraryItemId title".
func (s *Server) Downloads() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	if s.pods.current != nil {
		out = append(out, s.pods.current.itemID+" "+s.pods.current.ep.Title)
	}
	for _, q := range s.pods.queue {
		out = append(out, q.itemID+" "+q.ep.Title)
	}
	return out
}

// Sample feeds: the two sample podcasts' feeds carry their episodes, and
// Tiny Things' three newer ones the library lacks (Orbital is up to date);
// a third feed is not subscribed to.
const (
	FeedTinyThings = "https://feeds.example.com/tiny-things.xml"
	FeedOrbital    = "https://feeds.example.com/orbital.xml"
	FeedNightShift = "https://feeds.example.com/night-shift.xml"
)

func samplePodcastWorld(d *Data) PodcastWorld {
	w := PodcastWorld{Feeds: map[string]Feed{}}
	for i := range d.Items {
		li := &d.Items[i]
		if li.Podcast == nil {
			continue
		}
		p := li.Podcast
		f := Feed{Title: p.Title, Author: p.Author, Description: "<p>" + p.Description + "</p>", Language: p.Language,
			Explicit: "false", Image: p.ImageURL, Type: p.Type, Link: p.ITunesPageURL, Categories: p.Genres}
		eps := append([]Episode{}, p.Episodes...)
		sort.SliceStable(eps, func(a, b int) bool { return eps[a].PublishedAt > eps[b].PublishedAt })
		key := strings.TrimSuffix(path.Base(p.FeedURL), ".xml")
		last := eps[0].PublishedAt
		for n := 3; n >= 1 && key == "tiny-things"; n-- { // newer episodes, newest first
			pub := time.UnixMilli(last).Add(time.Duration(n) * 7 * 24 * time.Hour).UTC()
			k := fmt.Sprintf("new%d", n)
			f.Episodes = append(f.Episodes, FeedEpisode{Title: fmt.Sprintf("%s: Bonus %d", p.Title, n), Description: "<p>A new episode.</p>",
				PubDate: pub.Format(time.RFC1123Z), GUID: "urn:standin:" + key + ":" + k, Duration: "40:00", DurationSeconds: 2400,
				EnclosureURL: "https://media.example.com/" + key + "/" + k + ".mp3", EnclosureType: "audio/mpeg", EnclosureLength: "38402048"})
		}
		for _, e := range eps {
			f.Episodes = append(f.Episodes, FeedEpisode{Title: e.Title, Subtitle: e.Subtitle, Description: e.Description, PubDate: e.PubDate,
				Season: e.Season, Episode: e.Episode, GUID: e.GUID, DurationSeconds: e.AudioFile.Duration,
				EnclosureURL: e.EnclosureURL, EnclosureType: e.EnclosureType, EnclosureLength: fmt.Sprint(e.EnclosureSize)})
		}
		w.Feeds[p.FeedURL] = f
		w.Search = append(w.Search, PodcastSearchResult{ID: 1500000000 + int64(len(p.Title)), ArtistID: 900000 + int64(i), Title: p.Title,
			ArtistName: p.Author, Description: p.Description, ReleaseDate: p.ReleaseDate, Cover: p.ImageURL, FeedURL: p.FeedURL,
			PageURL: p.ITunesPageURL, Genres: append([]string{"Podcasts"}, p.Genres...), TrackCount: len(f.Episodes)})
	}
	night := Feed{Title: "Night Shift: Stories After Dark", Author: "Lantern Audio", Description: "<p>Short stories read after midnight.</p>",
		Language: "en", Explicit: "false", Image: "https://media.example.com/night-shift/cover.jpg", Type: "episodic",
		Categories: []string{"Fiction"}}
	for n := 1; n <= 4; n++ {
		pub := time.Date(2025, 12, 1+7*(4-n), 23, 0, 0, 0, time.UTC)
		night.Episodes = append(night.Episodes, FeedEpisode{Title: fmt.Sprintf("Story %d", 5-n), Description: "<p>A story.</p>",
			PubDate: pub.Format(time.RFC1123Z), GUID: fmt.Sprintf("night-shift-%d", 5-n), Duration: "00:25:00", DurationSeconds: 1500,
			EnclosureURL: fmt.Sprintf("https://media.example.com/night-shift/%d.mp3", 5-n), EnclosureType: "audio/mpeg", EnclosureLength: "24002048"})
	}
	w.Feeds[FeedNightShift] = night
	w.Search = append(w.Search, PodcastSearchResult{ID: 1600000001, Title: night.Title, ArtistName: night.Author,
		Description: night.Description, ReleaseDate: "2025-12-22T23:00:00Z", Cover: night.Image, FeedURL: FeedNightShift,
		PageURL: "https://podcasts.example.com/night-shift", Genres: []string{"Podcasts", "Fiction"}, TrackCount: 4})
	return w
}

// DELETE /api/items/:id: LibraryItemController.delete with
// ApiRouter.handleDeleteLibraryItem. Every user's progress of the item's
// media (a podcast's episodes, a book) goes, the media leaves every
// playlist (one left without entries is deleted) and a book every
// collection, the item goes with its episodes; a book's authors and series
// left without a book are removed. hard=1 (compared with ==) removes the
// folder from disk; without it the folder stays there, held by no item.
func hItemDelete(c *ctx) {
	li := c.li
	mediaIDs := map[string]bool{}
	if li.Podcast != nil {
		for _, ep := range li.Podcast.Episodes {
			mediaIDs[ep.ID] = true
		}
	} else if li.Book != nil {
		mediaIDs[li.Book.ID] = true
	}
	for i := range c.s.data.Users {
		u := &c.s.data.Users[i]
		u.MediaProgress = slices.DeleteFunc(u.MediaProgress, func(mp MediaProgress) bool { return mediaIDs[mp.MediaItemID] })
	}
	kept := c.s.data.Playlists[:0]
	for _, p := range c.s.data.Playlists {
		n := len(p.Items)
		p.Items = slices.DeleteFunc(slices.Clone(p.Items), func(e PlaylistItem) bool {
			if e.EpisodeID != "" {
				return mediaIDs[e.EpisodeID]
			}
			return li.Book != nil && e.LibraryItemID == li.ID
		})
		if n > 0 && len(p.Items) == 0 {
			continue
		}
		kept = append(kept, p)
	}
	c.s.data.Playlists = kept
	var authors []string
	var series []string
	if li.Book != nil {
		authors = append(authors, li.Book.AuthorIDs...)
		for _, ss := range li.Book.Series {
			series = append(series, ss.SeriesID)
		}
		for i := range c.s.data.Collections {
			col := &c.s.data.Collections[i]
			col.Books = slices.DeleteFunc(slices.Clone(col.Books), func(id string) bool { return id == li.ID })
		}
	}
	folder := li.Path
	id, libID := li.ID, li.LibraryID
	c.s.data.Items = slices.DeleteFunc(c.s.data.Items, func(it LibraryItem) bool { return it.ID == id })
	if v, _ := c.query("hard"); looseEqual(v, 1.0) {
		c.s.data.Podcasts.DeletedFiles = append(c.s.data.Podcasts.DeletedFiles, folder)
	} else {
		c.s.data.Podcasts.Folders = append(c.s.data.Podcasts.Folders, folder)
	}
	for _, a := range authors {
		if !c.s.authorHasBooks(a) {
			c.s.data.Authors = slices.DeleteFunc(c.s.data.Authors, func(x Author) bool { return x.ID == a })
			c.s.removeFromFilterCopies("authors", a)
		}
	}
	for _, se := range series {
		if !c.s.seriesHasBooks(se) {
			c.s.data.Series = slices.DeleteFunc(c.s.data.Series, func(x Series) bool { return x.ID == se })
			c.s.removeFromFilterCopies("series", se)
		}
	}
	c.s.resetIssuesInFilterCopy(libID)
	c.sendStatus(http.StatusOK)
}

// GET /api/filesystem: FileSystemController.getPaths. Admins only; path
// must be absolute and exist on disk (a library folder, an item's folder
// or file, or a folder an item left behind), else 400; the answer is the
// folders directly inside it.
func hFilesystem(c *ctx) {
	if !c.user.isAdminOrUp() {
		c.sendStatus(http.StatusForbidden)
		return
	}
	p, _ := c.query("path")
	dirs := map[string]bool{}
	files := map[string]bool{}
	for _, lib := range c.s.data.Libraries {
		for _, f := range lib.Folders {
			dirs[f.FullPath] = true
		}
	}
	for _, it := range c.s.data.Items {
		if it.IsFile {
			files[it.Path] = true
		} else {
			dirs[it.Path] = true
		}
		for _, f := range it.LibraryFiles {
			files[f.Metadata.Path] = true
		}
	}
	for _, f := range c.s.data.Podcasts.Folders {
		dirs[f] = true
	}
	// Every folder above one that exists exists.
	for d := range dirs {
		for x := path.Dir(d); x != "/" && x != "."; x = path.Dir(x) {
			dirs[x] = true
		}
	}
	if p != "" && (!path.IsAbs(p) || (!dirs[path.Clean(p)] && !files[path.Clean(p)])) {
		c.send(http.StatusBadRequest, `Invalid "path" query string`)
		return
	}
	level := 0
	if v, ok := c.query("level"); ok {
		fmt.Sscan(v, &level)
	}
	base := path.Clean(p)
	if p == "" {
		base = "/"
	}
	out := []jobj{}
	var names []string
	for d := range dirs {
		if path.Dir(d) == base && d != base {
			names = append(names, d)
		}
	}
	sort.Strings(names)
	for _, d := range names {
		out = append(out, jobj{{"path", d}, {"dirname", path.Base(d)}, {"level", level}})
	}
	c.sendJSON(jobj{{"posix", true}, {"directories", out}})
}

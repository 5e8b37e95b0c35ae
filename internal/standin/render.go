package standin

// JSON renderers. Each mirrors an upstream model method (named in its
// comment) and keeps the key order that method produces.

import (
	"encoding/json"
	"sort"
	"strings"
)

// ---- lookups (callers hold s.mu) ----

func (s *Server) library(id string) *Library {
	for i := range s.data.Libraries {
		if s.data.Libraries[i].ID == id {
			return &s.data.Libraries[i]
		}
	}
	return nil
}

func (s *Server) item(id string) *LibraryItem {
	if i, ok := s.itemIdx.find(id, len(s.data.Items), func(i int) string { return s.data.Items[i].ID }); ok {
		return &s.data.Items[i]
	}
	return nil
}

func (s *Server) itemByBookID(bookID string) *LibraryItem {
	for i := range s.data.Items {
		if b := s.data.Items[i].Book; b != nil && b.ID == bookID {
			return &s.data.Items[i]
		}
	}
	return nil
}

func (s *Server) author(id string) *Author {
	if i, ok := s.authorIdx.find(id, len(s.data.Authors), func(i int) string { return s.data.Authors[i].ID }); ok {
		return &s.data.Authors[i]
	}
	return nil
}

// index finds a record by id in a slice of the state without a scan: the
// position it remembers is checked on every lookup (the state changes
// under it), and the index is made again when it is wrong, so a lookup
// finds what a scan would, the first record with that id. Callers hold
// s.mu.
type index struct {
	pos map[string]int
	n   int
}

func (x *index) find(id string, n int, idAt func(int) string) (int, bool) {
	if x.pos != nil && x.n == n {
		if i, ok := x.pos[id]; ok && i < n && idAt(i) == id {
			return i, true
		} else if !ok {
			// Not indexed: either absent, or the state changed with the
			// same length; a scan tells, and the index is made again
			// only when it was stale.
			for j := 0; j < n; j++ {
				if idAt(j) == id {
					x.pos = nil
					return x.find(id, n, idAt)
				}
			}
			return 0, false
		}
	}
	x.pos, x.n = make(map[string]int, n), n
	for j := n - 1; j >= 0; j-- {
		x.pos[idAt(j)] = j
	}
	i, ok := x.pos[id]
	return i, ok
}

func (s *Server) seriesByID(id string) *Series {
	for i := range s.data.Series {
		if s.data.Series[i].ID == id {
			return &s.data.Series[i]
		}
	}
	return nil
}

// episode finds an episode anywhere, with the podcast item that owns it.
func (s *Server) episode(id string) (*LibraryItem, *Episode) {
	for i := range s.data.Items {
		li := &s.data.Items[i]
		if li.Podcast == nil {
			continue
		}
		for j := range li.Podcast.Episodes {
			if li.Podcast.Episodes[j].ID == id {
				return li, &li.Podcast.Episodes[j]
			}
		}
	}
	return nil, nil
}

func (s *Server) collectionIndex(id string) int {
	for i := range s.data.Collections {
		if s.data.Collections[i].ID == id {
			return i
		}
	}
	return -1
}

func (s *Server) playlistIndex(id string) int {
	for i := range s.data.Playlists {
		if s.data.Playlists[i].ID == id {
			return i
		}
	}
	return -1
}

// ---- small value helpers ----

// ns renders a nullable string column.
func ns(v string) any {
	if v == "" {
		return nil
	}
	return v
}

// nint renders a nullable integer column.
func nint(v int) any {
	if v == 0 {
		return nil
	}
	return v
}

// nms renders a nullable date column as `date?.valueOf() || null`.
func nms(v int64) any {
	if v == 0 {
		return nil
	}
	return v
}

// ums renders `date?.valueOf()`: undefined (dropped) when null.
func ums(v int64) any {
	if v == 0 {
		return undefined
	}
	return v
}

func nstrp(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

func strs(v []string) []string {
	if v == nil {
		return []string{}
	}
	return append([]string{}, v...)
}

// ---- media views ----

type seriesView struct {
	s   *Series
	seq string
}

// bookView is a book with the associations a query loaded: upstream some
// queries load no authors or series (then authorName/seriesName are "").
type bookView struct {
	li      *LibraryItem
	b       *Book
	authors []*Author
	series  []seriesView
}

// viewOpts says which associations a query loaded.
type viewOpts struct {
	noAuthors  bool // book.authors = []
	noSeries   bool // book.series = []
	noEpisodes bool // podcast loaded without podcastEpisodes
}

func (s *Server) bookView(li *LibraryItem, o viewOpts) bookView {
	v := bookView{li: li, b: li.Book}
	if !o.noAuthors {
		for _, id := range li.Book.AuthorIDs {
			if a := s.author(id); a != nil {
				v.authors = append(v.authors, a)
			}
		}
	}
	if !o.noSeries {
		for _, ss := range li.Book.Series {
			if se := s.seriesByID(ss.SeriesID); se != nil {
				v.series = append(v.series, seriesView{se, ss.Sequence})
			}
		}
	}
	return v
}

// authorName is Book.authorName.
func (v bookView) authorName() string {
	names := make([]string, len(v.authors))
	for i, a := range v.authors {
		names[i] = a.Name
	}
	return strings.Join(names, ", ")
}

// authorNameLF is Book.authorNameLF.
func (v bookView) authorNameLF() string {
	names := make([]string, len(v.authors))
	for i, a := range v.authors {
		names[i] = nameToLastFirst(a.Name)
	}
	return strings.Join(names, ", ")
}

// seriesName is Book.seriesName.
func (v bookView) seriesName() string {
	parts := make([]string, len(v.series))
	for i, se := range v.series {
		if se.seq == "" {
			parts[i] = se.s.Name
		} else {
			parts[i] = se.s.Name + " #" + se.seq
		}
	}
	return strings.Join(parts, ", ")
}

func (v bookView) narratorName() string { return strings.Join(v.b.Narrators, ", ") }

// bookSize is Book.size: audio files plus the ebook file.
func bookSize(b *Book) int64 {
	var t int64
	for _, af := range b.AudioFiles {
		t += af.Metadata.Size
	}
	if b.EbookFile != nil {
		t += b.EbookFile.Metadata.Size
	}
	return t
}

func includedAudioFiles(b *Book) []AudioFile {
	var out []AudioFile
	for _, af := range b.AudioFiles {
		if !af.Exclude {
			out = append(out, af)
		}
	}
	return out
}

// bookOldMetadata is Book.oldMetadataToJSON.
func (v bookView) oldMetadata() jobj {
	authors := []jobj{}
	for _, a := range v.authors {
		authors = append(authors, jobj{{"id", a.ID}, {"name", a.Name}})
	}
	series := []jobj{}
	for _, se := range v.series {
		series = append(series, jobj{{"id", se.s.ID}, {"name", se.s.Name}, {"sequence", ns(se.seq)}})
	}
	b := v.b
	return jobj{
		{"title", b.Title},
		{"subtitle", ns(b.Subtitle)},
		{"authors", authors},
		{"narrators", strs(b.Narrators)},
		{"series", series},
		{"genres", strs(b.Genres)},
		{"publishedYear", ns(b.PublishedYear)},
		{"publishedDate", ns(b.PublishedDate)},
		{"publisher", ns(b.Publisher)},
		{"description", ns(b.Description)},
		{"isbn", ns(b.ISBN)},
		{"asin", ns(b.ASIN)},
		{"language", ns(b.Language)},
		{"explicit", b.Explicit},
		{"abridged", b.Abridged},
	}
}

// minifiedMetadata is Book.oldMetadataToJSONMinified.
func (v bookView) minifiedMetadata() jobj {
	b := v.b
	return jobj{
		{"title", b.Title},
		{"titleIgnorePrefix", titlePrefixAtEnd(b.Title)},
		{"subtitle", ns(b.Subtitle)},
		{"authorName", v.authorName()},
		{"authorNameLF", v.authorNameLF()},
		{"narratorName", v.narratorName()},
		{"seriesName", v.seriesName()},
		{"genres", strs(b.Genres)},
		{"publishedYear", ns(b.PublishedYear)},
		{"publishedDate", ns(b.PublishedDate)},
		{"publisher", ns(b.Publisher)},
		{"description", ns(b.Description)},
		{"isbn", ns(b.ISBN)},
		{"asin", ns(b.ASIN)},
		{"language", ns(b.Language)},
		{"explicit", b.Explicit},
		{"abridged", b.Abridged},
	}
}

// expandedMetadata is Book.oldMetadataToJSONExpanded.
func (v bookView) expandedMetadata() jobj {
	j := v.oldMetadata()
	j.set("titleIgnorePrefix", titlePrefixAtEnd(v.b.Title))
	j.set("authorName", v.authorName())
	j.set("authorNameLF", v.authorNameLF())
	j.set("narratorName", v.narratorName())
	j.set("seriesName", v.seriesName())
	if v.b.Description != "" {
		j.set("descriptionPlain", stripAllTags(v.b.Description))
	} else {
		j.set("descriptionPlain", nil)
	}
	return j
}

// old is Book.toOldJSON.
func (v bookView) old() jobj {
	b := v.b
	return jobj{
		{"id", b.ID},
		{"libraryItemId", v.li.ID},
		{"metadata", v.oldMetadata()},
		{"coverPath", ns(b.CoverPath)},
		{"tags", strs(b.Tags)},
		{"audioFiles", audioFilesJSON(b.AudioFiles)},
		{"chapters", chaptersJSON(b.Chapters)},
		{"ebookFile", ebookJSON(b.EbookFile)},
	}
}

// minified is Book.toOldJSONMinified.
func (v bookView) minified() jobj {
	b := v.b
	var ebookFormat any = undefined
	if b.EbookFile != nil {
		ebookFormat = b.EbookFile.EbookFormat
	}
	return jobj{
		{"id", b.ID},
		{"metadata", v.minifiedMetadata()},
		{"coverPath", ns(b.CoverPath)},
		{"tags", strs(b.Tags)},
		{"numTracks", len(includedAudioFiles(b))},
		{"numAudioFiles", len(b.AudioFiles)},
		{"numChapters", len(b.Chapters)},
		{"duration", b.Duration},
		{"size", bookSize(b)},
		{"ebookFormat", ebookFormat},
	}
}

// expanded is Book.toOldJSONExpanded.
func (v bookView) expanded() jobj {
	j := v.minified()
	j.set("libraryItemId", v.li.ID)
	j.set("metadata", v.expandedMetadata())
	j.set("audioFiles", audioFilesJSON(v.b.AudioFiles))
	j.set("chapters", chaptersJSON(v.b.Chapters))
	j.set("ebookFile", ebookJSON(v.b.EbookFile))
	j.set("tracks", tracksJSON(v.li.ID, v.b))
	return j
}

// tracksJSON is Book.getTracklist: included audio files with title,
// startOffset and contentUrl.
func tracksJSON(itemID string, b *Book) []jobj {
	out := []jobj{}
	var offset float64
	for _, af := range includedAudioFiles(b) {
		t := audioFileJSON(af)
		t.set("title", af.Metadata.Filename)
		t.set("startOffset", offset)
		t.set("contentUrl", "/api/items/"+itemID+"/file/"+af.Ino)
		offset += af.Duration
		out = append(out, t)
	}
	return out
}

func chaptersJSON(cs []Chapter) []jobj {
	out := []jobj{}
	for _, c := range cs {
		out = append(out, jobj{{"id", c.ID}, {"start", c.Start}, {"end", c.End}, {"title", c.Title}})
	}
	return out
}

func fileMetadataJSON(m FileMetadata) jobj {
	return jobj{
		{"filename", m.Filename},
		{"ext", m.Ext},
		{"path", m.Path},
		{"relPath", m.RelPath},
		{"size", m.Size},
		{"mtimeMs", m.MtimeMs},
		{"ctimeMs", m.CtimeMs},
		{"birthtimeMs", m.BirthtimeMs},
	}
}

func ebookJSON(e *EbookFile) any {
	if e == nil {
		return nil
	}
	return jobj{{"ino", e.Ino}, {"metadata", fileMetadataJSON(e.Metadata)}, {"ebookFormat", e.EbookFormat}, {"addedAt", e.AddedAt}, {"updatedAt", e.UpdatedAt}}
}

// metaTagOrder is the field order of server/objects/metadata/AudioMetaTags.js.
var metaTagOrder = []string{
	"tagAlbum", "tagAlbumSort", "tagArtist", "tagArtistSort", "tagGenre", "tagTitle", "tagTitleSort",
	"tagSeries", "tagSeriesPart", "tagGrouping", "tagTrack", "tagDisc", "tagSubtitle", "tagAlbumArtist",
	"tagDate", "tagComposer", "tagPublisher", "tagComment", "tagDescription", "tagEncoder", "tagEncodedBy",
	"tagIsbn", "tagLanguage", "tagASIN", "tagItunesId", "tagPodcastType", "tagEpisodeType",
	"tagOverdriveMediaMarker", "tagOriginalYear", "tagReleaseCountry", "tagReleaseType", "tagReleaseStatus",
	"tagISRC", "tagMusicBrainzTrackId", "tagMusicBrainzAlbumId", "tagMusicBrainzAlbumArtistId", "tagMusicBrainzArtistId",
}

// metaTagsJSON is AudioMetaTags.toJSON: only the tags that are set.
func metaTagsJSON(tags map[string]string) jobj {
	j := jobj{}
	seen := map[string]bool{}
	for _, k := range metaTagOrder {
		if v := tags[k]; v != "" {
			j = append(j, kv{k, v})
		}
		seen[k] = true
	}
	var extra []string
	for k, v := range tags {
		if !seen[k] && v != "" && strings.HasPrefix(k, "tag") {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	for _, k := range extra {
		j = append(j, kv{k, tags[k]})
	}
	return j
}

// audioFileJSON is AudioFile.toJSON (the shape stored in books.audioFiles).
func audioFileJSON(af AudioFile) jobj {
	return jobj{
		{"index", af.Index},
		{"ino", af.Ino},
		{"metadata", fileMetadataJSON(af.Metadata)},
		{"addedAt", af.AddedAt},
		{"updatedAt", af.UpdatedAt},
		{"trackNumFromMeta", nint(af.TrackNumFromMeta)},
		{"discNumFromMeta", nint(af.DiscNumFromMeta)},
		{"trackNumFromFilename", nint(af.TrackNumFromFilename)},
		{"discNumFromFilename", nint(af.DiscNumFromFilename)},
		{"manuallyVerified", af.ManuallyVerified},
		{"exclude", af.Exclude},
		{"error", ns(af.Error)},
		{"format", af.Format},
		{"duration", af.Duration},
		{"bitRate", af.BitRate},
		{"language", ns(af.Language)},
		{"codec", ns(af.Codec)},
		{"timeBase", af.TimeBase},
		{"channels", af.Channels},
		{"channelLayout", af.ChannelLayout},
		{"chapters", chaptersJSON(af.Chapters)},
		{"embeddedCoverArt", ns(af.EmbeddedCoverArt)},
		{"metaTags", metaTagsJSON(af.MetaTags)},
		{"mimeType", af.MimeType},
	}
}

func audioFilesJSON(afs []AudioFile) []jobj {
	out := []jobj{}
	for _, af := range afs {
		out = append(out, audioFileJSON(af))
	}
	return out
}

func libraryFilesJSON(lfs []LibraryFile) []jobj {
	out := []jobj{}
	for _, lf := range lfs {
		var sup any
		if lf.IsSupplementary != nil {
			sup = *lf.IsSupplementary
		}
		out = append(out, jobj{{"ino", lf.Ino}, {"metadata", fileMetadataJSON(lf.Metadata)}, {"isSupplementary", sup},
			{"addedAt", lf.AddedAt}, {"updatedAt", lf.UpdatedAt}, {"fileType", lf.FileType}})
	}
	return out
}

// ---- podcasts ----

type podcastView struct {
	li       *LibraryItem
	p        *Podcast
	episodes bool // podcastEpisodes loaded
}

func (v podcastView) eps() []Episode {
	if !v.episodes {
		return nil
	}
	return v.p.Episodes
}

// oldMetadata is Podcast.oldMetadataToJSON.
func (v podcastView) oldMetadata() jobj {
	p := v.p
	return jobj{
		{"title", p.Title},
		{"author", ns(p.Author)},
		{"description", ns(p.Description)},
		{"releaseDate", ns(p.ReleaseDate)},
		{"genres", strs(p.Genres)},
		{"feedUrl", ns(p.FeedURL)},
		{"imageUrl", ns(p.ImageURL)},
		{"itunesPageUrl", ns(p.ITunesPageURL)},
		{"itunesId", ns(p.ITunesID)},
		{"itunesArtistId", ns(p.ITunesArtistID)},
		{"explicit", p.Explicit},
		{"language", ns(p.Language)},
		{"type", ns(p.Type)},
	}
}

// expandedMetadata is Podcast.oldMetadataToJSONExpanded.
func (v podcastView) expandedMetadata() jobj {
	j := v.oldMetadata()
	j.set("titleIgnorePrefix", titlePrefixAtEnd(v.p.Title))
	return j
}

func podcastSize(eps []Episode) int64 {
	var t int64
	for _, e := range eps {
		t += e.AudioFile.Metadata.Size
	}
	return t
}

// old is Podcast.toOldJSON.
func (v podcastView) old() jobj {
	p := v.p
	eps := []jobj{}
	for _, e := range v.eps() {
		eps = append(eps, episodeOld(v.li.ID, p.ID, e))
	}
	return jobj{
		{"id", p.ID},
		{"libraryItemId", v.li.ID},
		{"metadata", v.oldMetadata()},
		{"coverPath", ns(p.CoverPath)},
		{"tags", strs(p.Tags)},
		{"episodes", eps},
		{"autoDownloadEpisodes", p.AutoDownloadEpisodes},
		{"autoDownloadSchedule", ns(p.AutoDownloadSchedule)},
		{"lastEpisodeCheck", nms(p.LastEpisodeCheck)},
		{"maxEpisodesToKeep", p.MaxEpisodesToKeep},
		{"maxNewEpisodesToDownload", p.MaxNewEpisodesToDownload},
	}
}

// minified is Podcast.toOldJSONMinified.
func (v podcastView) minified() jobj {
	p := v.p
	return jobj{
		{"id", p.ID},
		{"metadata", v.expandedMetadata()},
		{"coverPath", ns(p.CoverPath)},
		{"tags", strs(p.Tags)},
		{"numEpisodes", len(v.eps())},
		{"autoDownloadEpisodes", p.AutoDownloadEpisodes},
		{"autoDownloadSchedule", ns(p.AutoDownloadSchedule)},
		{"lastEpisodeCheck", nms(p.LastEpisodeCheck)},
		{"maxEpisodesToKeep", p.MaxEpisodesToKeep},
		{"maxNewEpisodesToDownload", p.MaxNewEpisodesToDownload},
		{"size", podcastSize(v.eps())},
	}
}

// expanded is Podcast.toOldJSONExpanded.
func (v podcastView) expanded() jobj {
	j := v.minified()
	j.set("libraryItemId", v.li.ID)
	eps := []jobj{}
	for _, e := range v.eps() {
		eps = append(eps, episodeExpanded(v.li.ID, v.p.ID, e))
	}
	j.set("episodes", eps)
	return j
}

// episodeOld is PodcastEpisode.toOldJSON.
func episodeOld(itemID, podcastID string, e Episode) jobj {
	var enclosure any
	if e.EnclosureURL != "" {
		var length any
		if e.EnclosureSize != 0 {
			length = jsNumberToString(float64(e.EnclosureSize))
		}
		enclosure = jobj{{"url", e.EnclosureURL}, {"type", ns(e.EnclosureType)}, {"length", length}}
	}
	return jobj{
		{"libraryItemId", itemID},
		{"podcastId", podcastID},
		{"id", e.ID},
		{"oldEpisodeId", nil},
		{"index", nint(e.Index)},
		{"season", ns(e.Season)},
		{"episode", ns(e.Episode)},
		{"episodeType", ns(e.EpisodeType)},
		{"title", e.Title},
		{"subtitle", ns(e.Subtitle)},
		{"description", ns(e.Description)},
		{"enclosure", enclosure},
		{"guid", ns(e.GUID)},
		{"pubDate", ns(e.PubDate)},
		{"chapters", chaptersJSON(e.Chapters)},
		{"audioFile", audioFileJSON(e.AudioFile)},
		{"publishedAt", nms(e.PublishedAt)},
		{"addedAt", e.AddedAt},
		{"updatedAt", e.UpdatedAt},
	}
}

// episodeExpanded is PodcastEpisode.toOldJSONExpanded (audioTrack, size, duration).
func episodeExpanded(itemID, podcastID string, e Episode) jobj {
	j := episodeOld(itemID, podcastID, e)
	t := audioFileJSON(e.AudioFile)
	t.set("startOffset", 0)
	t.set("title", e.AudioFile.Metadata.Filename)
	t.set("index", 1)
	t.set("contentUrl", "/api/items/"+itemID+"/file/"+e.AudioFile.Ino)
	j.set("audioTrack", t)
	j.set("size", e.AudioFile.Metadata.Size)
	j.set("duration", e.AudioFile.Duration)
	return j
}

// ---- library items ----

func (s *Server) mediaOld(li *LibraryItem, o viewOpts) jobj {
	if li.Book != nil {
		return s.bookView(li, o).old()
	}
	return podcastView{li, li.Podcast, !o.noEpisodes}.old()
}

func (s *Server) mediaMinified(li *LibraryItem, o viewOpts) jobj {
	if li.Book != nil {
		return s.bookView(li, o).minified()
	}
	return podcastView{li, li.Podcast, !o.noEpisodes}.minified()
}

func (s *Server) mediaExpanded(li *LibraryItem, o viewOpts) jobj {
	if li.Book != nil {
		return s.bookView(li, o).expanded()
	}
	return podcastView{li, li.Podcast, !o.noEpisodes}.expanded()
}

// itemOld is LibraryItem.toOldJSON.
func (s *Server) itemOld(li *LibraryItem, o viewOpts) jobj {
	return jobj{
		{"id", li.ID},
		{"ino", li.Ino},
		{"oldLibraryItemId", nil},
		{"libraryId", li.LibraryID},
		{"folderId", li.FolderID},
		{"path", li.Path},
		{"relPath", li.RelPath},
		{"isFile", li.IsFile},
		{"mtimeMs", ums(li.MtimeMs)},
		{"ctimeMs", ums(li.CtimeMs)},
		{"birthtimeMs", ums(li.BirthtimeMs)},
		{"addedAt", li.AddedAt},
		{"updatedAt", li.UpdatedAt},
		{"lastScan", ums(li.LastScan)},
		{"scanVersion", ns(li.ScanVersion)},
		{"isMissing", li.IsMissing},
		{"isInvalid", li.IsInvalid},
		{"mediaType", li.MediaType},
		{"media", s.mediaOld(li, o)},
		{"libraryFiles", libraryFilesJSON(li.LibraryFiles)},
	}
}

// itemMinified is LibraryItem.toOldJSONMinified.
func (s *Server) itemMinified(li *LibraryItem, o viewOpts) jobj {
	return jobj{
		{"id", li.ID},
		{"ino", li.Ino},
		{"oldLibraryItemId", nil},
		{"libraryId", li.LibraryID},
		{"folderId", li.FolderID},
		{"path", li.Path},
		{"relPath", li.RelPath},
		{"isFile", li.IsFile},
		{"mtimeMs", ums(li.MtimeMs)},
		{"ctimeMs", ums(li.CtimeMs)},
		{"birthtimeMs", ums(li.BirthtimeMs)},
		{"addedAt", li.AddedAt},
		{"updatedAt", li.UpdatedAt},
		{"isMissing", li.IsMissing},
		{"isInvalid", li.IsInvalid},
		{"mediaType", li.MediaType},
		{"media", s.mediaMinified(li, o)},
		{"numFiles", len(li.LibraryFiles)},
		{"size", li.Size},
	}
}

// itemExpanded is LibraryItem.toOldJSONExpanded: the minified keys, then
// lastScan, scanVersion, the expanded media and libraryFiles.
func (s *Server) itemExpanded(li *LibraryItem, o viewOpts) jobj {
	j := s.itemMinified(li, o)
	j.set("lastScan", ums(li.LastScan))
	j.set("scanVersion", ns(li.ScanVersion))
	j.set("media", s.mediaExpanded(li, o))
	j.set("libraryFiles", libraryFilesJSON(li.LibraryFiles))
	return j
}

// ---- libraries, authors, series ----

// libraryJSON is Library.toOldJSON.
func libraryJSON(l *Library) jobj {
	folders := []jobj{}
	for _, f := range l.Folders {
		folders = append(folders, jobj{{"id", f.ID}, {"fullPath", f.FullPath}, {"libraryId", l.ID}, {"addedAt", f.AddedAt}})
	}
	st := l.Settings
	var pct any
	if st.MarkAsFinishedPercentComplete != 0 {
		pct = st.MarkAsFinishedPercentComplete
	}
	var settings jobj
	if l.MediaType == "podcast" {
		settings = jobj{
			{"coverAspectRatio", st.CoverAspectRatio},
			{"disableWatcher", st.DisableWatcher},
			{"autoScanCronExpression", ns(st.AutoScanCronExpression)},
			{"podcastSearchRegion", st.PodcastSearchRegion},
			{"markAsFinishedPercentComplete", pct},
			{"markAsFinishedTimeRemaining", st.MarkAsFinishedTimeRemaining},
		}
	} else {
		settings = jobj{
			{"coverAspectRatio", st.CoverAspectRatio},
			{"disableWatcher", st.DisableWatcher},
			{"autoScanCronExpression", ns(st.AutoScanCronExpression)},
			{"skipMatchingMediaWithAsin", st.SkipMatchingMediaWithASIN},
			{"skipMatchingMediaWithIsbn", st.SkipMatchingMediaWithISBN},
			{"audiobooksOnly", st.AudiobooksOnly},
			{"epubsAllowScriptedContent", st.EpubsAllowScriptedContent},
			{"hideSingleBookSeries", st.HideSingleBookSeries},
			{"onlyShowLaterBooksInContinueSeries", st.OnlyShowLaterBooksInContinueSeries},
			{"metadataPrecedence", strs(st.MetadataPrecedence)},
			{"markAsFinishedPercentComplete", pct},
			{"markAsFinishedTimeRemaining", st.MarkAsFinishedTimeRemaining},
		}
	}
	return jobj{
		{"id", l.ID},
		{"name", l.Name},
		{"folders", folders},
		{"displayOrder", l.DisplayOrder},
		{"icon", l.Icon},
		{"mediaType", l.MediaType},
		{"provider", l.Provider},
		{"settings", settings},
		{"lastScan", nms(l.LastScan)},
		{"lastScanVersion", ns(l.LastScanVersion)},
		{"createdAt", l.CreatedAt},
		{"lastUpdate", l.UpdatedAt},
	}
}

// authorJSON is Author.toOldJSON.
func authorJSON(a *Author) jobj {
	return jobj{
		{"id", a.ID},
		{"asin", ns(a.ASIN)},
		{"name", a.Name},
		{"description", ns(a.Description)},
		{"imagePath", ns(a.ImagePath)},
		{"libraryId", a.LibraryID},
		{"addedAt", a.AddedAt},
		{"updatedAt", a.UpdatedAt},
	}
}

// authorExpanded is Author.toOldJSONExpanded(numBooks).
func authorExpanded(a *Author, numBooks int) jobj {
	j := authorJSON(a)
	j.set("numBooks", numBooks)
	return j
}

// seriesJSON is Series.toOldJSON.
func seriesJSON(se *Series) jobj {
	return jobj{
		{"id", se.ID},
		{"name", se.Name},
		{"nameIgnorePrefix", titlePrefixAtEnd(se.Name)},
		{"description", ns(se.Description)},
		{"addedAt", se.AddedAt},
		{"updatedAt", se.UpdatedAt},
		{"libraryId", se.LibraryID},
	}
}

// ---- users, progress, bookmarks, sessions ----

// progressJSON is MediaProgress.getOldMediaProgress.
func progressJSON(userID string, mp *MediaProgress) jobj {
	var loc any
	if mp.EbookLocation != nil {
		loc = *mp.EbookLocation
	}
	return jobj{
		{"id", mp.ID},
		{"userId", userID},
		{"libraryItemId", ns(mp.LibraryItemID)},
		{"episodeId", ns(mp.EpisodeID)},
		{"mediaItemId", mp.MediaItemID},
		{"mediaItemType", mp.MediaItemType},
		{"duration", jsNum(mp.Duration)},
		{"progress", jsNum(mp.Progress)},
		{"currentTime", jsNum(mp.CurrentTime)},
		{"isFinished", mp.IsFinished},
		{"hideFromContinueListening", mp.HideFromContinueListening},
		{"ebookLocation", loc},
		{"ebookProgress", jsNum(mp.EbookProgress)},
		{"lastUpdate", mp.LastUpdate},
		{"startedAt", mp.StartedAt},
		{"finishedAt", nms(mp.FinishedAt)},
	}
}

// bookmarkJSON is the stored AudioBookmarkObject, key order as User.createBookmark builds it.
func bookmarkJSON(b Bookmark) jobj {
	return jobj{{"libraryItemId", b.LibraryItemID}, {"time", b.Time}, {"title", b.Title}, {"createdAt", b.CreatedAt}}
}

// userJSON is User.toOldJSONForBrowser (an API key login leaves isOldToken
// undefined, so it is not sent).
func userJSON(u *User) jobj {
	mps := []jobj{}
	for i := range u.MediaProgress {
		mps = append(mps, progressJSON(u.ID, &u.MediaProgress[i]))
	}
	bms := []jobj{}
	for _, b := range u.Bookmarks {
		bms = append(bms, bookmarkJSON(b))
	}
	p := u.Permissions
	return jobj{
		{"id", u.ID},
		{"username", u.Username},
		{"email", ns(u.Email)},
		{"type", u.Type},
		{"token", ns(u.Token)},
		{"mediaProgress", mps},
		{"seriesHideFromContinueListening", strs(u.SeriesHideFromContinueListening)},
		{"bookmarks", bms},
		{"isActive", u.IsActive},
		{"isLocked", u.IsLocked},
		{"lastSeen", nms(u.LastSeen)},
		{"createdAt", u.CreatedAt},
		{"permissions", jobj{
			{"download", p.Download},
			{"update", p.Update},
			{"delete", p.Delete},
			{"upload", p.Upload},
			{"createEreader", p.CreateEreader},
			{"accessAllLibraries", p.AccessAllLibraries},
			{"accessAllTags", p.AccessAllTags},
			{"accessExplicitContent", p.AccessExplicitContent},
			{"selectedTagsNotAccessible", p.SelectedTagsNotAccessible},
		}},
		{"librariesAccessible", strs(p.LibrariesAccessible)},
		{"itemTagsSelected", strs(p.ItemTagsSelected)},
		{"hasOpenIDLink", false},
	}
}

// sessionMetadata is the session's mediaMetadata snapshot, or the item's
// current metadata (Book/Podcast oldMetadataToJSON) when none was stored.
func (s *Server) sessionMetadata(se *Session) any {
	if se.MediaMetadata != nil {
		return json.RawMessage(se.MediaMetadata)
	}
	li := s.item(se.LibraryItemID)
	switch {
	case li == nil:
		return nil
	case li.Book != nil:
		return s.bookView(li, viewOpts{}).oldMetadata()
	default:
		return podcastView{li, li.Podcast, true}.oldMetadata()
	}
}

// sessionJSON is objects/PlaybackSession.toJSON.
func (s *Server) sessionJSON(se *Session) jobj {
	var device any
	if d := se.DeviceInfo; d != nil {
		dj := jobj{}
		add := func(k, v string) {
			if v != "" {
				dj = append(dj, kv{k, v})
			}
		}
		add("id", d.ID)
		add("userId", d.UserID)
		add("deviceId", d.DeviceID)
		add("ipAddress", d.IPAddress)
		add("browserName", d.BrowserName)
		add("browserVersion", d.BrowserVersion)
		add("osName", d.OSName)
		add("osVersion", d.OSVersion)
		add("deviceType", d.DeviceType)
		add("clientVersion", d.ClientVersion)
		add("manufacturer", d.Manufacturer)
		add("model", d.Model)
		if d.SDKVersion != 0 {
			dj = append(dj, kv{"sdkVersion", d.SDKVersion})
		}
		add("clientName", d.ClientName)
		add("deviceName", d.DeviceName)
		device = dj
	}
	bookID := any(nil)
	if se.EpisodeID == "" {
		if li := s.item(se.LibraryItemID); li != nil && li.Book != nil {
			bookID = li.Book.ID
		}
	}
	return jobj{
		{"id", se.ID},
		{"userId", se.UserID},
		{"libraryId", se.LibraryID},
		{"libraryItemId", ns(se.LibraryItemID)},
		{"bookId", bookID},
		{"episodeId", ns(se.EpisodeID)},
		{"mediaType", se.MediaType},
		{"mediaMetadata", s.sessionMetadata(se)},
		{"chapters", []jobj{}},
		{"displayTitle", se.DisplayTitle},
		{"displayAuthor", se.DisplayAuthor},
		{"coverPath", ns(se.CoverPath)},
		{"duration", se.Duration},
		{"playMethod", se.PlayMethod},
		{"mediaPlayer", se.MediaPlayer},
		{"deviceInfo", device},
		{"serverVersion", se.ServerVersion},
		{"date", se.Date},
		{"dayOfWeek", se.DayOfWeek},
		{"timeListening", se.TimeListening},
		{"startTime", se.StartTime},
		{"currentTime", se.CurrentTime},
		{"startedAt", se.StartedAt},
		{"updatedAt", se.UpdatedAt},
	}
}

// ---- collections and playlists ----

// collectionExpanded is Collection.toOldJSONExpanded: the books as expanded
// library items, in collection order.
func (s *Server) collectionExpanded(c *Collection) jobj {
	books := []jobj{}
	for _, id := range c.Books {
		if li := s.item(id); li != nil && li.Book != nil {
			books = append(books, s.itemExpanded(li, viewOpts{}))
		}
	}
	return jobj{
		{"id", c.ID},
		{"libraryId", c.LibraryID},
		{"name", c.Name},
		{"description", nstrp(c.Description)},
		{"books", books},
		{"lastUpdate", c.LastUpdate},
		{"createdAt", c.CreatedAt},
	}
}

// playlistEntryJSON renders one playlistMediaItem as Playlist.toOldJSONExpanded
// does: a book as an expanded item; an episode expanded with its podcast item
// minified (the podcast is loaded without its episodes there).
func (s *Server) playlistEntryJSON(it PlaylistItem, episodesLoaded bool) (jobj, bool) {
	if it.EpisodeID == "" {
		li := s.item(it.LibraryItemID)
		if li == nil || li.Book == nil {
			return nil, false
		}
		return jobj{{"libraryItemId", li.ID}, {"libraryItem", s.itemExpanded(li, viewOpts{})}}, true
	}
	li, ep := s.episode(it.EpisodeID)
	if ep == nil {
		return nil, false
	}
	return jobj{
		{"episodeId", ep.ID},
		{"episode", episodeExpanded(li.ID, li.Podcast.ID, *ep)},
		{"libraryItemId", li.ID},
		{"libraryItem", s.itemMinified(li, viewOpts{noEpisodes: !episodesLoaded})},
	}, true
}

// playlistExpanded is Playlist.toOldJSONExpanded.
func (s *Server) playlistExpanded(p *Playlist) jobj {
	items := []jobj{}
	for _, it := range p.Items {
		if e, ok := s.playlistEntryJSON(it, false); ok {
			items = append(items, e)
		}
	}
	return jobj{
		{"id", p.ID},
		{"name", p.Name},
		{"libraryId", p.LibraryID},
		{"userId", p.UserID},
		{"description", nstrp(p.Description)},
		{"lastUpdate", p.LastUpdate},
		{"createdAt", p.CreatedAt},
		{"items", items},
	}
}

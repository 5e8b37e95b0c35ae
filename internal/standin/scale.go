package standin

import (
	"fmt"
	"strings"
	"time"
)

// Scale is the size of a library made by ScaleData: what a big household
// library holds. Every count is deterministic, and so are the ids (sid).
type Scale struct {
	// Items are the generated books (besides the 16 of the sample).
	Items int
	// Authors, Tags, Genres and Series are spread over the books so that
	// each is used at least once.
	Authors, Tags, Genres, Series int
	// Collections and Playlists of root; each holds 20 books, and the first
	// of each holds BigList books.
	Collections, Playlists int
	// Sessions, Bookmarks and Progress are root's.
	Sessions, Bookmarks, Progress int
	// AnthologyAuthors is the number of authors of one book,
	// ScaleAnthologyID; it also has Chapters chapters.
	AnthologyAuthors, Chapters int
	// Episodes of one more podcast, ScalePodcastID.
	Episodes int
	// BigList is the length of the first collection and of the first
	// playlist.
	BigList int
}

// ScaleFor is a library of about items books with the proportions of the
// household library the budget was measured on (2,000 books: 3,000
// authors, 1,500 tags, 400 genres) and one anthology of 375 authors.
func ScaleFor(items int) Scale {
	return Scale{
		Items: items, Authors: max(items*3/2, 400), Tags: max(items*3/4, 20), Genres: max(items/5, 10),
		Series: max(items/10, 5), Collections: max(items/20, 3), Playlists: max(items/20, 3),
		Sessions: items, Bookmarks: max(items/2, 10), Progress: max(items/4, 10),
		AnthologyAuthors: 375, Chapters: 600, Episodes: max(items/10, 30), BigList: 600,
	}
}

// Ids of the generated records a test names.
var (
	// ScaleAnthologyID is the book with Scale.AnthologyAuthors authors.
	ScaleAnthologyID = sid("scale:item:anthology")
	// ScalePodcastID is the podcast with Scale.Episodes episodes.
	ScalePodcastID = sid("scale:podcast")
	// ScaleBigCollectionID and ScaleBigPlaylistID hold Scale.BigList books.
	ScaleBigCollectionID = sid("scale:collection:0")
	ScaleBigPlaylistID   = sid("scale:playlist:0")
	// ScaleEpisodeID is the first episode of ScalePodcastID.
	ScaleEpisodeID = sid("scale:episode:0")
	// ScaleAuthorID is the first generated author (of the anthology and
	// one more book).
	ScaleAuthorID = sid("scale:author:0")
	// ScaleSeriesID is the first generated series, and the longest.
	ScaleSeriesID = sid("scale:series:0")
)

// ScaleData is the sample library (SampleData) with a big library added to
// its book library, as s describes; every sample id stays valid.
func ScaleData(s Scale) *Data {
	d := SampleData()
	base := ms(2024, 1, 1, 0, 0)
	authorID := func(i int) string { return sid(fmt.Sprintf("scale:author:%d", i)) }
	for i := 0; i < s.Authors; i++ {
		t := base + int64(i)*60000
		d.Authors = append(d.Authors, Author{ID: authorID(i), LibraryID: LibraryBooksID,
			Name: fmt.Sprintf("Author%05d Lastname%d", i, i%97), AddedAt: t, UpdatedAt: t})
	}
	for i := 0; i < s.Series; i++ {
		t := base + int64(i)*60000
		d.Series = append(d.Series, Series{ID: sid(fmt.Sprintf("scale:series:%d", i)), LibraryID: LibraryBooksID,
			Name: fmt.Sprintf("Series %04d", i), AddedAt: t, UpdatedAt: t})
	}
	desc := strings.Repeat("A book of the big library, made for the scale tests. ", 8)
	book := func(id, key, title string, authors []string, series []SeriesSequence, genres, tags []string, chapters int, added int64) LibraryItem {
		dur := 36000.0
		path := "/audiobooks/scale/" + key
		name := key + ".m4b"
		meta := FileMetadata{Filename: name, Ext: ".m4b", Path: path + "/" + name, RelPath: name, Size: 300000000,
			MtimeMs: added, CtimeMs: added, BirthtimeMs: added}
		af := AudioFile{Index: 1, Ino: ino(key), Metadata: meta, AddedAt: added, UpdatedAt: added, TrackNumFromMeta: 1,
			Format: "MP4", Duration: dur, BitRate: 64000, Codec: "aac", TimeBase: "1/44100", Channels: 2, ChannelLayout: "stereo",
			Chapters: []Chapter{}, MetaTags: map[string]string{"tagAlbum": title, "tagTitle": title}, MimeType: "audio/mp4"}
		var chs []Chapter
		for c := 0; c < chapters; c++ {
			chs = append(chs, Chapter{ID: c, Start: dur * float64(c) / float64(chapters), End: dur * float64(c+1) / float64(chapters), Title: fmt.Sprintf("Chapter %d", c+1)})
		}
		return LibraryItem{ID: id, Ino: ino("dir" + key), LibraryID: LibraryBooksID, FolderID: sid("folder:books"),
			Path: path, RelPath: "scale/" + key, MtimeMs: added, CtimeMs: added, BirthtimeMs: added, AddedAt: added,
			UpdatedAt: added, LastScan: added, ScanVersion: "2.36.0", Size: meta.Size, MediaType: "book",
			LibraryFiles: []LibraryFile{{Ino: af.Ino, Metadata: meta, AddedAt: added, UpdatedAt: added, FileType: "audio"}},
			Book: &Book{ID: sid("scale:book:" + key), Title: title, AuthorIDs: authors, Series: series,
				Narrators: []string{fmt.Sprintf("Narrator %d", len(key)%50)}, Genres: genres, Tags: tags,
				PublishedYear: fmt.Sprint(1950 + len(title)%70), Publisher: "Scale Press", Description: desc,
				Language: "English", Duration: dur, AudioFiles: []AudioFile{af}, Chapters: chs, CreatedAt: added, UpdatedAt: added},
		}
	}
	first := len(d.Items)
	for i := 0; i < s.Items; i++ {
		// Every author and tag on some book: the i-th book has the i-th,
		// the (i+Items)-th, ... while there are that many.
		authors := []string{authorID(i % s.Authors)}
		for j := i + s.Items; j < s.Authors; j += s.Items {
			authors = append(authors, authorID(j))
		}
		tags := []string{fmt.Sprintf("tag-%05d", i%s.Tags)}
		for j := i + s.Items; j < s.Tags; j += s.Items {
			tags = append(tags, fmt.Sprintf("tag-%05d", j))
		}
		genres := []string{fmt.Sprintf("Genre %04d", i%s.Genres)}
		var series []SeriesSequence
		switch {
		case s.Series == 0:
		case i%2 == 0:
			series = []SeriesSequence{{SeriesID: sid(fmt.Sprintf("scale:series:%d", (i/2)%s.Series)), Sequence: fmt.Sprint(i/2/s.Series + 1)}}
		case i%10 == 1:
			// The first series is long: a tenth of the books more.
			series = []SeriesSequence{{SeriesID: sid("scale:series:0"), Sequence: fmt.Sprintf("%d.5", i/10)}}
		}
		key := fmt.Sprintf("book-%05d", i)
		d.Items = append(d.Items, book(sid("scale:item:"+key), key, fmt.Sprintf("Scale Book %05d", i), authors, series, genres, tags, 8,
			base+int64(i)*3600000))
	}
	// The anthology: one book with AnthologyAuthors authors.
	var anth []string
	for i := 0; i < s.AnthologyAuthors; i++ {
		anth = append(anth, authorID(i%s.Authors))
	}
	d.Items = append(d.Items, book(ScaleAnthologyID, "anthology", "The Big Anthology", anth, nil,
		[]string{"Genre 0000", "Anthology"}, []string{"tag-00000", "anthology"}, s.Chapters, base-86400000))
	itemID := func(i int) string { return d.Items[first+i%s.Items].ID }

	// A podcast with many episodes.
	var eps []episodeSpec
	for e := 0; e < s.Episodes; e++ {
		eps = append(eps, episodeSpec{id: sid(fmt.Sprintf("scale:episode:%d", e)), key: fmt.Sprintf("e%d", e),
			title: fmt.Sprintf("Episode %d", e+1), description: "One episode of the long-running show. It has a short description.",
			season: "1", episode: fmt.Sprint(e + 1), published: base + int64(e)*86400000, duration: 1800})
	}
	if len(eps) > 0 {
		d.Items = append(d.Items, buildPodcast(ScalePodcastID, "scale-show", "The Long-Running Show", "Scale Media",
			"A show with many episodes.", "https://feeds.example.com/scale.xml", []string{"Society"}, []string{"daily"}, eps, base))
	}

	root := &d.Users[0]
	for c := 0; c < s.Collections; c++ {
		n := 20
		if c == 0 {
			n = s.BigList
		}
		var books []string
		for k := 0; k < n; k++ {
			books = append(books, itemID(c*20+k))
		}
		books = uniq(books)
		t := base + int64(c)*60000
		d.Collections = append(d.Collections, Collection{ID: sid(fmt.Sprintf("scale:collection:%d", c)), LibraryID: LibraryBooksID,
			Name: fmt.Sprintf("Collection %04d", c), Books: books, LastUpdate: t, CreatedAt: t})
	}
	for p := 0; p < s.Playlists; p++ {
		n := 20
		if p == 0 {
			n = s.BigList
		}
		var items []PlaylistItem
		seen := map[string]bool{}
		for k := 0; k < n; k++ {
			id := itemID(p*20 + k)
			if !seen[id] {
				seen[id] = true
				items = append(items, PlaylistItem{LibraryItemID: id})
			}
		}
		t := base + int64(p)*60000
		d.Playlists = append(d.Playlists, Playlist{ID: sid(fmt.Sprintf("scale:playlist:%d", p)), LibraryID: LibraryBooksID,
			UserID: root.ID, Name: fmt.Sprintf("Playlist %04d", p), Items: items, LastUpdate: t, CreatedAt: t})
	}
	for b := 0; b < s.Bookmarks; b++ {
		root.Bookmarks = append(root.Bookmarks, Bookmark{LibraryItemID: itemID(b / 3), Time: float64(100 + 60*(b%3)),
			Title: fmt.Sprintf("Bookmark %d", b), CreatedAt: base + int64(b)*60000})
	}
	for p := 0; p < s.Progress && p < s.Items; p++ {
		li := &d.Items[first+p]
		mp := MediaProgress{ID: sid(fmt.Sprintf("scale:progress:%d", p)), LibraryItemID: li.ID, MediaItemID: li.Book.ID,
			MediaItemType: "book", Duration: li.Book.Duration, LastUpdate: base + int64(p)*60000, StartedAt: base}
		if p%2 == 0 {
			mp.Progress, mp.CurrentTime = 0.3, li.Book.Duration*0.3
		} else {
			mp.Progress, mp.CurrentTime, mp.IsFinished, mp.FinishedAt = 1, li.Book.Duration, true, mp.LastUpdate
		}
		root.MediaProgress = append(root.MediaProgress, mp)
	}
	day := time.UnixMilli(base).UTC()
	for k := 0; k < s.Sessions; k++ {
		li := &d.Items[first+k%s.Items]
		at := day.Add(time.Duration(k) * 3 * time.Hour)
		d.Sessions = append(d.Sessions, Session{ID: sid(fmt.Sprintf("scale:session:%d", k)), UserID: root.ID, LibraryID: LibraryBooksID,
			LibraryItemID: li.ID, MediaType: "book", DisplayTitle: li.Book.Title, DisplayAuthor: "Scale Author",
			Duration: li.Book.Duration, MediaPlayer: "html5", ServerVersion: "2.36.0", Date: at.Format("2006-01-02"),
			DayOfWeek: at.Weekday().String(), TimeListening: 900, StartTime: 0, CurrentTime: 900,
			StartedAt: at.UnixMilli(), UpdatedAt: at.Add(15 * time.Minute).UnixMilli()})
	}
	// The feeds of every podcast, the long-running show's included.
	d.Podcasts = samplePodcastWorld(d)
	return d
}

func uniq(s []string) []string {
	seen := map[string]bool{}
	out := s[:0]
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

package standin

import (
	"fmt"
	"sort"
	"time"
)

// The messy library's books for the audits that audit_library runs beside
// the five with a tool of their own (no_audio, one_chapter,
// author_in_title, author_images), with their near misses. Kept apart from
// messyBooks so that cases added there and here stay apart.

// MessyUnscaled are the messy books (by folder) whose audio a live run
// writes at full length, not a hundredth of it: one_chapter looks at how
// long a book is, not at a ratio of durations.
var MessyUnscaled = map[string]bool{"long-one": true}

func messyMoreBooks() []messyBook {
	return []messyBook{
		// no_audio: an ebook and no audio file (Audiobookshelf finds no
		// chapters in it either: audit_missing's chapters). Near miss: an
		// ebook beside the audio.
		{key: "ebook-only", title: "Paper Only", authors: []string{"Mary Jones"}, ebookOnly: true, noChapters: true},
		// one_chapter: four hours in one chapter. Near misses: forty
		// minutes in one chapter, four hours in twelve.
		{key: "long-one", title: "The Long Road", authors: []string{"Mary Jones"}, duration: 4 * 3600, chapters: 1},
		{key: "short-one", title: "A Short Walk", authors: []string{"Mary Jones"}, duration: 40 * 60, chapters: 1},
		{key: "long-many", title: "The Long Way Round", authors: []string{"Mary Jones"}, duration: 4 * 3600, chapters: 12},
		// author_in_title: the author's name before the title, and after it
		// written "Last, First". Near misses: a possessive ("Terry
		// Pratchett's Hogfather", as such books are sold), and an author's
		// surname alone.
		{key: "name-title-1", title: "Ann Leckie - Ancillary Justice", authors: []string{"Ann Leckie"}},
		{key: "name-title-2", title: "Provenance (Leckie, Ann)", authors: []string{"Ann Leckie"}},
		{key: "possessive", title: "Terry Pratchett's Hogfather", authors: []string{"Terry Pratchett"}},
		{key: "surname", title: "The King Must Die", authors: []string{"Mary King"}},
		// covers (audit_library runs it when asked): a 2:3 jacket and a
		// banner twice as wide as high. Near miss: 5 % higher than wide.
		// Every other cover of the messy library is square.
		{key: "cover-tall", title: "The Tall Cover", authors: []string{"Mary Jones"}},
		{key: "cover-wide", title: "The Wide Cover", authors: []string{"Mary Jones"}},
		{key: "cover-near", title: "The Nearly Square Cover", authors: []string{"Mary Jones"}},
	}
}

// messyCoverAspect is the shape of a messy book's cover (height over
// width) where it is not square.
var messyCoverAspect = map[string]float64{"cover-tall": 1.5, "cover-wide": 0.5, "cover-near": 1.05}

// messyEbookOnly makes book an ebook with no audio file.
func messyEbookOnly(book *Book, path string, added int64) {
	book.AudioFiles, book.Chapters, book.Duration = nil, nil, 0
	book.EbookFile = &EbookFile{Ino: ino("messy:ebook:" + path), EbookFormat: "pdf", AddedAt: added, UpdatedAt: added,
		Metadata: FileMetadata{Filename: "book.pdf", Ext: ".pdf", Path: path + "/book.pdf", RelPath: "book.pdf", Size: 100000,
			MtimeMs: added, CtimeMs: added, BirthtimeMs: added}}
}

// messyMore plants what messyMoreBooks holds, and gives an image to
// every author that no audit may name (m.Clean, whoever put them there):
// the messy library's other authors have none, each an author_images
// finding.
func messyMore(d *Data, m Messy, items func(...string) []string) Messy {
	for i := range d.Items {
		it := &d.Items[i]
		if it.LibraryID == LibraryMessyID && it.Book != nil {
			it.Book.CoverAspect = 1
			if a, ok := messyCoverAspect[it.RelPath]; ok {
				it.Book.CoverAspect = a
			}
		}
		if it.LibraryID != LibraryMessyID || it.Book == nil || it.Book.EbookFile == nil || len(it.Book.AudioFiles) > 0 {
			continue
		}
		e := it.Book.EbookFile
		it.LibraryFiles = []LibraryFile{{Ino: e.Ino, Metadata: e.Metadata, AddedAt: e.AddedAt, UpdatedAt: e.UpdatedAt, FileType: "ebook"}}
		it.Size = e.Metadata.Size
	}
	planted := []Planted{
		{"audit_library/no_audio", "no_audio", items("ebook-only")},
		{"audit_missing", "chapters", items("ebook-only")},
		{"audit_library/one_chapter", "one_chapter", items("long-one")},
		{"audit_library/covers", "not_square", items("cover-tall")},
		{"audit_library/covers", "not_square", items("cover-wide")},
		{"audit_library/author_in_title", "author_in_title", items("name-title-1")},
		{"audit_library/author_in_title", "author_in_title", items("name-title-2")},
	}
	m.Clean = append(m.Clean, items("short-one", "long-many", "possessive", "surname", "cover-near")...)
	m.Clean = append(m.Clean, sid("messy:author:Mary King"))
	clean := map[string]bool{}
	for _, c := range m.Clean {
		clean[c] = true
	}
	for i := range d.Authors {
		a := &d.Authors[i]
		if a.LibraryID != LibraryMessyID {
			continue
		}
		if clean[a.ID] {
			a.ImagePath = "/metadata/authors/" + a.ID + ".jpg"
		} else {
			planted = append(planted, Planted{"audit_library/author_images", "no_image", []string{a.ID}})
		}
	}
	for i := range planted {
		sort.Strings(planted[i].Keys)
	}
	m.Planted = append(m.Planted, planted...)
	return m
}

// LibraryMessyPodcastsID is the messy podcast library (MessyPodcasts).
var LibraryMessyPodcastsID = sid("messy:podcasts:library")

// MessyPodcasts adds to d a podcast library, "Messy Podcasts", with
// podcasts for audit_library's podcasts audit, and answers what was
// planted in it. Its episodes are dated from now, as the audit reads
// them against the wall clock: one podcast with no episode, one whose
// newest episode is two years old (stale); near misses: one a week old,
// one 300 days old (under a year), and one whose old episodes sit beside
// a new one.
func MessyPodcasts(d *Data, now time.Time) Messy {
	created := ms(2025, 9, 1, 8, 0)
	folder := sid("folder:messy-podcasts")
	d.Libraries = append(d.Libraries, Library{ID: LibraryMessyPodcastsID, Name: "Messy Podcasts", MediaType: "podcast", Icon: "podcast",
		Provider: "itunes", DisplayOrder: 4, Folders: []Folder{{ID: folder, FullPath: "/messy-podcasts", AddedAt: created}},
		Settings: d.Libraries[0].Settings, LastScan: created, LastScanVersion: "2.36.0", CreatedAt: created, UpdatedAt: created})
	ago := func(days int) int64 { return now.Add(-time.Duration(days) * 24 * time.Hour).UnixMilli() }
	id := func(key string) string { return sid("messy:podcast:" + key) }
	for i, p := range []struct {
		key   string
		dates []int64 // newest last; none: no episode
	}{
		{"empty", nil},
		{"stale", []int64{ago(800), ago(730)}},
		{"fresh", []int64{ago(60), ago(7)}},
		{"almost", []int64{ago(400), ago(300)}},
		{"revived", []int64{ago(1500), ago(1400), ago(20)}},
	} {
		var eps []episodeSpec
		for e, at := range p.dates {
			eps = append(eps, episodeSpec{id: sid("messy:episode:" + p.key + fmt.Sprint(e)), key: fmt.Sprint(e), title: fmt.Sprintf("Episode %d", e+1),
				description: "An episode.", episode: fmt.Sprint(e + 1), published: at, duration: 1800})
		}
		build := eps
		if len(build) == 0 {
			build = []episodeSpec{{id: sid("messy:episode:none"), key: "0", title: "None", description: "None.", published: created, duration: 1800}}
		}
		title := "Messy " + p.key
		it := buildPodcast(id(p.key), "messy-podcast-"+p.key, title, "Messy Radio", "A podcast of the messy library.",
			"https://feeds.example.com/messy-"+p.key+".xml", []string{"Talk"}, []string{"messy"}, build, created+int64(i)*3600000)
		it.LibraryID, it.FolderID = LibraryMessyPodcastsID, folder
		if len(eps) == 0 {
			it.Podcast.Episodes = nil
			var files []LibraryFile
			for _, f := range it.LibraryFiles {
				if f.FileType != "audio" {
					files = append(files, f)
				}
			}
			it.LibraryFiles = files
		}
		d.Items = append(d.Items, it)
	}
	return Messy{
		Planted: []Planted{
			{"audit_library/podcasts", "no_episodes", []string{id("empty")}},
			{"audit_library/podcasts", "stale_feed", []string{id("stale")}},
		},
		Clean: []string{id("fresh"), id("almost"), id("revived")},
	}
}

package standin

import (
	"fmt"
	"sort"
	"strings"
)

// The messy library is a third library, "Messy", added to the sample
// (MessyData): books with problems of every kind the curation audits look
// for, planted on purpose, beside clean books and near misses that an audit
// must not report. What was planted is data (MessyPlanted), which a test
// holds the audits to; the audits' code knows none of it.

// LibraryMessyID is the messy library.
var LibraryMessyID = sid("messy:library")

// Planted is one problem planted in the messy library: the audit tool
// that must find it, the kind of finding, and its keys, sorted: the ids of
// the records it is about (series, authors, library items), or the names
// where Audiobookshelf keeps no record (narrators, tags, genres).
type Planted struct {
	Tool, Kind string
	Keys       []string
}

// Messy is the messy library's ground truth.
type Messy struct {
	// Planted is every problem planted.
	Planted []Planted
	// Clean are the ids and names of records that are fine, near misses
	// among them: no finding may name one.
	Clean []string
	// Reasons are, by a planted duplicate's MessyKey, every reason its
	// books must be put together for, where there is more than its kind.
	Reasons map[string][]string
}

// messyBook is one book of the messy library; the zero value of a field
// is filled with a clean value by MessyData.
type messyBook struct {
	key, title, subtitle string
	authors, narrators   []string
	series               []messySeq
	genres, tags         []string
	asin, isbn           string
	duration             float64
	// description, when given, is the book's description in place of
	// the clean one.
	description string
	// noCover, noDescription, noYear, noLanguage, noChapters, noASIN and
	// noISBN leave the field empty; missing marks the item's files missing.
	noCover, noDescription, noYear, noLanguage, noChapters, noASIN, noISBN, missing bool
	// ebookOnly gives the book an ebook and no audio file; chapters, when
	// not 0, is how many chapters it has (3 otherwise).
	ebookOnly bool
	chapters  int
}

type messySeq struct{ name, seq string }

func messyBooks() []messyBook {
	const (
		sanderson = "Brandon Sanderson"
		jordan    = "Robert Jordan"
		pratchett = "Terry Pratchett"
		weir      = "Andy Weir"
		corey     = "James S. A. Corey"
	)
	return []messyBook{
		// Series: a gap (#3 of Mistborn), a place held twice (#2 of The
		// Wheel of Time), one series under two spellings each (The
		// Stormlight Archive: a leading "The", case and spaces; Ender's
		// Saga: an accent and an apostrophe), books whose title names a
		// place but that are in no series.
		{key: "mistborn-1", title: "The Final Empire", authors: []string{sanderson}, series: []messySeq{{"Mistborn", "1"}}},
		{key: "mistborn-2", title: "The Well of Ascension", authors: []string{sanderson}, series: []messySeq{{"Mistborn", "2"}}},
		{key: "mistborn-4", title: "The Alloy of Law", authors: []string{sanderson}, series: []messySeq{{"Mistborn", "4"}}},
		{key: "wot-1", title: "The Eye of the World", authors: []string{jordan}, series: []messySeq{{"The Wheel of Time", "1"}}},
		{key: "wot-2", title: "The Great Hunt", authors: []string{jordan}, series: []messySeq{{"The Wheel of Time", "2"}}},
		{key: "wot-2b", title: "The Dragon Reborn", authors: []string{jordan}, series: []messySeq{{"The Wheel of Time", "2"}}},
		{key: "wot-4", title: "The Shadow Rising", authors: []string{jordan}, series: []messySeq{{"The Wheel of Time", "3"}}},
		{key: "stormlight-1", title: "The Way of Kings", authors: []string{"Sanderson, Brandon"}, series: []messySeq{{"The Stormlight Archive", "1"}}},
		{key: "stormlight-2", title: "Words of Radiance", authors: []string{"Sanderson, Brandon"}, series: []messySeq{{"The Stormlight Archive", "2"}}},
		{key: "stormlight-3", title: "Oathbringer", authors: []string{"brandon  sanderson"}, series: []messySeq{{"stormlight  archive", "3"}}},
		{key: "ender-1", title: "Ender's Game", authors: []string{"Orson Scott Card"}, series: []messySeq{{"Ender's Saga", "1"}}},
		{key: "ender-2", title: "Speaker for the Dead", authors: []string{"Orson Scott Card"}, series: []messySeq{{"Endér’s Saga", "2"}}},
		{key: "loose-3", title: "Rhythm of War, Book 4", authors: []string{sanderson}},
		{key: "loose-vol", title: "The Sunlit Man", subtitle: "Cosmere Volume 2", authors: []string{sanderson}},
		// Clean series: in order, a novella at #1.5 (no gap), and one
		// book at #0 (a prequel: no gap either).
		{key: "watch-0", title: "The Carpet People", authors: []string{pratchett}, series: []messySeq{{"City Watch", "0"}}},
		{key: "watch-1", title: "Guards! Guards!", authors: []string{pratchett}, series: []messySeq{{"City Watch", "1"}}},
		{key: "watch-2", title: "Men at Arms", authors: []string{pratchett}, series: []messySeq{{"City Watch", "2"}}},
		{key: "expanse-1", title: "Leviathan Wakes", authors: []string{corey}, series: []messySeq{{"The Expanse", "1"}}},
		{key: "expanse-15", title: "The Butcher of Anderson Station", authors: []string{corey}, series: []messySeq{{"The Expanse", "1.5"}}},
		{key: "expanse-2", title: "Caliban's War", authors: []string{corey}, series: []messySeq{{"The Expanse", "2"}}},

		// People: an author under three spellings each (Sanderson above
		// and here; Tolkien with initials three ways), an accent; a
		// narrator under two spellings twice ("Last, First" and a full stop;
		// case). Near misses:
		// "J. Smith" beside John and Jane Smith (the initials fit two).
		{key: "tolkien-1", title: "The Hobbit", authors: []string{"J. R. R. Tolkien"}},
		{key: "tolkien-2", title: "The Fellowship of the Ring", authors: []string{"J.R.R. Tolkien"}},
		{key: "tolkien-3", title: "The Silmarillion", authors: []string{"John Ronald Reuel Tolkien"}},
		{key: "marquez-1", title: "One Hundred Years of Solitude", authors: []string{"Gabriel García Márquez"}},
		{key: "marquez-2", title: "Love in the Time of Cholera", authors: []string{"Gabriel Garcia Marquez"}},
		{key: "smith-1", title: "Harbour Lights", authors: []string{"John Smith"}, narrators: []string{"Kramer, Michael"}},
		{key: "smith-2", title: "Lantern Hill", authors: []string{"Jane Smith"}, narrators: []string{"Michael Kramer."}},
		{key: "smith-3", title: "River Stones", authors: []string{"J. Smith"}, narrators: []string{"Kate Reading"}},
		{key: "reading-1", title: "Dust and Ashes", authors: []string{"Mary Jones"}, narrators: []string{"kate reading"}},

		// Duplicates: the same ASIN under two titles, the same ISBN
		// written two ways, the same title and author 1.7 % apart; near
		// miss: the same title and author 30 % apart.
		{key: "dup-asin-a", title: "Red Rising", authors: []string{"Pierce Brown"}, asin: "B00I2VWW5U", duration: 58000},
		{key: "dup-asin-b", title: "Red Rising (Red Rising Saga)", authors: []string{"Pierce Brown"}, asin: "b00i2vww5u", duration: 58100},
		{key: "dup-isbn-a", title: "Good Omens", authors: []string{"Neil Gaiman"}, isbn: "978-0-06-085398-3", duration: 45000},
		{key: "dup-isbn-b", title: "Good Omens: The Nice and Accurate Prophecies", authors: []string{"Neil Gaiman"}, isbn: "9780060853983", duration: 47000},
		{key: "dup-work-a", title: "Project Hail Mary", authors: []string{weir}, duration: 58000},
		{key: "dup-work-b", title: "project hail mary", authors: []string{weir}, duration: 57000},
		{key: "near-a", title: "The Martian", authors: []string{weir}, duration: 39000},
		{key: "near-b", title: "The Martian", authors: []string{weir}, duration: 27300},
		// Edition words in parentheses: "(Unabridged)" beside the same
		// title 3 seconds apart is one book; the same ASIN and the same
		// title and author is one finding with both reasons. Near misses:
		// a dramatisation beside the full reading, durations 2 % apart
		// (another work: its title says so), and an abridgement beside
		// the full reading (its duration says so).
		{key: "dup-edition", title: "The Martian (Unabridged)", authors: []string{weir}, duration: 39003},
		{key: "dup-both-a", title: "Dark Matter", authors: []string{"Blake Crouch"}, asin: "B01EXAMPLE", duration: 36000},
		{key: "dup-both-b", title: "Dark Matter", authors: []string{"Blake Crouch"}, asin: "B01EXAMPLE", duration: 36010},
		{key: "drama-full", title: "The Hitchhiker's Guide to the Galaxy", authors: []string{"Douglas Adams"}, duration: 46000},
		{key: "drama-cast", title: "The Hitchhiker's Guide to the Galaxy (Dramatised)", authors: []string{"Douglas Adams"}, duration: 45100},
		{key: "abridged", title: "Dune (Abridged)", authors: []string{"Frank Herbert"}, duration: 30000},
		{key: "unabridged", title: "Dune", authors: []string{"Frank Herbert"}, duration: 75000},

		// Missing: each field once; one book with neither ASIN nor ISBN,
		// and near misses with one of them only; one whose files are
		// missing.
		{key: "no-cover", title: "Coverless", authors: []string{"Mary Jones"}, noCover: true},
		{key: "no-desc", title: "Undescribed", authors: []string{"Mary Jones"}, noDescription: true},
		{key: "no-ids", title: "Unmatched", authors: []string{"Mary Jones"}, noASIN: true, noISBN: true},
		{key: "asin-only", title: "Audible Only", authors: []string{"Mary Jones"}, noISBN: true},
		{key: "isbn-only", title: "Print Only", authors: []string{"Mary Jones"}, noASIN: true},
		{key: "no-year", title: "Yearless", authors: []string{"Mary Jones"}, noYear: true},
		{key: "no-lang", title: "Languageless", authors: []string{"Mary Jones"}, noLanguage: true},
		{key: "no-chapters", title: "Chapterless", authors: []string{"Mary Jones"}, noChapters: true},
		{key: "gone", title: "Moved Away", authors: []string{"Mary Jones"}, missing: true},
		// A description empty to a reader once its markup is taken out,
		// beside one whose markup holds text (a near miss); a book with
		// no author.
		{key: "markup-desc", title: "Hollow Words", authors: []string{"Mary Jones"}, description: "<p></p>"},
		{key: "markup-text", title: "Full Words", authors: []string{"Mary Jones"}, description: "<p>A book of the <em>messy</em> library.</p>"},
		{key: "no-author", title: "Anonymous Lines", authors: []string{}},

		// Tags and genres: two spellings of a tag each (Sci-Fi, Must Read)
		// and of a genre (Science Fiction, Fantasy); a tag and a genre one
		// book holds.
		{key: "terms-1", title: "Hyperion", authors: []string{"Dan Simmons"}, tags: []string{"Sci-Fi", "favourite"}, genres: []string{"Science Fiction", "Fantasy"}},
		{key: "terms-2", title: "Endymion", authors: []string{"Dan Simmons"}, tags: []string{"Sci-Fi", "Must Read"}, genres: []string{"Science Fiction", "Cyberpunk"}},
		{key: "terms-3", title: "Ilium", authors: []string{"Dan Simmons"}, tags: []string{"sci fi", "must-read", "signed copy"}, genres: []string{"science-fiction"}},
		{key: "terms-4", title: "Olympos", authors: []string{"Dan Simmons"}, tags: []string{"favourite"}, genres: []string{"FANTASY"}},
		// Spellings that differ by a space, a hyphen or a full stop alone
		// (a tag twice, a genre three ways, an author); near misses:
		// different people with similar names.
		{key: "joined-1", title: "The Left Hand of Darkness", authors: []string{"Ursula K. Le Guin"}, tags: []string{"reread"}, genres: []string{"Non-Fiction"}},
		{key: "joined-2", title: "The Dispossessed", authors: []string{"Ursula K. LeGuin"}, tags: []string{"re-read"}, genres: []string{"Non Fiction"}},
		{key: "joined-3", title: "The Lathe of Heaven", authors: []string{"Ursula K. Le Guin"}, tags: []string{"reread"}, genres: []string{"Nonfiction"}},
		{key: "grrm", title: "A Game of Thrones", authors: []string{"George R. R. Martin"}},
		{key: "gmartin", title: "The Cartographer's Daughter", authors: []string{"George Martin"}},
		{key: "rbparker", title: "The Godwulf Manuscript", authors: []string{"Robert B. Parker"}},
		{key: "rparker", title: "Harbour Rooms", authors: []string{"Robert Parker"}},
	}
}

// MessyData is the sample library (SampleData) with the messy library
// added, and what was planted in it.
func MessyData() (*Data, Messy) {
	d := SampleData()
	created := ms(2025, 9, 1, 8, 0)
	folder := sid("folder:messy")
	d.Libraries = append(d.Libraries, Library{ID: LibraryMessyID, Name: "Messy", MediaType: "book", Icon: "books", Provider: "google",
		DisplayOrder: 3, Folders: []Folder{{ID: folder, FullPath: "/messy", AddedAt: created}}, Settings: d.Libraries[0].Settings,
		LastScan: created, LastScanVersion: "2.36.0", CreatedAt: created, UpdatedAt: created})
	authorID := func(name string) string { return sid("messy:author:" + name) }
	seriesID := func(name string) string { return sid("messy:series:" + name) }
	itemID := func(key string) string { return sid("messy:item:" + key) }
	seenAuthor, seenSeries := map[string]bool{}, map[string]bool{}
	for i, b := range append(messyBooks(), messyMoreBooks()...) {
		added := created + int64(i)*3600000
		var authors []string
		for _, a := range b.authors {
			if !seenAuthor[a] {
				seenAuthor[a] = true
				d.Authors = append(d.Authors, Author{ID: authorID(a), LibraryID: LibraryMessyID, Name: a, AddedAt: added, UpdatedAt: added})
			}
			authors = append(authors, authorID(a))
		}
		var series []SeriesSequence
		for _, s := range b.series {
			if !seenSeries[s.name] {
				seenSeries[s.name] = true
				d.Series = append(d.Series, Series{ID: seriesID(s.name), LibraryID: LibraryMessyID, Name: s.name, AddedAt: added, UpdatedAt: added})
			}
			series = append(series, SeriesSequence{SeriesID: seriesID(s.name), Sequence: s.seq})
		}
		dur := b.duration
		if dur == 0 {
			dur = 30000 + float64(i)*1000 // no two alike
		}
		narrators := b.narrators
		if narrators == nil {
			narrators = []string{"Ray Porter"}
		}
		genres, tags := b.genres, b.tags
		if genres == nil {
			genres = []string{"Fiction"}
		}
		if tags == nil {
			tags = []string{"to-read"}
		}
		asin, isbn := b.asin, b.isbn
		if asin == "" && !b.noASIN {
			asin = fmt.Sprintf("B0MESSY%03d", i)
		}
		if isbn == "" && !b.noISBN {
			isbn = fmt.Sprintf("97800000%05d", i)
		}
		path := "/messy/" + b.key
		name := b.key + ".m4b"
		meta := FileMetadata{Filename: name, Ext: ".m4b", Path: path + "/" + name, RelPath: name, Size: 200000000,
			MtimeMs: added, CtimeMs: added, BirthtimeMs: added}
		af := AudioFile{Index: 1, Ino: ino("messy:" + b.key), Metadata: meta, AddedAt: added, UpdatedAt: added, TrackNumFromMeta: 1,
			Format: "MP4", Duration: dur, BitRate: 64000, Codec: "aac", TimeBase: "1/44100", Channels: 2, ChannelLayout: "stereo",
			Chapters: []Chapter{}, MetaTags: map[string]string{"tagAlbum": b.title, "tagTitle": b.title}, MimeType: "audio/mp4"}
		var chapters []Chapter
		if !b.noChapters {
			n := 3
			if b.chapters > 0 {
				n = b.chapters
			}
			for c := 0; c < n; c++ {
				chapters = append(chapters, Chapter{ID: c, Start: dur * float64(c) / float64(n), End: dur * float64(c+1) / float64(n), Title: fmt.Sprintf("Chapter %d", c+1)})
			}
		}
		book := &Book{ID: sid("messy:book:" + b.key), Title: b.title, Subtitle: b.subtitle, AuthorIDs: authors, Series: series,
			Narrators: narrators, Genres: genres, Tags: tags, PublishedYear: "2001", Publisher: "Messy Press",
			Description: "A book of the messy library.", ISBN: isbn, ASIN: asin, Language: "English",
			CoverPath: path + "/cover.jpg", Duration: dur, AudioFiles: []AudioFile{af}, Chapters: chapters, CreatedAt: added, UpdatedAt: added}
		if b.noCover {
			book.CoverPath = ""
		}
		if b.noDescription {
			book.Description = ""
		}
		if b.description != "" {
			book.Description = b.description
		}
		if b.noYear {
			book.PublishedYear = ""
		}
		if b.noLanguage {
			book.Language = ""
		}
		if b.ebookOnly {
			messyEbookOnly(book, path, added)
		}
		d.Items = append(d.Items, LibraryItem{ID: itemID(b.key), Ino: ino("messy:dir:" + b.key), LibraryID: LibraryMessyID, FolderID: folder,
			Path: path, RelPath: b.key, IsMissing: b.missing, MtimeMs: added, CtimeMs: added, BirthtimeMs: added, AddedAt: added,
			UpdatedAt: added, LastScan: added, ScanVersion: "2.36.0", Size: meta.Size, MediaType: "book",
			LibraryFiles: []LibraryFile{{Ino: af.Ino, Metadata: meta, AddedAt: added, UpdatedAt: added, FileType: "audio"}}, Book: book})
	}

	items := func(keys ...string) []string {
		var out []string
		for _, k := range keys {
			out = append(out, itemID(k))
		}
		return out
	}
	authors := func(names ...string) []string {
		var out []string
		for _, n := range names {
			out = append(out, authorID(n))
		}
		return out
	}
	seriesIDs := func(names ...string) []string {
		var out []string
		for _, n := range names {
			out = append(out, seriesID(n))
		}
		return out
	}
	m := Messy{Planted: []Planted{
		{"audit_series", "gap", seriesIDs("Mistborn")},
		{"audit_series", "duplicate_sequence", seriesIDs("The Wheel of Time")},
		{"audit_series", "spelling", seriesIDs("The Stormlight Archive", "stormlight  archive")},
		{"audit_series", "spelling", seriesIDs("Ender's Saga", "Endér’s Saga")},
		{"audit_series", "sequence_without_series", items("loose-3")},
		{"audit_series", "sequence_without_series", items("loose-vol")},

		{"audit_people", "author_spelling", authors("Brandon Sanderson", "Sanderson, Brandon", "brandon  sanderson")},
		{"audit_people", "author_spelling", authors("J. R. R. Tolkien", "J.R.R. Tolkien", "John Ronald Reuel Tolkien")},
		{"audit_people", "author_spelling", authors("Gabriel García Márquez", "Gabriel Garcia Marquez")},
		{"audit_people", "narrator_spelling", []string{"Kramer, Michael", "Michael Kramer."}},
		{"audit_people", "narrator_spelling", []string{"Kate Reading", "kate reading"}},

		{"audit_duplicates", "same_asin", items("dup-asin-a", "dup-asin-b")},
		{"audit_duplicates", "same_isbn", items("dup-isbn-a", "dup-isbn-b")},
		{"audit_duplicates", "same_title_author", items("dup-work-a", "dup-work-b")},
		{"audit_duplicates", "same_title_author", items("near-a", "dup-edition")},
		{"audit_duplicates", "same_asin", items("dup-both-a", "dup-both-b")},

		{"audit_missing", "cover", items("no-cover")},
		{"audit_missing", "description", items("no-desc")},
		{"audit_missing", "asin_isbn", items("no-ids")},
		{"audit_missing", "published_year", items("no-year")},
		{"audit_missing", "language", items("no-lang")},
		{"audit_missing", "chapters", items("no-chapters")},
		{"audit_missing", "issues", items("gone")},
		{"audit_missing", "description", items("markup-desc")},
		{"audit_missing", "author", items("no-author")},

		{"audit_tags_and_genres", "tag_spelling", []string{"Sci-Fi", "sci fi"}},
		{"audit_tags_and_genres", "tag_spelling", []string{"Must Read", "must-read"}},
		{"audit_tags_and_genres", "genre_spelling", []string{"Science Fiction", "science-fiction"}},
		{"audit_tags_and_genres", "genre_spelling", []string{"Fantasy", "FANTASY"}},
		{"audit_tags_and_genres", "tag_used_once", []string{"signed copy"}},
		{"audit_tags_and_genres", "genre_used_once", []string{"Cyberpunk"}},
		{"audit_tags_and_genres", "tag_spelling", []string{"re-read", "reread"}},
		{"audit_tags_and_genres", "genre_spelling", []string{"Non Fiction", "Non-Fiction", "Nonfiction"}},
		{"audit_people", "author_spelling", authors("Ursula K. Le Guin", "Ursula K. LeGuin")},
	}}
	for i := range m.Planted {
		sort.Strings(m.Planted[i].Keys)
	}
	m.Reasons = map[string][]string{
		MessyKey("audit_duplicates", "same_asin", items("dup-both-a", "dup-both-b")): {"same_asin", "same_title_author"},
	}
	m.Clean = append(m.Clean, seriesIDs("City Watch", "The Expanse")...)
	m.Clean = append(m.Clean, items("watch-0", "watch-1", "watch-2", "expanse-1", "expanse-15", "expanse-2",
		"near-b", "asin-only", "isbn-only", "smith-1", "smith-2", "smith-3", "terms-4",
		"drama-full", "drama-cast", "abridged", "unabridged", "markup-text", "grrm", "gmartin", "rbparker", "rparker")...)
	m.Clean = append(m.Clean, authors("John Smith", "Jane Smith", "J. Smith", "Andy Weir", "Terry Pratchett", "James S. A. Corey", "Mary Jones",
		"George R. R. Martin", "George Martin", "Robert B. Parker", "Robert Parker", "Douglas Adams", "Frank Herbert", "Blake Crouch")...)
	m.Clean = append(m.Clean, "Ray Porter", "favourite", "to-read", "Fiction")
	m = messyMore(d, m, items)
	return d, m
}

// MessyKey is a finding's key as Planted writes it, for a test to compare.
func MessyKey(tool, kind string, keys []string) string {
	k := append([]string(nil), keys...)
	sort.Strings(k)
	return tool + " " + kind + " " + strings.Join(k, "|")
}

package tools

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"
)

// Compact projections: what a model needs to browse and answer questions,
// in a fraction of Audiobookshelf's JSON. Field names are short and stable;
// ids are always kept. detail "full" returns the raw object instead.

// DescriptionLimit is how many characters of a description a compact
// single-item result keeps; lists keep none (get_library_item has it).
const DescriptionLimit = 1000

// ListCap is the most entries a list inside one object carries (a
// podcast's episodes, a collection's books in a write's answer).
const ListCap = 100

// Inner caps: how many of a short list inside one item a compact answer
// shows before it says how many more there are.
const (
	// NamesCap is for authors, narrators and series.
	NamesCap = 10
	// TermsCap is for genres and tags.
	TermsCap = 20
	// BriefNamesCap is how many author names an item in a list shows.
	BriefNamesCap = 5
)

// restOfItem is where the rest of a list inside an item is.
const restOfItem = `detail "full" (all of them, when it fits the result budget)`

// ---------------------------------------------------------------- decoding

// absSeries is a book's series: Audiobookshelf sends a list on expanded
// items and a single object on list pages filtered by series.
type absSeries []absSeriesRef

type absSeriesRef struct {
	ID       string  `json:"id"`
	Name     string  `json:"name"`
	Sequence *string `json:"sequence"`
}

func (s *absSeries) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] == 'n' {
		*s = nil
		return nil
	}
	if b[0] == '{' {
		var one absSeriesRef
		if err := unmarshal(b, &one); err != nil {
			return err
		}
		*s = absSeries{one}
		return nil
	}
	var many []absSeriesRef
	if err := unmarshal(b, &many); err != nil {
		return err
	}
	*s = many
	return nil
}

// flexString takes a string, a number or null (publishedYear and sequence
// arrive as either).
type flexString string

func (f *flexString) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] == 'n' {
		*f = ""
		return nil
	}
	if b[0] == '"' {
		var s string
		if err := unmarshal(b, &s); err != nil {
			return err
		}
		*f = flexString(s)
		return nil
	}
	*f = flexString(string(b))
	return nil
}

// lazyText is a JSON string kept as it came and decoded only when read.
// Descriptions are the longest strings of an answer, often with escapes and
// characters outside ASCII that are slow to decode, and a list's compact
// form shows none of the many it receives.
type lazyText []byte

// UnmarshalJSON keeps a copy of the raw value.
func (t *lazyText) UnmarshalJSON(b []byte) error {
	*t = append((*t)[:0], b...)
	return nil
}

// String decodes the text: "" for null, a missing value or one that is
// not a string.
func (t lazyText) String() string {
	if len(t) == 0 || t[0] != '"' {
		return ""
	}
	var s string
	if unmarshal(t, &s) != nil {
		return ""
	}
	return s
}

type absRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type absMetadata struct {
	Title         string     `json:"title"`
	Subtitle      string     `json:"subtitle"`
	Authors       []absRef   `json:"authors"`
	AuthorName    string     `json:"authorName"`
	Author        string     `json:"author"` // podcasts
	Narrators     []string   `json:"narrators"`
	NarratorName  string     `json:"narratorName"`
	Series        absSeries  `json:"series"`
	SeriesName    string     `json:"seriesName"`
	Genres        []string   `json:"genres"`
	PublishedYear flexString `json:"publishedYear"`
	Publisher     string     `json:"publisher"`
	Description   lazyText   `json:"description"`
	Language      string     `json:"language"`
	Explicit      bool       `json:"explicit"`
	Abridged      bool       `json:"abridged"`
	ISBN          string     `json:"isbn"`
	ASIN          string     `json:"asin"`
	ReleaseDate   string     `json:"releaseDate"`
}

type absChapter struct {
	ID    int     `json:"id"`
	Start float64 `json:"start"`
	End   float64 `json:"end"`
	Title string  `json:"title"`
}

type absEpisode struct {
	ID            string     `json:"id"`
	LibraryItemID string     `json:"libraryItemId"`
	Index         *int       `json:"index"`
	Season        flexString `json:"season"`
	Episode       flexString `json:"episode"`
	EpisodeType   string     `json:"episodeType"`
	Title         string     `json:"title"`
	Subtitle      string     `json:"subtitle"`
	Description   lazyText   `json:"description"`
	PubDate       string     `json:"pubDate"`
	PublishedAt   int64      `json:"publishedAt"`
	Duration      float64    `json:"duration"`
	AudioFile     *struct {
		Duration float64 `json:"duration"`
	} `json:"audioFile"`
	Chapters []absChapter `json:"chapters"`
	Podcast  *struct {
		Metadata absMetadata `json:"metadata"`
	} `json:"podcast"`
}

func (e *absEpisode) duration() float64 {
	if e.Duration > 0 {
		return e.Duration
	}
	if e.AudioFile != nil {
		return e.AudioFile.Duration
	}
	return 0
}

type absMedia struct {
	ID            string       `json:"id"`
	Metadata      absMetadata  `json:"metadata"`
	Tags          []string     `json:"tags"`
	Duration      float64      `json:"duration"`
	NumChapters   int          `json:"numChapters"`
	NumTracks     int          `json:"numTracks"`
	NumAudioFiles int          `json:"numAudioFiles"`
	NumEpisodes   int          `json:"numEpisodes"`
	Size          int64        `json:"size"`
	Chapters      []absChapter `json:"chapters"`
	AudioFiles    []struct{}   `json:"audioFiles"` // only counted: nothing of a file is decoded
	Episodes      []absEpisode `json:"episodes"`
	EbookFormat   string       `json:"ebookFormat"`
}

type absProgress struct {
	ID                        string  `json:"id"`
	LibraryItemID             string  `json:"libraryItemId"`
	EpisodeID                 *string `json:"episodeId"`
	Duration                  float64 `json:"duration"`
	Progress                  float64 `json:"progress"`
	CurrentTime               float64 `json:"currentTime"`
	IsFinished                bool    `json:"isFinished"`
	HideFromContinueListening bool    `json:"hideFromContinueListening"`
	LastUpdate                int64   `json:"lastUpdate"`
	StartedAt                 int64   `json:"startedAt"`
	FinishedAt                *int64  `json:"finishedAt"`
}

type absItem struct {
	ID                string       `json:"id"`
	LibraryID         string       `json:"libraryId"`
	MediaType         string       `json:"mediaType"`
	AddedAt           int64        `json:"addedAt"`
	UpdatedAt         int64        `json:"updatedAt"`
	IsMissing         bool         `json:"isMissing"`
	IsInvalid         bool         `json:"isInvalid"`
	Size              int64        `json:"size"`
	Media             absMedia     `json:"media"`
	UserMediaProgress *absProgress `json:"userMediaProgress"`
	MediaProgress     *absProgress `json:"mediaProgress"`
	CollapsedSeries   *struct {
		ID       string     `json:"id"`
		Name     string     `json:"name"`
		Sequence flexString `json:"sequence"`
		NumBooks int        `json:"numBooks"`
	} `json:"collapsedSeries"`
	RecentEpisode *absEpisode `json:"recentEpisode"`
}

// ---------------------------------------------------------------- compact forms

// SeriesRef is a series with this book's place in it.
type SeriesRef struct {
	ID       string `json:"id,omitempty"`
	Name     string `json:"name"`
	Sequence string `json:"sequence,omitempty"`
}

// ItemBrief is one item in a list.
type ItemBrief struct {
	ID          string      `json:"id"`
	Type        string      `json:"type,omitempty"` // podcast; books say nothing
	Title       string      `json:"title"`
	Subtitle    string      `json:"subtitle,omitempty"`
	Authors     string      `json:"authors,omitempty"`
	Series      []SeriesRef `json:"series,omitempty"`
	SeriesMore  int         `json:"series_more,omitempty"` // series left out (get_library_item has them)
	SeriesName  string      `json:"series_name,omitempty"`
	Year        string      `json:"year,omitempty"`
	DurationS   int64       `json:"duration_s,omitempty"`
	Episodes    int         `json:"episodes,omitempty"`
	ProgressPct *int        `json:"progress_pct,omitempty"`
	Finished    bool        `json:"finished,omitempty"`
	Added       string      `json:"added,omitempty"`
	// CollapsedSeries stands for a whole series when collapse_series is on.
	CollapsedSeries *CollapsedSeries `json:"collapsed_series,omitempty"`
}

// CollapsedSeries is a series shown once in a collapsed list.
type CollapsedSeries struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	NumBooks int    `json:"num_books"`
}

// Progress is a user's progress on one item or episode.
type Progress struct {
	ID          string  `json:"id"` // the record id delete_media_progress takes
	ItemID      string  `json:"library_item_id,omitempty"`
	EpisodeID   string  `json:"episode_id,omitempty"`
	CurrentTime float64 `json:"current_time_s"`
	DurationS   int64   `json:"duration_s,omitempty"`
	ProgressPct int     `json:"progress_pct"`
	Finished    bool    `json:"finished"`
	Hidden      bool    `json:"hidden_from_continue_listening,omitempty"`
	LastUpdate  string  `json:"last_update,omitempty"`
	StartedAt   string  `json:"started_at,omitempty"`
	FinishedAt  string  `json:"finished_at,omitempty"`
}

// ItemDetail is one item in full compact form.
type ItemDetail struct {
	ID                string         `json:"id"`
	LibraryID         string         `json:"library_id"`
	Type              string         `json:"type"`
	Title             string         `json:"title"`
	Subtitle          string         `json:"subtitle,omitempty"`
	Authors           []absRef       `json:"authors,omitempty"`
	Author            string         `json:"author,omitempty"`
	Narrators         []string       `json:"narrators,omitempty"`
	Series            []SeriesRef    `json:"series,omitempty"`
	Genres            []string       `json:"genres,omitempty"`
	Tags              []string       `json:"tags,omitempty"`
	Year              string         `json:"year,omitempty"`
	Publisher         string         `json:"publisher,omitempty"`
	Language          string         `json:"language,omitempty"`
	ISBN              string         `json:"isbn,omitempty"`
	ASIN              string         `json:"asin,omitempty"`
	Abridged          bool           `json:"abridged,omitempty"`
	Explicit          bool           `json:"explicit,omitempty"`
	DurationS         int64          `json:"duration_s,omitempty"`
	Chapters          int            `json:"chapters,omitempty"`
	AudioFiles        int            `json:"audio_files,omitempty"`
	Ebook             string         `json:"ebook,omitempty"`
	Added             string         `json:"added,omitempty"`
	Missing           bool           `json:"missing,omitempty"`
	Description       string         `json:"description,omitempty"`
	DescriptionLength int            `json:"description_length,omitempty"`
	Progress          *Progress      `json:"progress,omitempty"`
	Episodes          []EpisodeBrief `json:"episodes,omitempty"`
	EpisodesTotal     int            `json:"episodes_total,omitempty"`
	// Cut says which lists show only their first entries, how many more
	// there are and where the rest is.
	Cut map[string]Cut `json:"cut,omitempty"`
}

// EpisodeBrief is one podcast episode in a list.
type EpisodeBrief struct {
	ID        string `json:"id"`
	ItemID    string `json:"library_item_id,omitempty"`
	Podcast   string `json:"podcast,omitempty"`
	Title     string `json:"title"`
	Season    string `json:"season,omitempty"`
	Episode   string `json:"episode,omitempty"`
	Published string `json:"published,omitempty"`
	DurationS int64  `json:"duration_s,omitempty"`
}

// ---------------------------------------------------------------- helpers

func seconds(f float64) int64 {
	if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0
	}
	return int64(math.Round(f))
}

func pct(f float64) int {
	if math.IsNaN(f) || f < 0 {
		return 0
	}
	if f > 1 {
		f = 1
	}
	return int(math.Round(f * 100))
}

// date renders a millisecond timestamp as a UTC date; "" for none.
func date(ms int64) string {
	if ms <= 0 {
		return ""
	}
	return time.UnixMilli(ms).UTC().Format("2006-01-02")
}

// stamp renders a millisecond timestamp as UTC date and time.
func stamp(ms int64) string {
	if ms <= 0 {
		return ""
	}
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05Z")
}

// collapse folds white space and strips HTML tags from a description, then
// cuts it at limit characters. It returns the text and the full length (in
// characters, after folding) when it was cut, else 0.
func collapse(s string, limit int) (string, int) {
	s = stripTags(s)
	s = strings.Join(strings.Fields(s), " ")
	n := utf8.RuneCountInString(s)
	if n <= limit {
		return s, 0
	}
	r := []rune(s)
	return string(r[:limit]) + "…", n
}

func stripTags(s string) string {
	if !strings.ContainsAny(s, "<&") {
		return s
	}
	var b strings.Builder
	in := false
	for _, c := range s {
		switch {
		case c == '<':
			in = true
			b.WriteByte(' ')
		case c == '>' && in:
			in = false
		case !in:
			b.WriteRune(c)
		}
	}
	r := strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">", "&quot;", `"`, "&#39;", "'", "&nbsp;", " ")
	return r.Replace(b.String())
}

func seriesRefs(s absSeries) []SeriesRef {
	if len(s) == 0 {
		return nil
	}
	out := make([]SeriesRef, 0, len(s))
	for _, r := range s {
		ref := SeriesRef{ID: r.ID, Name: r.Name}
		if r.Sequence != nil {
			ref.Sequence = *r.Sequence
		}
		out = append(out, ref)
	}
	return out
}

// authorNames is the authors of an item as one line: the first
// BriefNamesCap names and, for an anthology, "(+365 more)".
func authorNames(m *absMetadata) string {
	if m.Author != "" && m.AuthorName == "" && len(m.Authors) == 0 {
		return m.Author // a podcast's author is one free text
	}
	var names []string
	if len(m.Authors) > 0 {
		names = make([]string, 0, len(m.Authors))
		for _, a := range m.Authors {
			names = append(names, a.Name)
		}
	} else if m.AuthorName != "" {
		// Audiobookshelf joins the names with ", " (Book.authorName).
		names = strings.Split(m.AuthorName, ", ")
	}
	if len(names) > BriefNamesCap {
		return strings.Join(names[:BriefNamesCap], ", ") + fmt.Sprintf(" (+%d more)", len(names)-BriefNamesCap)
	}
	return strings.Join(names, ", ")
}

func progressOf(p *absProgress) *Progress {
	if p == nil {
		return nil
	}
	out := &Progress{
		ID: p.ID, ItemID: p.LibraryItemID, CurrentTime: math.Round(p.CurrentTime*10) / 10,
		DurationS: seconds(p.Duration), ProgressPct: pct(p.Progress), Finished: p.IsFinished,
		Hidden: p.HideFromContinueListening, LastUpdate: stamp(p.LastUpdate), StartedAt: stamp(p.StartedAt),
	}
	if p.EpisodeID != nil {
		out.EpisodeID = *p.EpisodeID
	}
	if p.FinishedAt != nil {
		out.FinishedAt = stamp(*p.FinishedAt)
	}
	return out
}

// brief projects a list entry. progress, when given, is looked up by item id.
func brief(it *absItem, progress map[string]*absProgress) ItemBrief {
	m := &it.Media.Metadata
	b := ItemBrief{
		ID: it.ID, Title: m.Title, Subtitle: m.Subtitle, Authors: authorNames(m),
		Year: string(m.PublishedYear), DurationS: seconds(it.Media.Duration), Added: date(it.AddedAt),
	}
	if it.MediaType == "podcast" {
		b.Type = "podcast"
		b.Episodes = it.Media.NumEpisodes
		if b.Episodes == 0 {
			b.Episodes = len(it.Media.Episodes)
		}
	}
	if refs := seriesRefs(m.Series); refs != nil {
		if len(refs) > BriefNamesCap {
			b.SeriesMore = len(refs) - BriefNamesCap
			refs = refs[:BriefNamesCap]
		}
		b.Series = refs
	} else if m.SeriesName != "" {
		b.SeriesName = m.SeriesName
	}
	p := it.UserMediaProgress
	if p == nil {
		p = it.MediaProgress
	}
	if p == nil && progress != nil {
		p = progress[it.ID]
	}
	if p != nil {
		v := pct(p.Progress)
		if p.IsFinished {
			v = 100
		}
		b.ProgressPct = &v
		b.Finished = p.IsFinished
	}
	if cs := it.CollapsedSeries; cs != nil {
		b.CollapsedSeries = &CollapsedSeries{ID: cs.ID, Name: cs.Name, NumBooks: cs.NumBooks}
	}
	return b
}

// detail projects one expanded item.
func detail(it *absItem) ItemDetail {
	m := &it.Media.Metadata
	d := ItemDetail{
		ID: it.ID, LibraryID: it.LibraryID, Type: it.MediaType, Title: m.Title, Subtitle: m.Subtitle,
		Authors: m.Authors, Narrators: m.Narrators, Series: seriesRefs(m.Series), Genres: m.Genres, Tags: it.Media.Tags,
		Year: string(m.PublishedYear), Publisher: m.Publisher, Language: m.Language, ISBN: m.ISBN, ASIN: m.ASIN,
		Abridged: m.Abridged, Explicit: m.Explicit, DurationS: seconds(it.Media.Duration),
		Chapters: len(it.Media.Chapters), Ebook: it.Media.EbookFormat, Added: date(it.AddedAt), Missing: it.IsMissing,
		Progress: progressOf(it.UserMediaProgress),
	}
	if d.Chapters == 0 {
		d.Chapters = it.Media.NumChapters
	}
	d.AudioFiles = len(it.Media.AudioFiles)
	if d.AudioFiles == 0 {
		d.AudioFiles = it.Media.NumAudioFiles
	}
	cuts := map[string]Cut{}
	d.Authors = firstOf(d.Authors, NamesCap, restOfItem, cuts, "authors")
	d.Narrators = firstOf(d.Narrators, NamesCap, restOfItem, cuts, "narrators")
	d.Series = firstOf(d.Series, NamesCap, restOfItem, cuts, "series")
	d.Genres = firstOf(d.Genres, TermsCap, restOfItem, cuts, "genres")
	d.Tags = firstOf(d.Tags, TermsCap, restOfItem, cuts, "tags")
	if it.MediaType == "podcast" {
		d.Author = m.Author
		d.Authors = nil
		delete(cuts, "authors")
		eps := it.Media.Episodes
		d.EpisodesTotal = len(eps)
		eps = firstOf(eps, ListCap, "list_recent_episodes for the newest; get_podcast_episode for one", cuts, "episodes")
		for i := range eps {
			d.Episodes = append(d.Episodes, episodeBrief(&eps[i], ""))
		}
	}
	if len(cuts) > 0 {
		d.Cut = cuts
	}
	d.Description, d.DescriptionLength = collapse(m.Description.String(), DescriptionLimit)
	return d
}

func episodeBrief(e *absEpisode, podcast string) EpisodeBrief {
	b := EpisodeBrief{ID: e.ID, ItemID: e.LibraryItemID, Podcast: podcast, Title: e.Title,
		Season: string(e.Season), Episode: string(e.Episode), DurationS: seconds(e.duration())}
	if e.PublishedAt > 0 {
		b.Published = date(e.PublishedAt)
	} else if t, err := time.Parse(time.RFC1123Z, e.PubDate); err == nil {
		b.Published = t.UTC().Format("2006-01-02")
	}
	return b
}

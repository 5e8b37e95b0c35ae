package compact

import (
	"fmt"
	"strings"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
)

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

// SeriesRef is a series with this book's place in it.
type SeriesRef struct {
	ID       string `json:"id,omitempty"`
	Name     string `json:"name"`
	Sequence string `json:"sequence,omitempty"`
	// Next is the book after this one in the series, where a list gives it.
	Next *BookRef `json:"next,omitempty"`
}

// BookRef is a book by id and title, with its place in a series.
type BookRef struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Sequence string `json:"sequence,omitempty"`
}

// CollapsedSeries is a series shown once in a collapsed list.
type CollapsedSeries struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	NumBooks int    `json:"num_books"`
}

// ItemDetail is one item in full compact form.
type ItemDetail struct {
	ID                string         `json:"id"`
	LibraryID         string         `json:"library_id"`
	Type              string         `json:"type"`
	Title             string         `json:"title"`
	Subtitle          string         `json:"subtitle,omitempty"`
	Authors           []absdata.Ref  `json:"authors,omitempty"`
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
	Cut map[string]result.Cut `json:"cut,omitempty"`
}

func seriesRefs(s absdata.SeriesRefs) []SeriesRef {
	if len(s) == 0 {
		return nil
	}
	out := make([]SeriesRef, 0, len(s))
	for _, r := range s {
		ref := SeriesRef{ID: r.ID, Name: r.Name}
		ref.Sequence = r.Sequence.Value
		out = append(out, ref)
	}
	return out
}

// AuthorNames is the authors of an item as one line: the first
// BriefNamesCap names and, for an anthology, "(+365 more)".
func AuthorNames(m *absdata.Metadata) string {
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

// Brief projects a list entry. progress, when given, is looked up by item id.
func Brief(it *absdata.Item, progress map[string]*absdata.Progress) ItemBrief {
	m := &it.Media.Metadata
	b := ItemBrief{
		ID: it.ID, Title: m.Title.Value, Subtitle: m.Subtitle.Value, Authors: AuthorNames(m),
		Year: m.PublishedYear.Value, DurationS: Seconds(it.Media.Duration), Added: Date(it.AddedAt),
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
		v := Pct(p.Progress)
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

// Detail projects one expanded item.
func Detail(it *absdata.Item) ItemDetail {
	m := &it.Media.Metadata
	d := ItemDetail{
		ID: it.ID, LibraryID: it.LibraryID, Type: it.MediaType, Title: m.Title.Value, Subtitle: m.Subtitle.Value,
		Authors: m.Authors, Narrators: m.Narrators, Series: seriesRefs(m.Series), Genres: m.Genres, Tags: it.Media.Tags,
		Year: m.PublishedYear.Value, Publisher: m.Publisher.Value, Language: m.Language.Value, ISBN: m.ISBN.Value, ASIN: m.ASIN.Value,
		Abridged: m.Abridged, Explicit: m.Explicit, DurationS: Seconds(it.Media.Duration),
		Chapters: len(it.Media.Chapters), Ebook: it.Media.EbookFormat, Added: Date(it.AddedAt), Missing: it.IsMissing,
		Progress: ProgressOf(it.UserMediaProgress),
	}
	if d.Chapters == 0 {
		d.Chapters = it.Media.NumChapters
	}
	d.AudioFiles = len(it.Media.AudioFiles)
	if d.AudioFiles == 0 {
		d.AudioFiles = it.Media.NumAudioFiles
	}
	cuts := map[string]result.Cut{}
	d.Authors = result.FirstOf(d.Authors, NamesCap, restOfItem, cuts, "authors")
	d.Narrators = result.FirstOf(d.Narrators, NamesCap, restOfItem, cuts, "narrators")
	d.Series = result.FirstOf(d.Series, NamesCap, restOfItem, cuts, "series")
	d.Genres = result.FirstOf(d.Genres, TermsCap, restOfItem, cuts, "genres")
	d.Tags = result.FirstOf(d.Tags, TermsCap, restOfItem, cuts, "tags")
	if it.MediaType == "podcast" {
		d.Author = m.Author
		d.Authors = nil
		delete(cuts, "authors")
		eps := it.Media.Episodes
		d.EpisodesTotal = len(eps)
		eps = result.FirstOf(eps, ListCap, "list_recent_episodes for the newest; get_podcast_episode for one", cuts, "episodes")
		for i := range eps {
			d.Episodes = append(d.Episodes, Episode(&eps[i], ""))
		}
	}
	if len(cuts) > 0 {
		d.Cut = cuts
	}
	d.Description, d.DescriptionLength = Collapse(m.Description.String(), DescriptionLimit)
	return d
}

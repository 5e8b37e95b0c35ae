package upkeep

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"unicode"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/argdec"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/text/unicode/norm"
)

// candidateDescription is how much of a candidate's description is shown
// beside it (its whole text is in the fill call when the book has none);
// fillDescription the longest description a fill call carries, so that a
// page of candidates fits the result budget.
const (
	candidateDescription = 200
	fillDescription      = 5000
)

// Candidate is one provider result beside the book, as
// find_match_candidates shows it.
type Candidate struct {
	// Rank is the result's place in the provider's answer (1 first).
	Rank int `json:"rank"`
	// Fit is how well the result fits the book, 0 to 1, and Why the
	// comparisons it was made of.
	Fit                float64  `json:"fit"`
	Why                []string `json:"why"`
	Title              string   `json:"title,omitempty"`
	Subtitle           string   `json:"subtitle,omitempty"`
	Author             string   `json:"author,omitempty"`
	Narrator           string   `json:"narrator,omitempty"`
	Series             []string `json:"series,omitempty"`
	DurationMinutes    *float64 `json:"duration_minutes,omitempty"`
	ASIN               string   `json:"asin,omitempty"`
	ISBN               string   `json:"isbn,omitempty"`
	Publisher          string   `json:"publisher,omitempty"`
	PublishedYear      string   `json:"published_year,omitempty"`
	Language           string   `json:"language,omitempty"`
	Genres             []string `json:"genres,omitempty"`
	Description        string   `json:"description,omitempty"`
	DescriptionLength  int      `json:"description_length,omitempty"`
	ProviderConfidence *float64 `json:"provider_confidence,omitempty"`
	Cover              string   `json:"cover,omitempty"`
	// Differs names the book's filled fields the result holds another
	// value for: what an update with them would replace.
	Differs []string `json:"differs,omitempty"`
	// Fill is the update_item_metadata call that fills the book's empty
	// fields from the result (nil when it fills none); NotFilled says
	// which of them it leaves out, and why.
	Fill      *result.PutBack `json:"fill,omitempty"`
	NotFilled string          `json:"not_filled,omitempty"`
}

// bookView is the book the candidates are compared with.
type bookView struct {
	Title           string   `json:"title"`
	Authors         []string `json:"authors"`
	Narrators       []string `json:"narrators,omitempty"`
	Series          []string `json:"series,omitempty"`
	DurationMinutes float64  `json:"duration_minutes"`
	ASIN            string   `json:"asin,omitempty"`
	ISBN            string   `json:"isbn,omitempty"`
}

// FindMatchCandidates is find_match_candidates.
func FindMatchCandidates(ctx context.Context, d *kit.Deps, a toolargs.FindMatchCandidates) (*mcp.CallToolResult, error) {
	b, title, author, err := searchBook(ctx, d, readBookExpanded, a.LibraryItemID, "find_match_candidates", a.Title, a.Author)
	if err != nil {
		return nil, err
	}
	provider := a.Provider
	id := a.LibraryItemID
	body, err := d.Get(ctx, "the "+provider+" search", func(ctx context.Context) (*http.Response, error) {
		p := abs.SearchBooksParams{Provider: &provider, Title: &title, Id: &id}
		if author != "" {
			p.Author = &author
		}
		return d.API.SearchBooks(ctx, &p)
	})
	if err != nil {
		return nil, err
	}
	var results []absdata.BookSearchResult
	if err := kit.Decode(body, &results); err != nil {
		return nil, err
	}
	view := viewOf(b)
	out := make([]Candidate, 0, len(results))
	for i := range results {
		out = append(out, candidateOf(b, view, &results[i], i+1))
	}
	slices.SortStableFunc(out, func(x, y Candidate) int {
		switch {
		case x.Fit > y.Fit:
			return -1
		case x.Fit < y.Fit:
			return 1
		}
		return 0
	})
	extra := []result.Field{result.Extra("book", view), result.Extra("provider", provider), result.Extra("searched", map[string]string{"title": title, "author": author})}
	if len(out) == 0 {
		extra = append(extra, result.Extra("note", "The provider had no result (Audiobookshelf answers none too when it cannot reach the provider). Try another provider, or a shorter title."))
	} else {
		extra = append(extra, result.Extra("note", "Best fit first. To take one: its fill call fills the book's empty fields (add fields to replace filled ones: update_item_metadata answers with the put-back, or asks); set_item_cover takes its cover."))
	}
	return result.Page(d, "candidates", result.PagingOf(a.Page, a.Limit), out, nil, result.AsIs, extra...)
}

// readBookExpanded reads a book expanded (its duration is there).
func readBookExpanded(ctx context.Context, d *kit.Deps, id, tool string) (*absdata.Item, error) {
	body, err := d.Get(ctx, "library item "+id, func(ctx context.Context) (*http.Response, error) {
		return d.API.GetLibraryItem(ctx, id, &abs.GetLibraryItemParams{Expanded: kit.Ptr(abs.GetLibraryItemParamsExpandedN1)})
	})
	if err != nil {
		return nil, err
	}
	var b absdata.Item
	if err := kit.Decode(body, &b); err != nil {
		return nil, err
	}
	if b.MediaType != "book" {
		return nil, kit.Errorf(kit.Unchanged, `argument "library_item_id": %s is a %s; %s works on books only.`, id, b.MediaType, tool)
	}
	return &b, nil
}

// searchBook reads book id for tool with read, and the terms to search
// for (searchTerms).
func searchBook(ctx context.Context, d *kit.Deps, read func(context.Context, *kit.Deps, string, string) (*absdata.Item, error), id, tool string, title, author *string) (*absdata.Item, string, string, error) {
	b, err := read(ctx, d, id, tool)
	if err != nil {
		return nil, "", "", err
	}
	t, au, err := searchTerms(b, title, author, id)
	return b, t, au, err
}

// searchTerms are the title and author searched for: those given, else
// the book's title and its authors' names, as the Match tab of
// Audiobookshelf's web client fills them in. A book (id) with no title
// to search for, and none given, is an error.
func searchTerms(b *absdata.Item, title, author *string, id string) (string, string, error) {
	m := &b.Media.Metadata
	t := m.Title.Value
	if title != nil {
		t = *title
	}
	var names []string
	for _, au := range m.Authors {
		names = append(names, au.Name)
	}
	au := strings.Join(names, ", ")
	if author != nil {
		au = *author
	}
	if t = strings.TrimSpace(t); t == "" {
		return "", "", kit.Errorf(kit.Unchanged, `argument "title": book %s has no title to search for; give one.`, id)
	}
	return t, strings.TrimSpace(au), nil
}

func seriesLabel(name, seq string) string {
	if seq == "" {
		return name
	}
	return name + " #" + seq
}

func viewOf(b *absdata.Item) bookView {
	m := &b.Media.Metadata
	v := bookView{Title: m.Title.Value, Authors: []string{}, Narrators: m.Narrators, ASIN: m.ASIN.Value, ISBN: m.ISBN.Value,
		DurationMinutes: math.Round(b.Media.Duration/60*10) / 10}
	for _, au := range m.Authors {
		v.Authors = append(v.Authors, au.Name)
	}
	for _, s := range m.Series {
		v.Series = append(v.Series, seriesLabel(s.Name, s.Sequence.Value))
	}
	return v
}

// fold is a text for comparing: accents, case and everything in
// parentheses dropped, punctuation turned into spaces.
func fold(s string) string {
	s = norm.NFD.String(s)
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '(' || r == '[':
			depth++
		case (r == ')' || r == ']') && depth > 0:
			depth--
		case depth > 0 || unicode.Is(unicode.Mn, r):
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(' ')
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// similar is how alike two folded texts are: 1 the same (or the same
// joined, without spaces), 0.8 when one holds the other, else the share of
// words they have in common.
func similar(x, y string) float64 {
	x, y = fold(x), fold(y)
	if x == "" || y == "" {
		return 0
	}
	if x == y || strings.ReplaceAll(x, " ", "") == strings.ReplaceAll(y, " ", "") {
		return 1
	}
	if strings.Contains(" "+x+" ", " "+y+" ") || strings.Contains(" "+y+" ", " "+x+" ") {
		return 0.8
	}
	wx, wy := strings.Fields(x), strings.Fields(y)
	common := 0
	for _, w := range wx {
		if slices.Contains(wy, w) {
			common++
		}
	}
	return float64(common) / float64(max(len(wx), len(wy)))
}

// bestOf is the best similarity of any name of xs to any of ys.
func bestOf(xs, ys []string) float64 {
	best := 0.0
	for _, x := range xs {
		for _, y := range ys {
			best = max(best, similar(x, y))
		}
	}
	return best
}

func splitNames(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func sameCode(x, y string) bool {
	clean := func(s string) string {
		return strings.ToUpper(strings.NewReplacer("-", "", " ", "").Replace(strings.TrimSpace(s)))
	}
	return clean(x) == clean(y)
}

// candidateOf compares result r (rank in the provider's answer) with book
// b. The fit is a weighted mean of the comparisons both sides can make:
// title 3, authors 2, duration 2, ASIN 2, narrators, series and ISBN 1.
func candidateOf(b *absdata.Item, view bookView, r *absdata.BookSearchResult, rank int) Candidate {
	c := Candidate{Rank: rank, Title: string(r.Title), Subtitle: string(r.Subtitle), Author: string(r.Author), Narrator: string(r.Narrator),
		ASIN: string(r.ASIN), ISBN: string(r.ISBN), Publisher: string(r.Publisher), PublishedYear: string(r.PublishedYear),
		Language: string(r.Language), Genres: r.Genres, Cover: string(r.Cover), ProviderConfidence: r.MatchConfidence}
	for _, s := range r.Series {
		if s.Series != "" {
			c.Series = append(c.Series, seriesLabel(string(s.Series), string(s.Sequence)))
		}
	}
	if desc := string(r.Description); desc != "" {
		shown, total, _ := result.Excerpt(desc, candidateDescription, "")
		c.Description = shown
		if total > len([]rune(shown)) {
			c.DescriptionLength = total
		}
	}
	var sum, weights float64
	add := func(w, score float64, why string) {
		sum += w * score
		weights += w
		c.Why = append(c.Why, why)
	}
	word := func(s float64) string {
		switch {
		case s == 1:
			return "the same"
		case s >= 0.5:
			return "close"
		}
		return "different"
	}
	if c.Title != "" && view.Title != "" {
		s := similar(c.Title, view.Title)
		add(3, s, "title "+word(s))
	}
	if names := splitNames(c.Author); len(names) > 0 && len(view.Authors) > 0 {
		s := bestOf(names, view.Authors)
		add(2, s, "author "+word(s))
	}
	if r.Duration != nil && *r.Duration > 0 && view.DurationMinutes > 0 {
		mins := *r.Duration
		c.DurationMinutes = kit.Ptr(mins)
		off := math.Abs(mins - b.Media.Duration/60)
		rel := off / (b.Media.Duration / 60)
		// Within 2 minutes or 1% is the same recording; 25% off counts
		// for nothing (an abridged edition, a dramatisation).
		s := 1.0
		if off > 2 && rel > 0.01 {
			s = max(0, 1-rel*4)
		}
		add(2, s, fmt.Sprintf("duration %s min off", trimFloat(math.Round(off*10)/10)))
	}
	if c.ASIN != "" && view.ASIN != "" {
		if sameCode(c.ASIN, view.ASIN) {
			add(2, 1, "ASIN the same")
		} else {
			add(2, 0, "ASIN different")
		}
	}
	if names := splitNames(c.Narrator); len(names) > 0 && len(view.Narrators) > 0 {
		s := bestOf(names, view.Narrators)
		add(1, s, "narrator "+word(s))
	}
	if len(r.Series) > 0 && len(b.Media.Metadata.Series) > 0 {
		var theirs, ours []string
		for _, s := range r.Series {
			theirs = append(theirs, string(s.Series))
		}
		for _, s := range b.Media.Metadata.Series {
			ours = append(ours, s.Name)
		}
		s := bestOf(theirs, ours)
		add(1, s, "series "+word(s))
	}
	if c.ISBN != "" && view.ISBN != "" {
		if sameCode(c.ISBN, view.ISBN) {
			add(1, 1, "ISBN the same")
		} else {
			add(1, 0, "ISBN different")
		}
	}
	if weights > 0 {
		c.Fit = math.Round(sum/weights*100) / 100
	} else {
		c.Why = []string{"nothing to compare"}
	}
	fill := map[string]any{}
	var left []string
	for k, v := range resultFields(r) {
		if !holdsValue(b, k) {
			// A value update_item_metadata would refuse (too long, a
			// control character) is left out of the call, and so is a
			// description too long for a page of candidates.
			if s, ok := v.(string); ok && k == "description" && len([]rune(s)) > fillDescription {
				left = append(left, fmt.Sprintf("description (%d characters, more than %d)", len([]rune(s)), fillDescription))
			} else if pb, _ := putBackArgs(b.ID, map[string]any{k: v}); pb != nil {
				fill[k] = v
			} else {
				left = append(left, k+" (update_item_metadata would refuse it)")
			}
		} else if !sameValue(valueOf(b, k), v) {
			c.Differs = append(c.Differs, k)
		}
	}
	slices.Sort(c.Differs)
	if len(left) > 0 {
		slices.Sort(left)
		c.NotFilled = strings.Join(left, "; ")
	}
	if len(fill) > 0 {
		c.Fill = &result.PutBack{Tool: "update_item_metadata", Arguments: map[string]any{"library_item_id": b.ID, "fields": fill}}
	}
	return c
}

func trimFloat(f float64) string {
	return strings.TrimSuffix(strings.TrimSuffix(fmt.Sprintf("%.1f", f), "0"), ".")
}

// resultFields are a result's values as update_item_metadata names the
// fields, those it has a value for (the fields quick match takes).
func resultFields(r *absdata.BookSearchResult) map[string]any {
	out := map[string]any{}
	text := func(k string, v absdata.FlexString) {
		if s := strings.TrimSpace(string(v)); s != "" {
			out[k] = s
		}
	}
	text("title", r.Title)
	text("subtitle", r.Subtitle)
	text("description", r.Description)
	text("publish_year", r.PublishedYear)
	text("publisher", r.Publisher)
	text("language", r.Language)
	text("isbn", r.ISBN)
	text("asin", r.ASIN)
	if n := splitNames(string(r.Author)); len(n) > 0 {
		out["authors"] = n
	}
	if n := splitNames(string(r.Narrator)); len(n) > 0 {
		out["narrators"] = n
	}
	if len(r.Genres) > 0 {
		out["genres"] = []string(r.Genres)
	}
	if len(r.Tags) > 0 {
		out["tags"] = []string(r.Tags)
	}
	var series []argdec.SeriesEntry
	for _, s := range r.Series {
		if s.Series != "" {
			series = append(series, argdec.SeriesEntry{Name: string(s.Series), Sequence: string(s.Sequence)})
		}
	}
	if len(series) > 0 {
		out["series"] = series
	}
	return out
}

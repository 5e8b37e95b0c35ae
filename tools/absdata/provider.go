package absdata

import (
	"bytes"
	"strings"
)

// BookSearchResult is one result of a metadata provider's book search
// (GET /api/search/books: providers/Audible.cleanResult,
// GoogleBooks.cleanResult, CustomProviderAdapter.search, ...). Every field
// may be missing; genres and tags are lists from most providers and a
// comma-separated text from some, and publishedYear a number from some.
type BookSearchResult struct {
	Title           FlexString     `json:"title"`
	Subtitle        FlexString     `json:"subtitle"`
	Author          FlexString     `json:"author"`
	Narrator        FlexString     `json:"narrator"`
	Publisher       FlexString     `json:"publisher"`
	PublishedYear   FlexString     `json:"publishedYear"`
	Description     FlexString     `json:"description"`
	Cover           FlexString     `json:"cover"`
	ISBN            FlexString     `json:"isbn"`
	ASIN            FlexString     `json:"asin"`
	Genres          FlexList       `json:"genres"`
	Tags            FlexList       `json:"tags"`
	Series          []ResultSeries `json:"series"`
	Language        FlexString     `json:"language"`
	Duration        *float64       `json:"duration"`
	MatchConfidence *float64       `json:"matchConfidence"`
}

// ResultSeries is a provider result's place in one series.
type ResultSeries struct {
	Series   FlexString `json:"series"`
	Sequence FlexString `json:"sequence"`
}

// CoverSearch is GET /api/search/covers's answer: cover URLs.
type CoverSearch struct {
	Results []string `json:"results"`
}

// FlexList takes a list of strings, a comma-separated text or null.
type FlexList []string

func (f *FlexList) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || b[0] == 'n':
		*f = nil
		return nil
	case b[0] == '"':
		var s string
		if err := Unmarshal(b, &s); err != nil {
			return err
		}
		var out []string
		for _, p := range strings.Split(s, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		*f = out
		return nil
	}
	var l []FlexString
	if err := Unmarshal(b, &l); err != nil {
		return err
	}
	out := make([]string, 0, len(l))
	for _, s := range l {
		out = append(out, string(s))
	}
	*f = out
	return nil
}

// ProviderChapters is GET /api/search/chapters's answer: Audnexus's
// chapters of a book, or {error, stringKey} (with status 200).
type ProviderChapters struct {
	ASIN            string            `json:"asin"`
	Error           string            `json:"error"`
	IsAccurate      *bool             `json:"isAccurate"`
	RuntimeLengthMs float64           `json:"runtimeLengthMs"`
	Chapters        []ProviderChapter `json:"chapters"`
}

// ProviderChapter is one of Audnexus's chapters.
type ProviderChapter struct {
	LengthMs      float64 `json:"lengthMs"`
	StartOffsetMs float64 `json:"startOffsetMs"`
	Title         string  `json:"title"`
}

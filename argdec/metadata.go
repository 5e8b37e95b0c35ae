package argdec

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Bounds of a metadata_fields argument (update_item_metadata).
const (
	MaxMetadataTitle       = 1000
	MaxMetadataName        = 500
	MaxSequence            = 50
	MaxMetadataList        = 100
	MaxMetadataDescription = 100000
	MaxPublishYear         = 20
	MaxMetadataCode        = 50
)

// MetadataFieldNames are the fields a metadata_fields argument takes, in
// the order the tool reference lists them.
var MetadataFieldNames = []string{"title", "subtitle", "authors", "narrators", "series", "genres", "tags", "description", "publish_year",
	"publisher", "language", "isbn", "asin", "explicit", "abridged"}

// SeriesEntry is a book's place in one series.
type SeriesEntry struct {
	Name     string `json:"name"`
	Sequence string `json:"sequence,omitempty"`
}

// MetadataFields are the book metadata fields a call sets; a nil field is
// left as it is. A list given empty clears it; a text given "" clears it
// (not the title).
type MetadataFields struct {
	Title       *string        `json:"title,omitempty"`
	Subtitle    *string        `json:"subtitle,omitempty"`
	Authors     *[]string      `json:"authors,omitempty"`
	Narrators   *[]string      `json:"narrators,omitempty"`
	Series      *[]SeriesEntry `json:"series,omitempty"`
	Genres      *[]string      `json:"genres,omitempty"`
	Tags        *[]string      `json:"tags,omitempty"`
	Description *string        `json:"description,omitempty"`
	PublishYear *string        `json:"publish_year,omitempty"`
	Publisher   *string        `json:"publisher,omitempty"`
	Language    *string        `json:"language,omitempty"`
	ISBN        *string        `json:"isbn,omitempty"`
	ASIN        *string        `json:"asin,omitempty"`
	Explicit    *bool          `json:"explicit,omitempty"`
	Abridged    *bool          `json:"abridged,omitempty"`
}

// MetadataFields reads an object of book metadata fields; nil when absent.
// Every field is checked; an unknown field, a wrong type or a value out of
// bounds names the field (fields.authors[2]) and what is allowed.
func (d *Decoder) MetadataFields(name string, required bool) *MetadataFields {
	v := d.raw(name, required)
	if v == nil {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(v, &m); err != nil || m == nil {
		d.fail(name, "must be an object with some of %s, got %s", strings.Join(MetadataFieldNames, ", "), kind(v))
		return nil
	}
	var unknown []string
	for k := range m {
		known := false
		for _, f := range MetadataFieldNames {
			known = known || k == f
		}
		if !known {
			unknown = append(unknown, strconv.Quote(clip(k, 64)))
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		d.fail(name, "unknown field %s; it takes %s", strings.Join(unknown, ", "), strings.Join(MetadataFieldNames, ", "))
		return nil
	}
	sub := &Decoder{args: m}
	var f MetadataFields
	f.Title = sub.String("title", StringRule{MinLen: 1, MaxLen: MaxMetadataTitle})
	f.Subtitle = sub.String("subtitle", StringRule{MaxLen: MaxMetadataTitle})
	f.Description = sub.String("description", StringRule{MaxLen: MaxMetadataDescription})
	f.PublishYear = sub.String("publish_year", StringRule{MaxLen: MaxPublishYear})
	f.Publisher = sub.String("publisher", StringRule{MaxLen: MaxMetadataName})
	f.Language = sub.String("language", StringRule{MaxLen: MaxMetadataName})
	f.ISBN = sub.String("isbn", StringRule{MaxLen: MaxMetadataCode})
	f.ASIN = sub.String("asin", StringRule{MaxLen: MaxMetadataCode})
	f.Explicit = sub.Bool("explicit", false)
	f.Abridged = sub.Bool("abridged", false)
	f.Authors = sub.names("authors")
	f.Narrators = sub.names("narrators")
	f.Genres = sub.names("genres")
	f.Tags = sub.names("tags")
	f.Series = sub.series("series")
	for _, e := range sub.errs {
		var ae *Error
		if errors.As(e, &ae) {
			d.fail(name+"."+ae.Arg, "%s", ae.Msg)
		}
	}
	if len(sub.errs) > 0 {
		return nil
	}
	if len(m) == 0 || f == (MetadataFields{}) {
		d.fail(name, "must set at least one of %s", strings.Join(MetadataFieldNames, ", "))
		return nil
	}
	return &f
}

// names reads a list of distinct non-empty names; nil when absent.
func (d *Decoder) names(name string) *[]string {
	elems := d.list(name, ListRule{MaxItems: MaxMetadataList})
	if elems == nil {
		return nil
	}
	out := make([]string, 0, len(elems))
	seen := map[string]int{}
	for i, e := range elems {
		at := fmt.Sprintf("%s[%d]", name, i)
		sub := &Decoder{args: map[string]json.RawMessage{at: e}}
		s := sub.String(at, StringRule{Required: true, MinLen: 1, MaxLen: MaxMetadataName})
		if s == nil {
			d.errs = append(d.errs, sub.errs...)
			return nil
		}
		key := strings.ToLower(strings.TrimSpace(*s))
		if key == "" {
			d.fail(at, "must not be blank")
			return nil
		}
		if j, dup := seen[key]; dup {
			d.fail(name, "lists %s twice (entries %d and %d)", strconv.Quote(clip(*s, 64)), j, i)
			return nil
		}
		seen[key] = i
		out = append(out, *s)
	}
	return &out
}

// series reads a list of {name, sequence?}; nil when absent.
func (d *Decoder) series(name string) *[]SeriesEntry {
	elems := d.list(name, ListRule{MaxItems: MaxMetadataList})
	if elems == nil {
		return nil
	}
	out := make([]SeriesEntry, 0, len(elems))
	seen := map[string]int{}
	for i, e := range elems {
		at := fmt.Sprintf("%s[%d]", name, i)
		var m map[string]json.RawMessage
		if err := json.Unmarshal(e, &m); err != nil || m == nil {
			d.fail(at, "must be an object {name, sequence?}, got %s", kind(e))
			return nil
		}
		for k := range m {
			if k != "name" && k != "sequence" {
				d.fail(at, "unknown field %s; a series entry takes name and sequence", strconv.Quote(clip(k, 64)))
				return nil
			}
		}
		sub := &Decoder{args: m}
		n := sub.String("name", StringRule{Required: true, MinLen: 1, MaxLen: MaxMetadataName})
		seq := sub.String("sequence", StringRule{MaxLen: MaxSequence})
		if len(sub.errs) > 0 {
			for _, e := range sub.errs {
				var ae *Error
				if errors.As(e, &ae) {
					d.fail(at+"."+ae.Arg, "%s", ae.Msg)
				}
			}
			return nil
		}
		key := strings.ToLower(strings.TrimSpace(*n))
		if key == "" {
			d.fail(at+".name", "must not be blank")
			return nil
		}
		if j, dup := seen[key]; dup {
			d.fail(name, "lists series %s twice (entries %d and %d)", strconv.Quote(clip(*n, 64)), j, i)
			return nil
		}
		seen[key] = i
		s := SeriesEntry{Name: *n}
		if seq != nil {
			s.Sequence = *seq
		}
		out = append(out, s)
	}
	return &out
}

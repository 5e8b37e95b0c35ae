package absdata

import (
	"bytes"
	"encoding/json"

	sjson "github.com/segmentio/encoding/json"
)

// FlexString takes a string, a number or null (publishedYear and sequence
// arrive as either).
type FlexString string

func (f *FlexString) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] == 'n' {
		*f = ""
		return nil
	}
	if b[0] == '"' {
		var s string
		if err := Unmarshal(b, &s); err != nil {
			return err
		}
		*f = FlexString(s)
		return nil
	}
	*f = FlexString(string(b))
	return nil
}

// LazyText is a JSON string kept as it came and decoded only when read.
// Descriptions are the longest strings of an answer, often with escapes and
// characters outside ASCII that are slow to decode, and a list's compact
// form shows none of the many it receives.
type LazyText []byte

// UnmarshalJSON keeps a copy of the raw value.
func (t *LazyText) UnmarshalJSON(b []byte) error {
	*t = append((*t)[:0], b...)
	return nil
}

// Null reports a missing value or null: what a *string would hold as nil.
func (t LazyText) Null() bool { return len(t) == 0 || t[0] == 'n' }

// String decodes the text: "" for null, a missing value or one that is
// not a string.
func (t LazyText) String() string {
	if len(t) == 0 || t[0] != '"' {
		return ""
	}
	var s string
	if Unmarshal(t, &s) != nil {
		return ""
	}
	return s
}

// Unmarshal decodes an Audiobookshelf answer into this package's types with
// segmentio/encoding/json, the decoder go-sdk reads every protocol message
// with (so the binary gains nothing): encoding/json's behaviour, including
// the Unmarshaler types here, in one pass where encoding/json makes a
// validating pass and then a decoding one that rescans what it skips. On an
// expanded item, mostly fields the projection skips, that is about three
// times faster.
func Unmarshal(b []byte, v any) error { return sjson.Unmarshal(b, v) }

// Str is the text a nullable string holds, "" for null.
func Str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// RawValue is a JSON value kept as it came, decoded later by what it turns
// out to be (a shelf's entities) or sent back unchanged (a feed's
// episodes).
type RawValue = json.RawMessage

// Text is a JSON string that may be null or missing (Valid false), as
// sql.NullString is: Audiobookshelf holds some texts as null, and what
// the tools give back must be exactly what was there. A number is taken as
// its text (publishedYear and a series' sequence arrive as either). It
// costs no more to decode than a string (a *string costs an allocation
// more).
type Text struct {
	Value string
	Valid bool
}

// MarshalJSON writes the text as Audiobookshelf held it: a string, or
// null.
func (t Text) MarshalJSON() ([]byte, error) {
	if !t.Valid {
		return []byte("null"), nil
	}
	return json.Marshal(t.Value)
}

func (t *Text) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == 'n' {
		*t = Text{}
		return nil
	}
	t.Valid = true
	if len(b) > 0 && b[0] != '"' {
		t.Value = string(bytes.TrimSpace(b))
		return nil
	}
	return Unmarshal(b, &t.Value)
}

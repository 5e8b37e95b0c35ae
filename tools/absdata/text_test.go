package absdata

import (
	"encoding/json"
	"testing"
)

// A text keeps null and a missing key apart from "", and takes a number
// as its text: update_item_metadata's and match_library_item's answers
// give back exactly what was there.
func TestTextKeepsNullApartFromEmpty(t *testing.T) {
	for _, c := range []struct {
		body string
		want Text
	}{
		{`{"title":"Mort"}`, Text{"Mort", true}},
		{`{"title":""}`, Text{"", true}},
		{`{"title":null}`, Text{}},
		{`{}`, Text{}},
		{`{"title":1990}`, Text{"1990", true}},
		{`{"title":2.5}`, Text{"2.5", true}},
	} {
		var v struct {
			Title Text `json:"title"`
		}
		if err := Unmarshal([]byte(c.body), &v); err != nil || v.Title != c.want {
			t.Errorf("%s: %+v, %v; want %+v", c.body, v.Title, err, c.want)
		}
	}
	var m Metadata
	if err := Unmarshal([]byte(`{"description":null,"publishedYear":null,"series":[{"id":"s","name":"S","sequence":2}]}`), &m); err != nil {
		t.Fatal(err)
	}
	if !m.Description.Null() || m.PublishedYear.Valid || m.Series[0].Sequence != (Text{"2", true}) {
		t.Errorf("metadata: %+v", m)
	}
}

// Written out, a text is what Audiobookshelf held: a string or null.
func TestTextWritesAsHeld(t *testing.T) {
	for _, c := range []struct {
		in   Text
		want string
	}{{Text{"Mort", true}, `"Mort"`}, {Text{"", true}, `""`}, {Text{}, `null`}} {
		if b, err := json.Marshal(c.in); err != nil || string(b) != c.want {
			t.Errorf("%+v: %s, %v; want %s", c.in, b, err, c.want)
		}
	}
}

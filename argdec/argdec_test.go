package argdec

import (
	"encoding/json"
	"strings"
	"testing"
)

// Each bad value is refused with a message naming the argument and what is
// allowed.
func TestBadValues(t *testing.T) {
	long := strings.Repeat("a", 129)
	cases := []struct {
		raw  string
		read func(d *Decoder)
		want []string
	}{
		{`{"id":5}`, func(d *Decoder) { d.ID("id", true) }, []string{`"id"`, "id string", "a number"}},
		{`{}`, func(d *Decoder) { d.ID("id", true) }, []string{`"id"`, "is required"}},
		{`{"id":""}`, func(d *Decoder) { d.ID("id", true) }, []string{`"id"`, "must not be empty"}},
		{`{"id":"a/b"}`, func(d *Decoder) { d.ID("id", true) }, []string{`"id"`, "letters, digits"}},
		{`{"id":".."}`, func(d *Decoder) { d.ID("id", true) }, []string{`"id"`, "letters, digits"}},
		{`{"id":"a?b#c"}`, func(d *Decoder) { d.ID("id", true) }, []string{`"id"`}},
		{`{"id":"%2F"}`, func(d *Decoder) { d.ID("id", true) }, []string{`"id"`}},
		{`{"id":"a\u0000b"}`, func(d *Decoder) { d.ID("id", true) }, []string{`"id"`}},
		{`{"id":"` + long + `"}`, func(d *Decoder) { d.ID("id", true) }, []string{`"id"`, "at most 128"}},
		{`{"n":1.5}`, func(d *Decoder) { d.Integer("n", IntRule{Min: 0, Max: 10}) }, []string{`"n"`, "whole number from 0 to 10", "1.5"}},
		{`{"n":-1}`, func(d *Decoder) { d.Integer("n", IntRule{Min: 0, Max: 10}) }, []string{`"n"`, "from 0 to 10"}},
		{`{"n":1e308}`, func(d *Decoder) { d.Integer("n", IntRule{Min: 0, Max: 10}) }, []string{`"n"`}},
		{`{"n":"5"}`, func(d *Decoder) { d.Integer("n", IntRule{Min: 0, Max: 10}) }, []string{`"n"`, "a string"}},
		{`{"t":"NaN"}`, func(d *Decoder) { d.Number("t", NumRule{Min: 0, Max: 10}) }, []string{`"t"`, "number from 0 to 10"}},
		{`{"t":"Infinity"}`, func(d *Decoder) { d.Number("t", NumRule{Min: 0, Max: 10}) }, []string{`"t"`}},
		{`{"t":1e999}`, func(d *Decoder) { d.Number("t", NumRule{Min: 0, Max: 10}) }, []string{`"t"`}},
		{`{"b":"true"}`, func(d *Decoder) { d.Bool("b", false) }, []string{`"b"`, "true or false"}},
		{`{"s":"x"}`, func(d *Decoder) { d.String("s", StringRule{Enum: []string{"a", "b"}}) }, []string{`"s"`, "one of a, b"}},
		{`{"s":"custom-a/b"}`, func(d *Decoder) { d.String("s", StringRule{Enum: []string{"a"}, Pattern: "^custom-[a-z]+$"}) }, []string{`"s"`, "one of a, or match ^custom-[a-z]+$", `"custom-a/b"`}},
		{`{"s":"xcustom-ab"}`, func(d *Decoder) { d.String("s", StringRule{Enum: []string{"a"}, Pattern: "^custom-[a-z]+$"}) }, []string{`"s"`}},
		{`{"s":"x\u0007"}`, func(d *Decoder) { d.String("s", StringRule{}) }, []string{`"s"`, "control"}},
		{`{"l":"a"}`, func(d *Decoder) { d.IDList("l", ListRule{MinItems: 1}) }, []string{`"l"`, "must be a list"}},
		{`{"l":[]}`, func(d *Decoder) { d.IDList("l", ListRule{MinItems: 1}) }, []string{`"l"`, "must not be empty"}},
		{`{"l":["a","a"]}`, func(d *Decoder) { d.IDList("l", ListRule{MinItems: 1}) }, []string{`"l"`, "twice"}},
		{`{"l":["a",3]}`, func(d *Decoder) { d.IDList("l", ListRule{MinItems: 1}) }, []string{`"l[1]"`}},
		{`{"l":["a","b","c"]}`, func(d *Decoder) { d.IDList("l", ListRule{MaxItems: 2}) }, []string{`"l"`, "at most 2"}},
		{`{"l":["a","a"]}`, func(d *Decoder) { d.StringList("l", ListRule{MinItems: 1}, 5) }, []string{`"l"`, "twice"}},
		{`{"l":["a"," "]}`, func(d *Decoder) { d.StringList("l", ListRule{MinItems: 1}, 5) }, []string{`"l[1]"`, "empty or only spaces"}},
		{`{"l":["a\nb"]}`, func(d *Decoder) { d.StringList("l", ListRule{MinItems: 1}, 5) }, []string{`"l[0]"`, "control characters"}},
		{`{"l":["a\u0085"]}`, func(d *Decoder) { d.StringList("l", ListRule{MinItems: 1}, 5) }, []string{`"l[0]"`, "control characters"}},
		{`{"l":["abcdef"]}`, func(d *Decoder) { d.StringList("l", ListRule{MinItems: 1}, 5) }, []string{`"l[0]"`, "at most 5 characters"}},
		{`{"l":[7]}`, func(d *Decoder) { d.StringList("l", ListRule{MinItems: 1}, 5) }, []string{`"l[0]"`, "must be a string"}},
		{`{"l":[]}`, func(d *Decoder) { d.StringList("l", ListRule{MinItems: 1}, 5) }, []string{`"l"`, "must not be empty"}},
		{`{"p":[{"library_item_id":"a"},{"library_item_id":"b","episode_id":"e"}]}`, func(d *Decoder) { d.PlaylistItems("p", ListRule{}) }, []string{`"p"`, "mixes"}},
		{`{"p":[{"id":"a"}]}`, func(d *Decoder) { d.PlaylistItems("p", ListRule{}) }, []string{`"p[0]"`, "unknown field"}},
		{`{"p":[null]}`, func(d *Decoder) { d.PlaylistItems("p", ListRule{}) }, []string{`"p[0]"`}},
		{`{"p":[{"library_item_id":"../x"}]}`, func(d *Decoder) { d.PlaylistItems("p", ListRule{}) }, []string{`"p[0].library_item_id"`}},
		{`{"s":"ftp://feeds.example.com/x.xml"}`, func(d *Decoder) { d.String("s", StringRule{HTTPURL: true}) }, []string{`"s"`, "http:// or https:// URL", `"ftp://feeds.example.com/x.xml"`}},
		{`{"s":"https://"}`, func(d *Decoder) { d.String("s", StringRule{HTTPURL: true}) }, []string{`"s"`, "http:// or https:// URL"}},
		{`{"s":"feeds.example.com/x.xml"}`, func(d *Decoder) { d.String("s", StringRule{HTTPURL: true}) }, []string{`"s"`, "http:// or https:// URL"}},
		{`{"s":"http://%zz"}`, func(d *Decoder) { d.String("s", StringRule{HTTPURL: true}) }, []string{`"s"`, "http:// or https:// URL"}},
	}
	for _, c := range cases {
		d, err := New(json.RawMessage(c.raw), "id", "n", "t", "b", "s", "l", "p")
		if err != nil {
			t.Fatalf("%s: %v", c.raw, err)
		}
		c.read(d)
		err = d.Err()
		if err == nil {
			t.Errorf("%s: accepted", c.raw)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", c.raw, err, w)
			}
		}
	}
}

// A list of names keeps what an id list refuses: spaces, slashes, case.
func TestStringListTakesNames(t *testing.T) {
	d, err := New(json.RawMessage(`{"l":["space opera","a/b","A","a"]}`), "l")
	if err != nil {
		t.Fatal(err)
	}
	got := d.StringList("l", ListRule{MinItems: 1}, 20)
	if err := d.Err(); err != nil || strings.Join(got, "|") != "space opera|a/b|A|a" {
		t.Errorf("got %q, %v", got, err)
	}
}

func TestUnknownAndMalformedArguments(t *testing.T) {
	if _, err := New(json.RawMessage(`{"colection_id":"x"}`), "collection_id"); err == nil || !strings.Contains(err.Error(), `"colection_id"`) || !strings.Contains(err.Error(), "collection_id") {
		t.Errorf("an unknown argument must be named with the allowed ones: %v", err)
	}
	for _, raw := range []string{`[1]`, `"x"`, `{"a":`} {
		if _, err := New(json.RawMessage(raw), "a"); err == nil {
			t.Errorf("%s accepted", raw)
		}
	}
	if _, err := New(json.RawMessage(`{"a":"`+strings.Repeat("x", MaxArgumentBytes)+`"}`), "a"); err == nil {
		t.Error("oversized arguments accepted")
	}
	d, err := New(nil)
	if err != nil || d.Err() != nil {
		t.Errorf("no arguments: %v", err)
	}
}

// An http(s) URL with a host passes HTTPURL; the scheme in any case, as
// Go's URL parser reads it.
func TestHTTPURL(t *testing.T) {
	for _, v := range []string{"http://feeds.example.com/x.xml", "https://127.0.0.1:8080/feed", "HTTPS://feeds.example.com/"} {
		d, _ := New(json.RawMessage(`{"s":"`+v+`"}`), "s")
		if got := d.String("s", StringRule{HTTPURL: true}); d.Err() != nil || got == nil || *got != v {
			t.Errorf("%s: %v, %v", v, got, d.Err())
		}
	}
}

// AtLeastOne and ExactlyOne count the arguments given (null is absent), and
// stay silent when an argument has failed already.
func TestAtLeastOneAndExactlyOne(t *testing.T) {
	cases := []struct {
		raw  string
		read func(d *Decoder)
		want string // "" when accepted
	}{
		{`{}`, func(d *Decoder) { d.AtLeastOne("a", "b") }, "arguments: give at least one of a, b"},
		{`{"a":null}`, func(d *Decoder) { d.AtLeastOne("a", "b") }, "arguments: give at least one of a, b"},
		{`{"b":"x"}`, func(d *Decoder) { d.AtLeastOne("a", "b") }, ""},
		{`{"a":"x","b":"y"}`, func(d *Decoder) { d.AtLeastOne("a", "b") }, ""},
		{`{}`, func(d *Decoder) { d.ExactlyOne("a", "b") }, `arguments: give either "a" or "b", not both and not neither`},
		{`{"a":"x","b":"y"}`, func(d *Decoder) { d.ExactlyOne("a", "b") }, `arguments: give either "a" or "b", not both and not neither`},
		{`{"a":"x","b":null}`, func(d *Decoder) { d.ExactlyOne("a", "b") }, ""},
		{`{"a":"x","b":"y"}`, func(d *Decoder) { d.ExactlyOne("a", "b", "c") }, `arguments: give exactly one of "a", "b", "c"`},
		// The argument's own error, alone.
		{`{"a":5}`, func(d *Decoder) { d.String("a", StringRule{}); d.AtLeastOne("a", "b") }, `argument "a": must be a string, got a number`},
		{`{"a":5,"b":"y"}`, func(d *Decoder) { d.String("a", StringRule{}); d.ExactlyOne("a", "b") }, `argument "a": must be a string, got a number`},
	}
	for _, c := range cases {
		d, err := New(json.RawMessage(c.raw), "a", "b", "c")
		if err != nil {
			t.Fatal(err)
		}
		c.read(d)
		got := ""
		if err := d.Err(); err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.raw, got, c.want)
		}
	}
}

func TestNullIsAbsent(t *testing.T) {
	d, _ := New(json.RawMessage(`{"l":null,"s":null}`), "l", "s")
	if d.IDList("l", ListRule{}) != nil || d.String("s", StringRule{}) != nil || d.Err() != nil {
		t.Error("null must read as absent")
	}
}

// A string rule with an enum and a pattern takes a value of the enum or one
// the pattern matches, whole.
func TestEnumOrPattern(t *testing.T) {
	r := StringRule{Enum: []string{"google", "audible"}, Pattern: "^custom-[0-9A-Za-z-]{1,64}$"}
	for _, v := range []string{"google", "custom-2ce32ff1-1e27-47d8-9c55-bffacca8b741"} {
		d, err := New(json.RawMessage(`{"s":"`+v+`"}`), "s")
		if err != nil {
			t.Fatal(err)
		}
		if got := d.String("s", r); d.Err() != nil || got == nil || *got != v {
			t.Errorf("%s: %v, %v", v, got, d.Err())
		}
	}
	for _, v := range []string{"custom-", "custom-a b", "Custom-a", "audible2", "custom-" + strings.Repeat("a", 65)} {
		d, _ := New(json.RawMessage(`{"s":"`+v+`"}`), "s")
		if got := d.String("s", r); d.Err() == nil {
			t.Errorf("%s: accepted as %v", v, *got)
		}
	}
}

package standin

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// marshalJS writes what encoding/json (without HTML escaping) writes for the
// plain values, keeps a jobj's key order, drops its undefined keys, and
// writes NaN and infinities as null, at any depth.
func TestMarshalJSMatchesEncodingJSON(t *testing.T) {
	plain := []any{
		nil, true, false, "", "a<b>&c", "line\nbreak \u2028 \x01 \xff", 0.0, -1.5, 1e21, 123456789.0,
		[]any{}, []any{1.0, "x", nil, []any{map[string]any{"z": 1.0, "a": []any{"<"}}}},
		map[string]any{}, map[string]any{"b": map[string]any{"d": []any{}, "c": "é"}, "a": false},
	}
	for _, v := range plain {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		got, err := marshalJS(v)
		if err != nil {
			t.Fatalf("%#v: %v", v, err)
		}
		if string(got) != string(bytes.TrimSuffix(want.Bytes(), []byte("\n"))) {
			t.Errorf("%#v:\n got %s\nwant %s", v, got, want.Bytes())
		}
	}

	inner := jobj{{"z", 1.0}, {"gone", undefined}, {"a", math.NaN()}}
	tree := jobj{
		{"b", []jobj{inner, {}}},
		{"u", undefined},
		{"a", []any{inner, math.Inf(1), map[string]any{"k": inner}, jsNum(2)}},
		{"s", struct {
			X int    `json:"x"`
			J jobj   `json:"j"`
			H string `json:"h"`
		}{1, jobj{{"q", "<&>"}}, "<"}},
		{"n", []jobj(nil)},
	}
	const want = `{"b":[{"z":1,"a":null},{}],"a":[{"z":1,"a":null},null,{"k":{"z":1,"a":null}},2],"s":{"x":1,"j":{"q":"<&>"},"h":"<"},"n":null}`
	got, err := marshalJS(tree)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("tree:\n got %s\nwant %s", got, want)
	}
	// Through encoding/json, as a handler's value inside another type.
	viaStd, err := json.Marshal(map[string]any{"t": tree})
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(viaStd) || !bytes.Contains(viaStd, []byte(`"z":1,"a":null`)) {
		t.Errorf("through encoding/json: %s", viaStd)
	}
}

package kit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/writes"
)

// answerFor is what Audiobookshelf answers a write request with
// (gen/writes: the spec's 200, and the tool that reads the change back),
// or nil for a request that is not a write of the tools.
func answerFor(method, path string) *writes.Answer {
	for i := range writes.All {
		if w := &writes.All[i]; w.Method == method && w.Path.MatchString(path) {
			return w
		}
	}
	return nil
}

// mismatch says how a 2xx answer differs from what Audiobookshelf sends,
// or is "".
func mismatch(w *writes.Answer, r *Response) (got, want string) {
	body := bytes.TrimSpace(r.Body)
	if w.PlainOK {
		want = `200 with the text "OK"`
		if r.Status == http.StatusOK && string(body) == "OK" {
			return "", want
		}
		return describeAnswer(r.Status, body), want
	}
	want = "200 with a JSON object"
	if len(w.Required) > 0 {
		want += " that has " + strings.Join(w.Required, ", ")
	}
	var m map[string]json.RawMessage
	if r.Status != http.StatusOK || json.Unmarshal(body, &m) != nil || m == nil {
		return describeAnswer(r.Status, body), want
	}
	var missing []string
	for _, k := range w.Required {
		if v, ok := m[k]; !ok || string(v) == "null" {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return fmt.Sprintf("%d with a JSON object without %s", r.Status, strings.Join(missing, ", ")), want
	}
	return "", want
}

// describeAnswer names an answer for a message: its status and the start of
// its body, cleaned and clipped.
func describeAnswer(status int, body []byte) string {
	switch {
	case len(body) == 0:
		return fmt.Sprintf("%d and an empty body", status)
	case string(body) == "null":
		return fmt.Sprintf("%d and JSON null", status)
	case json.Valid(body) && body[0] == '[':
		return fmt.Sprintf("%d and a JSON array", status)
	case !json.Valid(body):
		return fmt.Sprintf("%d and %s, which is not JSON", status, Quote(Clip(CleanText(string(body)), 60)))
	}
	return fmt.Sprintf("%d and %s", status, Quote(Clip(CleanText(string(body)), 60)))
}

// CheckWrite is nil when a successful write's answer is what
// Audiobookshelf answers it with, and otherwise an error that says the
// change may or may not have been made and how to look.
func (d *Deps) CheckWrite(r *Response, what string) error {
	w := answerFor(r.Method, r.Path)
	if w == nil {
		return nil
	}
	got, want := mismatch(w, r)
	if got == "" {
		return nil
	}
	return Errorf(Stated, "Audiobookshelf at %s answered the change to %s with %s, not what Audiobookshelf answers (%s): this may not be Audiobookshelf, or not the version this server speaks (2.26 or newer). The change may or may not have been made: look with %s before trying again, and check that AUDIOBOOKSHELF_URL is the Audiobookshelf server itself.",
		d.BaseURL, what, got, want, w.ReadBack)
}

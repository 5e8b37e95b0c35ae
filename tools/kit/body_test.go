package kit

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// endless is a body that never ends.
type endless struct{ read int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	e.read += int64(len(p))
	return len(p), nil
}

func TestReadLimited(t *testing.T) {
	for _, size := range []int64{-1, 10} {
		b, err := ReadLimited(strings.NewReader("0123456789"), size, 10)
		if err != nil || string(b) != "0123456789" {
			t.Errorf("size %d: %q %v", size, b, err)
		}
	}
	// Longer than a chunk, unknown length: joined in order.
	want := bytes.Repeat([]byte("abcdefghij"), 300_000)
	if b, err := ReadLimited(bytes.NewReader(want), -1, int64(len(want))); err != nil || !bytes.Equal(b, want) {
		t.Errorf("3 MB body: %d bytes, %v", len(b), err)
	}
	// Announced too large: nothing is read.
	var e endless
	if _, err := ReadLimited(&e, 11, 10); !errors.Is(err, ErrTooLarge) || e.read != 0 {
		t.Errorf("announced 11 of 10: %v after %d bytes", err, e.read)
	}
	// Unknown length: reading stops just past the limit.
	if _, err := ReadLimited(&e, -1, 1<<20); !errors.Is(err, ErrTooLarge) || e.read > 2<<20 {
		t.Errorf("endless: %v after %d bytes", err, e.read)
	}
	// Shorter than announced: an error, not a short body.
	if _, err := ReadLimited(strings.NewReader("abc"), 10, 100); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("short body: %v", err)
	}
}

func TestNotAPI(t *testing.T) {
	for _, c := range []struct {
		ctype, body, want string
	}{
		{"application/json", `{"a":1}`, ""},
		{"text/plain; charset=utf-8", "OK", ""},
		{"", `{"a":1}`, ""},
		{"text/html; charset=utf-8", "<div>", "an HTML page"},
		{"application/json", "<!DOCTYPE html><html>", "an HTML page"},
		{"audio/mpeg", "\xff\xfb", "a file of type audio/mpeg"},
		{"application/octet-stream", "\x00", "a file of type application/octet-stream"},
	} {
		if got := notAPI(&Response{Status: 200, ContentType: c.ctype, Body: []byte(c.body)}); got != c.want {
			t.Errorf("%s %q: %q, want %q", c.ctype, c.body, got, c.want)
		}
	}
}

// Audiobookshelf's own refusals are short texts labelled text/html: they
// are passed on quoted, cleaned and clipped; a page is named a page.
func TestServerMessage(t *testing.T) {
	for _, c := range []struct {
		ctype, body, want string
	}{
		{"text/html; charset=utf-8", "Invalid collection data. Invalid books", `: "Invalid collection data. Invalid books"`},
		{"text/html; charset=utf-8", "Invalid time", `: "Invalid time"`},
		{"text/html", "<html><body><h1>502 Bad Gateway</h1></body></html>", ": the answer was an HTML page, not the API (is AUDIOBOOKSHELF_URL the Audiobookshelf server?)"},
		{"text/plain", "Bad Gateway\n<hr><center>nginx</center>", ": the answer was an HTML page, not the API (is AUDIOBOOKSHELF_URL the Audiobookshelf server?)"},
		{"text/html", "time must be < duration", `: "time must be \u003c duration"`},
		{"text/plain", "Error: <!DOCTYPE html> inside", ": the answer was an HTML page, not the API (is AUDIOBOOKSHELF_URL the Audiobookshelf server?)"},
		{"application/json", `{"error":"Nope \u202e"}`, `: "Nope ` + "\uFFFD" + `"`},
		{"text/html", "a\x00b", `: "a` + "\uFFFD" + `b"`},
		{"text/html", strings.Repeat("x", 300), `: "` + strings.Repeat("x", 200) + `…"`},
		{"text/html", "  ", ""},
	} {
		if got := serverMessage(&Response{Status: 400, ContentType: c.ctype, Body: []byte(c.body)}); got != c.want {
			t.Errorf("%s %q: %q, want %q", c.ctype, c.body, got, c.want)
		}
	}
}

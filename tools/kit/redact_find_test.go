package kit

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestKeyFinderIsBytesIndex: index and redact agree with bytes.Index and
// bytes.ReplaceAll on random texts over a small alphabet, where keys,
// partial keys and overlapping occurrences are frequent.
func TestKeyFinderIsBytesIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte(`abAB1"{`)
	word := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return b
	}
	for range 20000 {
		key := word(1 + r.IntN(5))
		text := word(r.IntN(40))
		f := newKeyFinder(key)
		if got, want := f.index(text), bytes.Index(text, key); got != want {
			t.Fatalf("index(%q) of %q = %d, want %d", text, key, got, want)
		}
		if got, want := f.redact(text), bytes.ReplaceAll(text, key, []byte(Redacted)); !bytes.Equal(got, want) {
			t.Fatalf("redact(%q) of %q = %q, want %q", text, key, got, want)
		}
	}
}

func FuzzKeyFinder(f *testing.F) {
	f.Add([]byte("eyJhbGciOiJIUzI1NiJ9.x"), []byte(`{"token":"eyJhbGciOiJIUzI1NiJ9.x"}`))
	f.Add([]byte("aa"), []byte("aaa"))
	f.Fuzz(func(t *testing.T, key, text []byte) {
		if len(key) == 0 {
			return
		}
		k := newKeyFinder(key)
		if got, want := k.index(text), bytes.Index(text, key); got != want {
			t.Fatalf("index = %d, want %d", got, want)
		}
		if got, want := k.redact(text), bytes.ReplaceAll(text, key, []byte(Redacted)); !bytes.Equal(got, want) {
			t.Fatalf("redact = %q, want %q", got, want)
		}
	})
}

// BenchmarkRedact compares, side by side, the search every answer goes
// through with the one it replaced, on 50 KB of item JSON without the key.
func BenchmarkRedact(b *testing.B) {
	key := []byte("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ1c2VySWQiOiJyb290In0.c2lnbmF0dXJl")
	body := []byte(strings.Repeat(`{"id":"li_8gch9ve09orgn4fdz8","metadata":{"title":"The Colour of Magic","authors":[{"id":"aut_z3leimgybl7uf3y4ab","name":"Terry Pratchett"}],"description":"<p>On a world supported on the back of a giant turtle...</p>","publishedYear":"1983"},"duration":25563.42},`, 200))
	b.Run("keyFinder", func(b *testing.B) {
		f := newKeyFinder(key)
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			f.redact(body)
		}
	})
	b.Run("bytes.Contains", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			if bytes.Contains(body, key) {
				b.Fatal("key in body")
			}
		}
	})
}

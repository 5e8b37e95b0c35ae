package kit

import (
	"bytes"
	"context"
)

// Redact returns body with the API key of the call (the person's, or the
// configured one) replaced by Redacted: every answer from Audiobookshelf
// passes through here before anything reads it.
func (d *Deps) Redact(ctx context.Context, body []byte) []byte {
	if k := keyFrom(ctx); k != "" {
		return newKeyFinder([]byte(k)).redact(body)
	}
	if d.redact != nil {
		return d.redact(body)
	}
	return body
}

// keyFinder finds one fixed secret in answers, fast: every answer from
// Audiobookshelf is searched for the API key before anything reads it.
// bytes.Index anchors on the key's first byte, and an API key (a JWT:
// "eyJ…") starts with letters that fill JSON text, so it checks nearly every
// position; this anchors on the byte of the key that is rarest in JSON
// instead, which memchr skips to.
type keyFinder struct {
	key    []byte
	at     int  // the anchor's offset in key
	anchor byte // key[at]
}

func newKeyFinder(key []byte) *keyFinder {
	f := &keyFinder{key: key}
	for i, c := range key {
		if commonness(c) < commonness(key[f.at]) {
			f.at = i
		}
	}
	f.anchor = key[f.at]
	return f
}

// commonness ranks a byte by how often it is in Audiobookshelf's JSON:
// lowercase letters, quotes, punctuation of JSON and digits most, then
// uppercase letters, then everything else.
func commonness(c byte) int {
	switch {
	case c >= 'a' && c <= 'z', c == '"', c == ':', c == ',', c == ' ', c == '{', c == '}':
		return 3
	case c >= '0' && c <= '9', c == '.', c == '-', c == '_', c == '/':
		return 2
	case c >= 'A' && c <= 'Z':
		return 1
	}
	return 0
}

// index is bytes.Index(b, f.key).
func (f *keyFinder) index(b []byte) int {
	n := len(f.key)
	for from := f.at; from+n-f.at <= len(b); {
		i := bytes.IndexByte(b[from:len(b)-(n-f.at-1)], f.anchor)
		if i < 0 {
			return -1
		}
		start := from + i - f.at
		if bytes.Equal(b[start:start+n], f.key) {
			return start
		}
		from += i + 1
	}
	return -1
}

// redact returns b with every occurrence of the key replaced by Redacted;
// b itself when it has none.
func (f *keyFinder) redact(b []byte) []byte {
	i := f.index(b)
	if i < 0 {
		return b
	}
	out := make([]byte, 0, len(b))
	for i >= 0 {
		out = append(out, b[:i]...)
		out = append(out, Redacted...)
		b = b[i+len(f.key):]
		i = f.index(b)
	}
	return append(out, b...)
}

package kit

import (
	"strconv"

	"bytes"
	"encoding/json"
	"fmt"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/guard"
	"strings"
	"unicode"
	"unicode/utf8"
)

func Quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// CleanText replaces control, zero-width and bidi-control characters with
// U+FFFD and folds white space, so text from Audiobookshelf cannot hide or
// reorder anything in what a model reads.
func CleanText(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, c := range s {
		switch {
		case c == '\n' || c == '\t':
			b.WriteRune(c)
		case unicode.IsControl(c) || isInvisible(c):
			b.WriteRune('\uFFFD')
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// isInvisible reports format characters that hide or reorder text:
// zero-width, bidi controls and the like (Unicode category Cf), and tag
// characters.
func isInvisible(c rune) bool {
	return unicode.Is(unicode.Cf, c) || (c >= 0xE0000 && c <= 0xE007F)
}

func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// escapeInvisible rewrites zero-width, bidi-control and other invisible
// format characters inside JSON text as \uXXXX escapes, and the control
// characters a JSON encoder leaves raw (DEL and the C1 controls, such as
// U+009B, a terminal's CSI): the JSON means the same, but a reader sees the
// escape instead of reordered, hidden or terminal-controlling text.
func EscapeInvisible(b []byte) []byte {
	clean := true
	for _, c := range string(b) {
		if mustEscape(c) {
			clean = false
			break
		}
	}
	if clean {
		return b
	}
	var out bytes.Buffer
	out.Grow(len(b) + 16)
	for _, c := range string(b) {
		if mustEscape(c) {
			if c > 0xFFFF {
				r1, r2 := utf16Surrogates(c)
				fmt.Fprintf(&out, `\u%04x\u%04x`, r1, r2)
			} else {
				fmt.Fprintf(&out, `\u%04x`, c)
			}
			continue
		}
		out.WriteRune(c)
	}
	return out.Bytes()
}

// mustEscape reports what escapeInvisible rewrites. C0 controls need no
// entry: inside a JSON string they are always escaped already, and outside
// one they cannot occur in compact JSON.
func mustEscape(c rune) bool {
	return isInvisible(c) || c == '\u2028' || c == '\u2029' || c == 0x7f || (c >= 0x80 && c <= 0x9f)
}

func utf16Surrogates(c rune) (rune, rune) {
	c -= 0x10000
	return 0xD800 + (c>>10)&0x3FF, 0xDC00 + c&0x3FF
}

// ShowID is an id as this server's own text shows it: a plain id (letters,
// digits and _ . : - only, as guard.ValidID) as it is, anything else quoted
// with every character outside printable ASCII escaped and clipped to 100
// bytes. An id Audiobookshelf supplied is its text, not this server's: a
// line break, a quote or instructions in it then show as what they are
// (SECURITY.md, "Prompt injection"). Every id that reaches an error or an
// answer's sentence from Audiobookshelf's answers goes through here.
func ShowID(id string) string {
	if guard.ValidID(id) {
		return id
	}
	return strconv.QuoteToASCII(Clip(id, 100))
}

package standin

// Helpers that reproduce the JavaScript, Node and SQLite semantics the
// upstream behaviour depends on. Request bodies are decoded into plain Go
// values (nil, bool, float64, string, []any, map[string]any) and a missing
// key is represented by the undefined sentinel, so that `x === undefined`,
// `!x`, `isNaN(x)` and `a == b` can be evaluated the way Node evaluates them.

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// undefinedT is JavaScript's undefined: a missing key in a request body, or a
// property the upstream sets to undefined (JSON.stringify then drops it).
type undefinedT struct{}

var undefined = undefinedT{}

// jobj is a JSON object that keeps its keys in insertion order, like a JS object
// with non-integer keys. Keys whose value is undefined are not written, like
// JSON.stringify does.
type jobj []kv

type kv struct {
	k string
	v any
}

// set replaces k's value in place or appends k, like a JS property assignment.
func (j *jobj) set(k string, v any) {
	for i := range *j {
		if (*j)[i].k == k {
			(*j)[i].v = v
			return
		}
	}
	*j = append(*j, kv{k, v})
}

func (j jobj) get(k string) any {
	for _, e := range j {
		if e.k == k {
			return e.v
		}
	}
	return undefined
}

// MarshalJSON writes the keys in order, without HTML escaping (JSON.stringify
// does not escape <, > or &).
func (j jobj) MarshalJSON() ([]byte, error) { return marshalJS(j) }

// marshalJS encodes v the way JSON.stringify would (as far as it matters
// here): no HTML escaping, NaN and ±Infinity as null (see jsNum), keys of a
// jobj in their order and undefined ones left out.
//
// The trees of jobj, []jobj, []any and map[string]any that the handlers build
// are written in one pass into one buffer. Handing each level to
// encoding/json as a Marshaler instead makes the encoder re-scan and compact
// every nested object's output at every level above it, which costs time in
// proportion to size times depth (an expanded collection list took seconds).
func marshalJS(v any) ([]byte, error) {
	w := jsWriter{}
	w.enc = json.NewEncoder(&w.buf)
	w.enc.SetEscapeHTML(false)
	if err := w.write(v); err != nil {
		return nil, err
	}
	return w.buf.Bytes(), nil
}

type jsWriter struct {
	buf bytes.Buffer
	enc *json.Encoder // writes into buf, for strings and values of other types
}

func (w *jsWriter) write(v any) error {
	switch x := v.(type) {
	case nil, undefinedT:
		w.buf.WriteString("null")
	case bool:
		if x {
			w.buf.WriteString("true")
		} else {
			w.buf.WriteString("false")
		}
	case string:
		w.str(x)
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			w.buf.WriteString(strconv.FormatInt(int64(x), 10))
			return nil
		}
		return w.other(jsNum(x))
	case int:
		w.buf.WriteString(strconv.Itoa(x))
	case int64:
		w.buf.WriteString(strconv.FormatInt(x, 10))
	case jobj:
		w.buf.WriteByte('{')
		first := true
		for _, e := range x {
			if _, ok := e.v.(undefinedT); ok {
				continue
			}
			if !first {
				w.buf.WriteByte(',')
			}
			first = false
			w.str(e.k)
			w.buf.WriteByte(':')
			if err := w.write(e.v); err != nil {
				return err
			}
		}
		w.buf.WriteByte('}')
	case []jobj:
		return writeArray(w, x)
	case []any:
		return writeArray(w, x)
	case map[string]any:
		if x == nil {
			w.buf.WriteString("null")
			return nil
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys) // as encoding/json orders a map's keys
		w.buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				w.buf.WriteByte(',')
			}
			w.str(k)
			w.buf.WriteByte(':')
			if err := w.write(x[k]); err != nil {
				return err
			}
		}
		w.buf.WriteByte('}')
	default:
		return w.other(v)
	}
	return nil
}

// writeArray writes a list of values the way write writes each.
func writeArray[T any](w *jsWriter, x []T) error {
	if x == nil {
		w.buf.WriteString("null")
		return nil
	}
	w.buf.WriteByte('[')
	for i, e := range x {
		if i > 0 {
			w.buf.WriteByte(',')
		}
		if err := w.write(e); err != nil {
			return err
		}
	}
	w.buf.WriteByte(']')
	return nil
}

// str writes a string as encoding/json does without HTML escaping: a
// string of printable ASCII without quote or backslash as it is, any
// other through the encoder.
func (w *jsWriter) str(s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			_ = w.other(s)
			return
		}
	}
	w.buf.WriteByte('"')
	w.buf.WriteString(s)
	w.buf.WriteByte('"')
}

// other writes v with encoding/json (no HTML escaping), without the newline
// the encoder ends each value with.
func (w *jsWriter) other(v any) error {
	if err := w.enc.Encode(v); err != nil {
		return err
	}
	w.buf.Truncate(w.buf.Len() - 1)
	return nil
}

// jsNum is a number that JSON.stringify writes as null when it is NaN or
// infinite (Go's encoder would fail instead).
type jsNum float64

func (n jsNum) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(f)
}

// field reads key from a decoded JSON body; a missing key, or a body that is
// not an object, gives undefined (like req.body.key in Express).
func field(body any, key string) any {
	m, ok := body.(map[string]any)
	if !ok {
		return undefined
	}
	v, ok := m[key]
	if !ok {
		return undefined
	}
	return v
}

func isUndefined(v any) bool { _, ok := v.(undefinedT); return ok }

// truthy is JavaScript's ToBoolean.
func truthy(v any) bool {
	switch x := v.(type) {
	case undefinedT, nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0 && !math.IsNaN(x)
	case string:
		return x != ""
	}
	return true // arrays and objects
}

// jsTypeof is JavaScript's typeof (with "null" for null).
func jsTypeof(v any) string {
	switch v.(type) {
	case undefinedT:
		return "undefined"
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	}
	return "object"
}

// toNumber is JavaScript's Number(v).
func toNumber(v any) float64 {
	switch x := v.(type) {
	case undefinedT:
		return math.NaN()
	case nil:
		return 0
	case bool:
		if x {
			return 1
		}
		return 0
	case float64:
		return x
	case string:
		return stringToNumber(x)
	case []any:
		return stringToNumber(toJSString(x))
	}
	return math.NaN()
}

// jsIsNaN is the global isNaN(v).
func jsIsNaN(v any) bool { return math.IsNaN(toNumber(v)) }

// isNullOrNaN reproduces server/utils/index.js isNullOrNaN: num === null || isNaN(num).
func isNullOrNaN(v any) bool { return v == nil || jsIsNaN(v) }

// The expressions are compiled on first use: the binary links the stand-in
// for --demo, and nothing of it belongs on every start-up.
var jsDecimal = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$`)
})

// stringToNumber is JavaScript's StringToNumber.
func stringToNumber(s string) float64 {
	s = strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == '\uFEFF' })
	if s == "" {
		return 0
	}
	switch s {
	case "Infinity", "+Infinity":
		return math.Inf(1)
	case "-Infinity":
		return math.Inf(-1)
	}
	if len(s) > 2 && s[0] == '0' {
		base := 0
		switch s[1] {
		case 'x', 'X':
			base = 16
		case 'o', 'O':
			base = 8
		case 'b', 'B':
			base = 2
		}
		if base != 0 {
			n, err := strconv.ParseUint(s[2:], base, 64)
			if err != nil {
				return math.NaN()
			}
			return float64(n)
		}
	}
	if !jsDecimal().MatchString(s) {
		return math.NaN()
	}
	f, _ := strconv.ParseFloat(s, 64) // overflow gives ±Inf, as in JS
	return f
}

// toJSString is JavaScript's String(v) for JSON values.
func toJSString(v any) string {
	switch x := v.(type) {
	case undefinedT:
		return "undefined"
	case nil:
		return "null"
	case bool:
		if x {
			return "true"
		}
		return "false"
	case float64:
		return jsNumberToString(x)
	case string:
		return x
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			if e == nil || isUndefined(e) {
				continue
			}
			parts[i] = toJSString(e)
		}
		return strings.Join(parts, ",")
	}
	return "[object Object]"
}

// jsNumberToString is Number.prototype.toString() for base 10.
func jsNumberToString(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	}
	sign := ""
	if f < 0 {
		sign = "-"
		f = -f
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, expStr, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	exp, _ := strconv.Atoi(expStr)
	n := exp + 1
	k := len(digits)
	var out string
	switch {
	case k <= n && n <= 21:
		out = digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		out = digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		out = "0." + strings.Repeat("0", -n) + digits
	default:
		es := "+"
		if n-1 < 0 {
			es = "-"
		}
		ev := n - 1
		if ev < 0 {
			ev = -ev
		}
		if k == 1 {
			out = digits + "e" + es + strconv.Itoa(ev)
		} else {
			out = digits[:1] + "." + digits[1:] + "e" + es + strconv.Itoa(ev)
		}
	}
	return sign + out
}

// looseEqual is JavaScript's a == b for JSON values. Two objects or arrays
// decoded from different JSON texts are different references, so never equal.
func looseEqual(a, b any) bool {
	ta, tb := jsTypeof(a), jsTypeof(b)
	if ta == tb {
		switch ta {
		case "undefined", "null":
			return true
		case "number":
			return a.(float64) == b.(float64)
		case "string":
			return a.(string) == b.(string)
		case "boolean":
			return a.(bool) == b.(bool)
		}
		return false
	}
	nullish := func(t string) bool { return t == "undefined" || t == "null" }
	if nullish(ta) && nullish(tb) {
		return true
	}
	if nullish(ta) || nullish(tb) {
		return false
	}
	if ta == "number" && tb == "string" {
		return a.(float64) == stringToNumber(b.(string))
	}
	if ta == "string" && tb == "number" {
		return stringToNumber(a.(string)) == b.(float64)
	}
	if ta == "boolean" {
		return looseEqual(toNumber(a), b)
	}
	if tb == "boolean" {
		return looseEqual(a, toNumber(b))
	}
	if ta == "object" {
		return looseEqual(toJSString(a), b)
	}
	if tb == "object" {
		return looseEqual(a, toJSString(b))
	}
	return false
}

// strictEqual is JavaScript's a === b for JSON values.
func strictEqual(a, b any) bool {
	if jsTypeof(a) != jsTypeof(b) {
		return false
	}
	switch x := a.(type) {
	case undefinedT, nil:
		return true
	case float64:
		return x == b.(float64)
	case string:
		return x == b.(string)
	case bool:
		return x == b.(bool)
	}
	return false
}

// jsSliceBounds computes Array.prototype.slice(start, end) bounds for length n.
func jsSliceBounds(n int, start, end float64) (int, int) {
	rel := func(x float64) int {
		if math.IsNaN(x) {
			return 0
		}
		x = math.Trunc(x)
		if x < 0 {
			x = math.Max(float64(n)+x, 0)
		} else {
			x = math.Min(x, float64(n))
		}
		return int(x)
	}
	s, e := rel(start), rel(end)
	if e < s {
		e = s
	}
	return s, e
}

// nodeBase64Decode reproduces Buffer.from(text, 'base64') as Node decodes it:
// both alphabets (+/ and -_) are accepted, characters outside them (spaces,
// for instance, which is what an unencoded '+' becomes in a query string) are
// skipped, and '=' ends the input.
func nodeBase64Decode(s string) []byte {
	var sextets []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		var v byte
		switch {
		case c >= 'A' && c <= 'Z':
			v = c - 'A'
		case c >= 'a' && c <= 'z':
			v = c - 'a' + 26
		case c >= '0' && c <= '9':
			v = c - '0' + 52
		case c == '+' || c == '-':
			v = 62
		case c == '/' || c == '_':
			v = 63
		case c == '=':
			i = len(s)
			continue
		default:
			continue
		}
		sextets = append(sextets, v)
	}
	var out []byte
	for i := 0; i+1 < len(sextets); i += 4 {
		g := sextets[i:min(i+4, len(sextets))]
		out = append(out, g[0]<<2|g[1]>>4)
		if len(g) > 2 {
			out = append(out, g[1]<<4|g[2]>>2)
		}
		if len(g) > 3 {
			out = append(out, g[2]<<6|g[3])
		}
	}
	return out
}

// decodeURIComponent is JavaScript's decodeURIComponent; ok is false where it
// would throw a URIError.
func decodeURIComponent(s string) (string, bool) {
	var b []byte
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b = append(b, s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", false
		}
		n, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if err != nil {
			return "", false
		}
		b = append(b, byte(n))
		i += 2
	}
	if !utf8.Valid(b) {
		return "", false
	}
	return string(b), true
}

// likeMatch is SQLite's `value LIKE pattern` with the upstream pattern
// '%query%' (TextSearchQuery.matchExpression in server/Database.js): '%' and
// '_' in the query are wildcards and case is folded for ASCII only.
func likeMatch(value, query string) bool {
	pat := []rune("%" + asciiLower(query) + "%")
	val := []rune(asciiLower(value))
	var match func(p, v int) bool
	memo := map[[2]int]bool{}
	match = func(p, v int) bool {
		key := [2]int{p, v}
		if r, ok := memo[key]; ok {
			return r
		}
		var r bool
		switch {
		case p == len(pat):
			r = v == len(val)
		case pat[p] == '%':
			r = match(p+1, v) || (v < len(val) && match(p, v+1))
		case v < len(val) && (pat[p] == '_' || pat[p] == val[v]):
			r = match(p+1, v+1)
		}
		memo[key] = r
		return r
	}
	return match(0, 0)
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

// nocaseCompare is SQLite's NOCASE collation: ASCII case folding, then bytes.
func nocaseCompare(a, b string) int { return strings.Compare(asciiLower(a), asciiLower(b)) }

// naturalCompare approximates Intl.Collator(undefined, {numeric: true,
// sensitivity: 'base'}).compare, which the upstream naturalSort uses:
// case-insensitive, digit runs compared as numbers.
func naturalCompare(a, b string) int {
	ra, rb := []rune(strings.ToLower(a)), []rune(strings.ToLower(b))
	i, j := 0, 0
	for i < len(ra) && j < len(rb) {
		if unicode.IsDigit(ra[i]) && unicode.IsDigit(rb[j]) {
			si := i
			for i < len(ra) && unicode.IsDigit(ra[i]) {
				i++
			}
			sj := j
			for j < len(rb) && unicode.IsDigit(rb[j]) {
				j++
			}
			na := strings.TrimLeft(string(ra[si:i]), "0")
			nb := strings.TrimLeft(string(rb[sj:j]), "0")
			if len(na) != len(nb) {
				return cmpInt(len(na), len(nb))
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			continue
		}
		if ra[i] != rb[j] {
			return cmpInt(int(ra[i]), int(rb[j]))
		}
		i++
		j++
	}
	return cmpInt(len(ra)-i, len(rb)-j)
}

// localeCompare approximates String.prototype.localeCompare (ICU root
// collation): case-insensitive first, lower case before upper case on a tie.
func localeCompare(a, b string) int {
	if c := strings.Compare(strings.ToLower(a), strings.ToLower(b)); c != 0 {
		return c
	}
	return -strings.Compare(a, b)
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// sqliteCastFloat is CAST(x AS FLOAT) in SQLite: the longest numeric prefix,
// 0 when there is none; ok is false for NULL.
func sqliteCastFloat(s string, isNull bool) (float64, bool) {
	if isNull {
		return 0, false
	}
	s = strings.TrimLeft(s, " \t\n\r")
	m := regexp.MustCompile(`^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?`).FindString(s)
	if m == "" {
		return 0, true
	}
	f, _ := strconv.ParseFloat(m, 64)
	return f, true
}

// stableSortBy sorts s stably with a three-way comparison.
func stableSortBy[T any](s []T, cmp func(a, b T) int) {
	sort.SliceStable(s, func(i, j int) bool { return cmp(s[i], s[j]) < 0 })
}

var (
	tagRe       = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<[a-zA-Z!/?][^>]*>`) })
	nonTextTags = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?is)<(script|style|textarea|option)\b[^>]*>.*?</(script|style|textarea|option)\s*>`)
	})
	entityRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`&([^;\s&]+);?`) })
)

var htmlEntities = map[string]string{
	"&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": `"`, "&apos;": "'", "&#39;": "'",
	"&nbsp;": "\u00a0", "&ndash;": "\u2013", "&mdash;": "\u2014", "&hellip;": "\u2026",
	"&lsquo;": "\u2018", "&rsquo;": "\u2019", "&ldquo;": "\u201c", "&rdquo;": "\u201d",
}

// stripAllTags reproduces server/utils/htmlSanitizer.js stripAllTags: no tag
// is allowed (their text is kept, except script/style/textarea/option), then
// named entities are decoded. Non-strings give "".
func stripAllTags(v any) string {
	s, ok := v.(string)
	if !ok {
		return ""
	}
	s = nonTextTags().ReplaceAllString(s, "")
	s = tagRe().ReplaceAllString(s, "")
	return entityRe().ReplaceAllStringFunc(s, func(e string) string {
		if !strings.HasSuffix(e, ";") {
			e2 := e + ";"
			if d, ok := htmlEntities[e2]; ok {
				return d
			}
			return e
		}
		if d, ok := htmlEntities[e]; ok {
			return d
		}
		return e
	})
}

// sortingPrefixes is ServerSettings.sortingPrefixes' default.
var sortingPrefixes = []string{"the", "a"}

// titleParts reproduces getTitleParts in server/utils/index.js.
func titleParts(title string) (string, string) {
	if title == "" {
		return "", ""
	}
	for _, p := range sortingPrefixes {
		if strings.HasPrefix(strings.ToLower(title), p+" ") {
			return title[len(p)+1:], strings.ToUpper(p[:1]) + p[1:]
		}
	}
	return title, ""
}

// titlePrefixAtEnd is getTitlePrefixAtEnd: "The Good Book" -> "Good Book, The".
func titlePrefixAtEnd(title string) string {
	sortT, prefix := titleParts(title)
	if prefix != "" {
		return sortT + ", " + prefix
	}
	return title
}

// titleIgnorePrefix is getTitleIgnorePrefix: "The Good Book" -> "Good Book".
func titleIgnorePrefix(title string) string { t, _ := titleParts(title); return t }

var lastNamePrefixes = map[string]bool{"le": true, "la": true, "de": true, "du": true, "da": true, "di": true, "van": true, "von": true, "der": true, "del": true}

// nameToLastFirst approximates server/utils/parsers/parseNameString.js
// nameToLastFirst: "Ursula K. Le Guin" -> "Le Guin, Ursula K.".
func nameToLastFirst(name string) string {
	parts := strings.Fields(name)
	if len(parts) < 2 {
		return name
	}
	i := len(parts) - 1
	for i > 1 && lastNamePrefixes[strings.ToLower(parts[i-1])] {
		i--
	}
	return strings.Join(parts[i:], " ") + ", " + strings.Join(parts[:i], " ")
}

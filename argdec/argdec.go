// Package argdec decodes and checks tool arguments. The generated decoders
// in gen/toolargs call it, one call per parameter, with the bounds declared in
// tools.yaml; every failure names the argument and says what is allowed.
//
// It is strict on purpose: a wrong type is an error, never coerced, so that
// nothing unintended reaches Audiobookshelf (whose server dies on a string
// where a list belongs, and stores a string time that can never be deleted).
package argdec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// MaxArgumentBytes bounds the raw arguments of one call.
const MaxArgumentBytes = 1 << 20

// IsID reports whether s is what an Audiobookshelf id may look like here:
// letters, digits, '_' and '-', starting with a letter or digit, at most 128
// long (the regular expression ^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$).
// Audiobookshelf 2.x uses UUIDs and older "li_..." style ids; both fit. It
// is a loop rather than that expression because compiling the bounded
// repetition cost 0.8 ms of every start-up.
func IsID(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case (c == '_' || c == '-') && i > 0:
		default:
			return false
		}
	}
	return true
}

var (
	uuidRE   = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	legacyRE = regexp.MustCompile(`^[a-z]{2,4}_[a-z0-9]{6,}$`)
)

// LooksLikeID is true for what Audiobookshelf makes ids of: a UUID (2.3
// and later), or a prefixed id of older servers (li_…, lib_…). Where a
// title or a name may stand for an id (tools.yaml's names:), anything else
// is a name to look up (naming.Resolve).
func LooksLikeID(s string) bool {
	return uuidRE.MatchString(s) || legacyRE.MatchString(s)
}

// Error is one argument's problem.
type Error struct {
	Arg string // the argument's name, or "" for the arguments as a whole
	Msg string // what is wrong and what is allowed
}

func (e *Error) Error() string {
	if e.Arg == "" {
		return "arguments: " + e.Msg
	}
	return fmt.Sprintf("argument %q: %s", e.Arg, e.Msg)
}

// PlaylistItem is one playlist entry as a tool takes it.
type PlaylistItem struct {
	LibraryItemID string `json:"library_item_id"`
	EpisodeID     string `json:"episode_id,omitempty"`
}

// Decoder holds one call's arguments while the generated code reads them.
type Decoder struct {
	args map[string]json.RawMessage
	errs []error
}

// New parses raw (a JSON object, or empty for none) and refuses names
// outside allowed.
func New(raw json.RawMessage, allowed ...string) (*Decoder, error) {
	d := &Decoder{args: map[string]json.RawMessage{}}
	if len(raw) > MaxArgumentBytes {
		return nil, &Error{Msg: fmt.Sprintf("too large (%d bytes; at most %d)", len(raw), MaxArgumentBytes)}
	}
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return d, nil
	}
	if trimmed[0] != '{' {
		return nil, &Error{Msg: "must be a JSON object"}
	}
	if err := json.Unmarshal(trimmed, &d.args); err != nil {
		return nil, &Error{Msg: "must be a JSON object: " + err.Error()}
	}
	var unknown []string
	for name := range d.args {
		found := false
		for _, a := range allowed {
			if a == name {
				found = true
				break
			}
		}
		if !found {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		for i, u := range unknown {
			unknown[i] = strconv.Quote(clip(u, 64))
		}
		allowedText := "none"
		if len(allowed) > 0 {
			allowedText = strings.Join(allowed, ", ")
		}
		return nil, &Error{Msg: fmt.Sprintf("unknown argument %s; this tool takes: %s", strings.Join(unknown, ", "), allowedText)}
	}
	return d, nil
}

// Err is every problem found so far, joined, or nil.
func (d *Decoder) Err() error { return errors.Join(d.errs...) }

func (d *Decoder) fail(arg, format string, a ...any) {
	d.errs = append(d.errs, &Error{Arg: arg, Msg: fmt.Sprintf(format, a...)})
}

// raw returns the value of name, or nil when absent or JSON null.
func (d *Decoder) raw(name string, required bool) json.RawMessage {
	v, ok := d.args[name]
	if !ok || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
		if required {
			d.fail(name, "is required")
		}
		return nil
	}
	return v
}

func kind(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "a list"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

// StringRule bounds a string. Lengths count characters; zero MaxLen means
// no bound beyond MaxArgumentBytes.
type StringRule struct {
	Required       bool
	MinLen, MaxLen int
	Enum           []string
	// Pattern, with Enum, is a regular expression a value outside Enum may
	// match instead (tools.yaml's pattern).
	Pattern string
	// HTTPURL: the value must be an http:// or https:// URL with a host
	// (tools.yaml's format: http_url).
	HTTPURL bool
}

// patterns are the compiled Pattern of every StringRule seen.
var patterns sync.Map

func matches(pattern, s string) bool {
	re, ok := patterns.Load(pattern)
	if !ok {
		re, _ = patterns.LoadOrStore(pattern, regexp.MustCompile(pattern))
	}
	return re.(*regexp.Regexp).MatchString(s)
}

// RefusedControls counts the characters of s that a text argument refuses:
// the control characters other than a line feed and a tab (CR, so any
// CRLF, VT, FF, NUL, ESC, DEL and the C1 controls). A tool whose put-back
// would carry such text cannot give it back through its own arguments.
func RefusedControls(s string) int {
	n := 0
	for _, c := range s {
		if c != '\n' && c != '\t' && unicode.IsControl(c) {
			n++
		}
	}
	return n
}

// String reads a string argument; nil when absent.
func (d *Decoder) String(name string, r StringRule) *string {
	v := d.raw(name, r.Required)
	if v == nil {
		return nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		d.fail(name, "must be a string, got %s", kind(v))
		return nil
	}
	if len(r.Enum) > 0 {
		for _, e := range r.Enum {
			if s == e {
				return &s
			}
		}
		if r.Pattern != "" && matches(r.Pattern, s) {
			return &s
		}
		if r.Pattern != "" {
			d.fail(name, "must be one of %s, or match %s, got %s", strings.Join(r.Enum, ", "), r.Pattern, strconv.Quote(clip(s, 64)))
			return nil
		}
		d.fail(name, "must be one of %s, got %s", strings.Join(r.Enum, ", "), strconv.Quote(clip(s, 64)))
		return nil
	}
	n := utf8.RuneCountInString(s)
	if n < r.MinLen {
		if r.MinLen == 1 {
			d.fail(name, "must not be empty")
		} else {
			d.fail(name, "must be at least %d characters long, got %d", r.MinLen, n)
		}
		return nil
	}
	if r.MaxLen > 0 && n > r.MaxLen {
		d.fail(name, "must be at most %d characters long, got %d", r.MaxLen, n)
		return nil
	}
	if RefusedControls(s) > 0 {
		d.fail(name, "must not contain control characters")
		return nil
	}
	if r.HTTPURL {
		if u, err := url.Parse(s); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			d.fail(name, "must be an http:// or https:// URL, got %s", strconv.Quote(clip(s, 64)))
			return nil
		}
	}
	return &s
}

// present reports whether name was given, and not as null.
func (d *Decoder) present(name string) bool {
	v, ok := d.args[name]
	return ok && !bytes.Equal(bytes.TrimSpace(v), []byte("null"))
}

// AtLeastOne fails the arguments as a whole when none of names is given
// (tools.yaml's at_least_one_of). It says nothing when an argument has
// failed already: that one is the error to fix first.
func (d *Decoder) AtLeastOne(names ...string) {
	if len(d.errs) > 0 {
		return
	}
	for _, n := range names {
		if d.present(n) {
			return
		}
	}
	d.errs = append(d.errs, &Error{Msg: "give at least one of " + strings.Join(names, ", ")})
}

// ExactlyOne fails the arguments as a whole unless exactly one of names is
// given (tools.yaml's exactly_one_of); like AtLeastOne, only when every
// argument checked out.
func (d *Decoder) ExactlyOne(names ...string) {
	if len(d.errs) > 0 {
		return
	}
	n := 0
	for _, name := range names {
		if d.present(name) {
			n++
		}
	}
	if n == 1 {
		return
	}
	quoted := make([]string, len(names))
	for i, name := range names {
		quoted[i] = strconv.Quote(name)
	}
	msg := "give exactly one of " + strings.Join(quoted, ", ")
	if len(names) == 2 {
		msg = "give either " + quoted[0] + " or " + quoted[1] + ", not both and not neither"
	}
	d.errs = append(d.errs, &Error{Msg: msg})
}

// ID reads an Audiobookshelf id; "" when absent.
func (d *Decoder) ID(name string, required bool) *string {
	v := d.raw(name, required)
	if v == nil {
		return nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		d.fail(name, "must be an id string, got %s", kind(v))
		return nil
	}
	if err := CheckID(s); err != "" {
		d.fail(name, "%s", err)
		return nil
	}
	return &s
}

// CheckID says what is wrong with an id, or "" when it is fine.
func CheckID(s string) string {
	if s == "" {
		return "must not be empty"
	}
	if !IsID(s) {
		if len(s) > 128 {
			return fmt.Sprintf("must be an id of at most 128 characters, got %d", len(s))
		}
		return fmt.Sprintf("must be an id of letters, digits, '_' and '-' (as list and search tools return them), got %s", strconv.Quote(clip(s, 64)))
	}
	return ""
}

// IntRule bounds an integer.
type IntRule struct {
	Required bool
	Min, Max int64
}

// Integer reads a whole number; nil when absent.
func (d *Decoder) Integer(name string, r IntRule) *int64 {
	v := d.raw(name, r.Required)
	if v == nil {
		return nil
	}
	f, ok := number(v)
	if !ok || f != math.Trunc(f) {
		d.fail(name, "must be a whole number from %d to %d, got %s", r.Min, r.Max, describe(v))
		return nil
	}
	if f < float64(r.Min) || f > float64(r.Max) {
		d.fail(name, "must be a whole number from %d to %d, got %s", r.Min, r.Max, describe(v))
		return nil
	}
	i := int64(f)
	return &i
}

// NumRule bounds a number.
type NumRule struct {
	Required bool
	Min, Max float64
}

// Number reads a finite number; nil when absent.
func (d *Decoder) Number(name string, r NumRule) *float64 {
	v := d.raw(name, r.Required)
	if v == nil {
		return nil
	}
	f, ok := number(v)
	if !ok || math.IsNaN(f) || math.IsInf(f, 0) || f < r.Min || f > r.Max {
		d.fail(name, "must be a number from %s to %s, got %s", fmtNum(r.Min), fmtNum(r.Max), describe(v))
		return nil
	}
	return &f
}

// Bool reads true or false; nil when absent.
func (d *Decoder) Bool(name string, required bool) *bool {
	v := d.raw(name, required)
	if v == nil {
		return nil
	}
	var b bool
	if err := json.Unmarshal(v, &b); err != nil {
		d.fail(name, "must be true or false, got %s", describe(v))
		return nil
	}
	return &b
}

// ListRule bounds a list.
type ListRule struct {
	Required           bool
	MinItems, MaxItems int
}

func (d *Decoder) list(name string, r ListRule) []json.RawMessage {
	v := d.raw(name, r.Required)
	if v == nil {
		return nil
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(v, &elems); err != nil {
		d.fail(name, "must be a list, got %s", kind(v))
		return nil
	}
	if len(elems) < r.MinItems {
		if r.MinItems == 1 {
			d.fail(name, "must not be empty")
		} else {
			d.fail(name, "must have at least %d entries, got %d", r.MinItems, len(elems))
		}
		return nil
	}
	if r.MaxItems > 0 && len(elems) > r.MaxItems {
		d.fail(name, "must have at most %d entries, got %d", r.MaxItems, len(elems))
		return nil
	}
	if elems == nil {
		elems = []json.RawMessage{}
	}
	return elems
}

// IDList reads a list of distinct ids; nil when absent.
func (d *Decoder) IDList(name string, r ListRule) []string {
	elems := d.list(name, r)
	if elems == nil {
		return nil
	}
	out := make([]string, 0, len(elems))
	seen := make(map[string]int, len(elems))
	for i, e := range elems {
		var s string
		if err := json.Unmarshal(e, &s); err != nil {
			d.fail(fmt.Sprintf("%s[%d]", name, i), "must be an id string, got %s", kind(e))
			return nil
		}
		if msg := CheckID(s); msg != "" {
			d.fail(fmt.Sprintf("%s[%d]", name, i), "%s", msg)
			return nil
		}
		if j, dup := seen[s]; dup {
			d.fail(name, "lists %s twice (entries %d and %d); give each id once", s, j, i)
			return nil
		}
		seen[s] = i
		out = append(out, s)
	}
	return out
}

// StringList reads a list of distinct strings (names: tags, genres,
// narrators); nil when absent. Each is one line of text, not empty or only
// spaces, at most maxLen characters.
func (d *Decoder) StringList(name string, r ListRule, maxLen int) []string {
	elems := d.list(name, r)
	if elems == nil {
		return nil
	}
	out := make([]string, 0, len(elems))
	seen := make(map[string]int, len(elems))
	for i, e := range elems {
		at := fmt.Sprintf("%s[%d]", name, i)
		var s string
		if err := json.Unmarshal(e, &s); err != nil {
			d.fail(at, "must be a string, got %s", kind(e))
			return nil
		}
		if strings.TrimSpace(s) == "" {
			d.fail(at, "must not be empty or only spaces")
			return nil
		}
		if maxLen > 0 && utf8.RuneCountInString(s) > maxLen {
			d.fail(at, "must be at most %d characters long, got %d", maxLen, utf8.RuneCountInString(s))
			return nil
		}
		if strings.ContainsAny(s, "\n\t") || RefusedControls(s) > 0 {
			d.fail(at, "must not contain control characters (a line break, a tab or another): each is one line of text")
			return nil
		}
		if j, dup := seen[s]; dup {
			d.fail(name, "lists %s twice (entries %d and %d); give each once", strconv.Quote(clip(s, 64)), j, i)
			return nil
		}
		seen[s] = i
		out = append(out, s)
	}
	return out
}

// PlaylistItems reads a list of {library_item_id, episode_id?}; nil when
// absent. Entries must be distinct and either all carry an episode_id or none.
func (d *Decoder) PlaylistItems(name string, r ListRule) []PlaylistItem {
	elems := d.list(name, r)
	if elems == nil {
		return nil
	}
	out := make([]PlaylistItem, 0, len(elems))
	seen := make(map[PlaylistItem]int, len(elems))
	for i, e := range elems {
		at := fmt.Sprintf("%s[%d]", name, i)
		var m map[string]json.RawMessage
		if err := json.Unmarshal(e, &m); err != nil || m == nil {
			d.fail(at, "must be an object {library_item_id, episode_id?}, got %s", kind(e))
			return nil
		}
		sub := &Decoder{args: m}
		for k := range m {
			if k != "library_item_id" && k != "episode_id" {
				d.fail(at, "unknown field %s; an entry takes library_item_id and, for a podcast episode, episode_id", strconv.Quote(clip(k, 64)))
				return nil
			}
		}
		item := sub.ID("library_item_id", true)
		ep := sub.ID("episode_id", false)
		if err := sub.Err(); err != nil {
			for _, e := range sub.errs {
				var ae *Error
				if errors.As(e, &ae) {
					d.fail(at+"."+ae.Arg, "%s", ae.Msg)
				}
			}
			return nil
		}
		p := PlaylistItem{LibraryItemID: *item}
		if ep != nil {
			p.EpisodeID = *ep
		}
		if j, dup := seen[p]; dup {
			if p.EpisodeID == "" {
				d.fail(name, "lists library item %s twice (entries %d and %d) without an episode_id: an entry of a podcast needs the episode_id of its episode (get_playlist and get_library_item list them); a book is in a playlist once", p.LibraryItemID, j, i)
				return nil
			}
			d.fail(name, "lists the same entry twice (entries %d and %d)", j, i)
			return nil
		}
		seen[p] = i
		out = append(out, p)
	}
	withEp := 0
	for _, p := range out {
		if p.EpisodeID != "" {
			withEp++
		}
	}
	if withEp != 0 && withEp != len(out) {
		d.fail(name, "mixes books and podcast episodes: give episode_id on every entry (podcast playlist) or on none (book playlist)")
		return nil
	}
	return out
}

// Or returns *p, or def when p is nil.
func Or[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// Val returns *p, or the zero value when p is nil (a required argument that
// was missing, already reported).
func Val[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func number(v json.RawMessage) (float64, bool) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || !(v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil {
		return 0, false
	}
	return f, true
}

func describe(v json.RawMessage) string {
	if _, ok := number(v); ok {
		return clip(string(bytes.TrimSpace(v)), 32)
	}
	return kind(v)
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

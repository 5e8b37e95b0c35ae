package result

import (
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"

	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Every list pages the same way: page (0-based) and limit in, and an answer
// that carries total, page, limit, returned and, when there is more, next:
// the page and limit of the next call (its other arguments stay the same).
// Where Audiobookshelf pages a route, a page costs it a page; where it sends
// everything, the page is cut here (PageOf).
//
// A page that would not fit the result budget is made smaller, never cut
// at an odd place: its limit is lowered to the largest divisor of the
// asked limit whose entries fit, so that page and limit still name the
// same entries (page*limit is a multiple of the new limit) and next goes
// on exactly where it stopped. The answer says so in note.

// Paging is the page (0-based) and the limit a list tool was called with.
type Paging struct{ Page, Limit int }

// PagingOf is the paging of a call's page and limit arguments.
func PagingOf(page, limit int64) Paging { return Paging{Page: int(page), Limit: int(limit)} }

// Page is every list tool's answer: page p of a list under key. rows is
// either that page as Audiobookshelf cut it, total its count of the whole
// list, or, with total nil, the whole list, of which the page is cut here.
// Each entry of the page is projected with brief (AsIs for entries already
// in their compact form); extra fields go before the entries. The answer
// keeps to the result budget as the top of this file says.
func Page[T, U any](d *kit.Deps, key string, p Paging, rows []T, total *int, brief func(*T) U, extra ...Field) (*mcp.CallToolResult, error) {
	n := 0
	if total == nil {
		n = len(rows)
		rows = PageOf(rows, p.Page, p.Limit)
	} else {
		n = *total
	}
	out := make([]U, 0, len(rows))
	for i := range rows {
		out = append(out, brief(&rows[i]))
	}
	return pageResult(d, key, out, n, p.Page, p.Limit, extra...)
}

// AsIs is the projection of an entry already in its compact form.
func AsIs[T any](t *T) T { return *t }

// ListRoutes are the two routes of a list that Audiobookshelf serves for
// one library, paged, and for the whole server, whole: the collections and
// the playlists.
type ListRoutes struct {
	// Noun names an entry ("collection"), Tool the tool that lists them.
	Noun, Tool string
	Library    func(ctx context.Context, libraryID string, p Paging) (*http.Response, error)
	Server     kit.Sender
}

// ListLibraryOrServer answers page p of such a list: with libraryID from
// one library's route, which pages on Audiobookshelf's side
// (LibraryController: only the page is sent); without it from the
// server-wide route, which sends every entry, each with its items, and of
// which the page is cut here (too much for one answer is refused, saying
// to pass library_id). Each entry is projected with brief.
func ListLibraryOrServer[T, U any](ctx context.Context, d *kit.Deps, r ListRoutes, libraryID *string, p Paging, brief func(*T) U) (*mcp.CallToolResult, error) {
	key := r.Noun + "s"
	body, err := d.Get(ctx, "the "+key, func(ctx context.Context) (*http.Response, error) {
		if libraryID != nil {
			return r.Library(ctx, *libraryID, p)
		}
		return r.Server(ctx)
	})
	if err != nil {
		if libraryID == nil {
			err = everyOneTooLarge(err, r.Noun, r.Tool)
		}
		return nil, err
	}
	var l absdata.Listing[T]
	if err := kit.Decode(body, &l); err != nil {
		return nil, err
	}
	rows, total := l.Rows()
	return Page(d, key, p, rows, total, brief)
}

// PageOf is one page of a list Audiobookshelf sent whole.
func PageOf[T any](all []T, page, limit int) []T {
	if limit <= 0 || page < 0 {
		return nil
	}
	start := page * limit
	if start >= len(all) || start < 0 {
		return nil
	}
	return all[start:min(len(all), start+limit)]
}

// NextPage is the arguments of the next call.
type NextPage struct {
	Page  int `json:"page"`
	Limit int `json:"limit"`
}

// Field is one more key of a page's answer, before the entries.
type Field struct {
	Key   string
	Value any
}

// Extra is the field key: value of a page's answer. A zero value is left
// out, as omitempty would.
func Extra(key string, value any) Field { return Field{Key: key, Value: value} }

// pageResult answers one page of a list under key. entries is the page as
// asked (at most limit entries, from page*limit); total is the length of
// the whole list.
func pageResult[T any](d *kit.Deps, key string, entries []T, total, page, limit int, extra ...Field) (*mcp.CallToolResult, error) {
	enc := make([][]byte, 0, len(entries))
	for i := range entries {
		b, err := Marshal(entries[i])
		if err != nil {
			return nil, kit.Errorf(kit.Stated, "internal error: could not encode the result: %v", err)
		}
		enc = append(enc, b)
	}
	room := Room(d)
	kept := extra[:0:0]
	for _, f := range extra {
		if f.Value == nil || reflect.ValueOf(f.Value).IsZero() {
			continue // like omitempty
		}
		kept = append(kept, f)
	}
	extra = kept
	for _, f := range extra {
		if b, err := Marshal(f.Value); err == nil {
			room -= utf8.RuneCount(b) + len(f.Key) + 4
		}
	}
	note := ""
	if n := len(enc); n > 1 && chars(enc) > room {
		smaller := 1
		for x := n - 1; x >= 1; x-- {
			if limit%x == 0 && chars(enc[:x]) <= room {
				smaller = x
				break
			}
		}
		page = page * limit / smaller
		note = fmt.Sprintf("limit lowered from %d to %d so that the answer fits the result budget of %s characters; page is counted in the new limit", limit, smaller, thousands(MaxChars(d)))
		limit = smaller
		enc = enc[:smaller]
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"total":%d,"page":%d,"limit":%d,"returned":%d`, total, page, limit, len(enc))
	if (page+1)*limit < total && len(enc) > 0 {
		fmt.Fprintf(&b, `,"next":{"page":%d,"limit":%d}`, page+1, limit)
	}
	if note != "" {
		b.WriteString(`,"note":`)
		b.WriteString(strconv.Quote(note))
	}
	for _, f := range extra {
		v, err := Marshal(f.Value)
		if err != nil {
			return nil, kit.Errorf(kit.Stated, "internal error: could not encode the result: %v", err)
		}
		fmt.Fprintf(&b, `,%q:`, f.Key)
		b.Write(v)
	}
	fmt.Fprintf(&b, `,%q:[`, key)
	b.Write(bytes.Join(enc, []byte(",")))
	b.WriteString("]}")
	return jsonText(b.Bytes()), nil
}

func chars(enc [][]byte) int {
	n := len(enc)
	for _, e := range enc {
		n += utf8.RuneCount(e)
	}
	return n
}

// Cut is what a long list inside one answer left out: it shows the first
// Shown of Total entries; Rest says which tool or argument gives the rest.
type Cut struct {
	Shown int    `json:"shown"`
	Total int    `json:"total"`
	More  string `json:"more"`
	Rest  string `json:"rest,omitempty"`
}

// FirstOf keeps the first n entries of a list inside one object and says
// what was left out ("+365 more").
func FirstOf[T any](list []T, n int, rest string, cuts map[string]Cut, key string) []T {
	if len(list) <= n {
		return list
	}
	cuts[key] = Cut{Shown: n, Total: len(list), More: fmt.Sprintf("+%d more", len(list)-n), Rest: rest}
	return list[:n]
}

// FitLists shortens the lists of an answer (keys of out holding slices)
// until it fits the budget: each is cut to the same number of entries, the
// largest that fits, and cuts says what was left out and rest[key] where to
// Get it. Lists already short enough stay whole.
func FitLists(d *kit.Deps, out map[string]any, rest map[string]string, cuts map[string]Cut) {
	type list struct {
		key   string
		v     reflect.Value
		sizes []int
	}
	var lists []list
	base := map[string]any{}
	for k, v := range out {
		rv := reflect.ValueOf(v)
		if rv.Kind() != reflect.Slice || rv.Len() == 0 {
			base[k] = v
			continue
		}
		l := list{key: k, v: rv}
		for i := 0; i < rv.Len(); i++ {
			b, _ := Marshal(rv.Index(i).Interface())
			l.sizes = append(l.sizes, utf8.RuneCount(b)+1)
		}
		lists = append(lists, l)
	}
	if len(lists) == 0 {
		return
	}
	sort.Slice(lists, func(i, j int) bool { return lists[i].key < lists[j].key })
	b, _ := Marshal(base)
	room := Room(d) - utf8.RuneCount(b) - 300*len(lists) // the cuts' own notes
	cost := func(c int) int {
		n := 0
		for _, l := range lists {
			for i := 0; i < min(c, len(l.sizes)); i++ {
				n += l.sizes[i]
			}
			n += len(l.key) + 4
		}
		return n
	}
	longest := 0
	for _, l := range lists {
		longest = max(longest, len(l.sizes))
	}
	if cost(longest) <= Room(d)-utf8.RuneCount(b) {
		return
	}
	// The largest per-list count that fits.
	c := sort.Search(longest+1, func(c int) bool { return cost(c) > room }) - 1
	c = max(c, 0)
	for _, l := range lists {
		if l.v.Len() <= c {
			continue
		}
		out[l.key] = l.v.Slice(0, c).Interface()
		total := l.v.Len()
		if prev, ok := cuts[l.key]; ok {
			total = prev.Total // already cut (firstOf): the whole list's length
		}
		cuts[l.key] = Cut{Shown: c, Total: total, More: fmt.Sprintf("+%d more", total-c), Rest: rest[l.key]}
	}
}

// everyOneTooLarge replaces send's refusal of a body over the limit when a
// server-wide route sent every collection or playlist at once (each with
// its books expanded): a smaller limit would not help, one library's
// route is paged by Audiobookshelf.
func everyOneTooLarge(err error, what, tool string) error {
	if !errors.Is(err, kit.ErrTooLarge) {
		return err
	}
	return kit.Errorf(kit.Unchanged, "Audiobookshelf sent every %s of the server at once, each with its books, and that is more than one answer may be; it was not read. Pass library_id (list_libraries gives them): %s then pages one library's %s on Audiobookshelf's side.", what, tool, what+"s")
}

func Full(detail string) bool { return detail == "full" }

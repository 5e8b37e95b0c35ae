package curation

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/compact"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Finding is one problem an audit found, with what a fix needs: the ids
// of the records (series, authors, library items), or the names where
// Audiobookshelf keeps no record but renames by name (narrators, tags,
// genres).
type Finding struct {
	Kind string `json:"kind"`
	// IDs are the records the finding is about: series ids, author ids or
	// library item ids, as Kind says.
	IDs []string `json:"ids,omitempty"`
	// Names are the spellings the finding is about, in IDs' order where
	// IDs are given.
	Names []string `json:"names,omitempty"`
	// Items are the books a fix touches, where IDs are not books.
	Items []string `json:"library_item_ids,omitempty"`
	// Books counts the books holding each of Names (tags and genres).
	Books []int `json:"books,omitempty"`
	// Reasons are, for a duplicate, every reason its books were put
	// together for (Kind is the first of them).
	Reasons []string `json:"reasons,omitempty"`
	// Detail says what was found in a few words.
	Detail string `json:"detail,omitempty"`
}

// tally sorts an audit's findings (by kind in the order of kinds, then
// by their ids or names) and counts each kind it checks (0 for a kind
// with none): every audit answers them through result.Page with the counts.
func tally(kinds []string, findings []Finding) map[string]int {
	counts := map[string]int{}
	for _, k := range kinds {
		counts[k] = 0
	}
	for _, f := range findings {
		counts[f.Kind]++
	}
	sort.SliceStable(findings, func(i, j int) bool {
		if findings[i].Kind != findings[j].Kind {
			return kindIndex(kinds, findings[i].Kind) < kindIndex(kinds, findings[j].Kind)
		}
		return key(findings[i]) < key(findings[j])
	})
	return counts
}

func kindIndex(kinds []string, k string) int {
	for i, x := range kinds {
		if x == k {
			return i
		}
	}
	return len(kinds)
}

func key(f Finding) string {
	if len(f.IDs) > 0 {
		return strings.Join(f.IDs, ",")
	}
	return strings.Join(f.Names, ",")
}

// unionFind groups the indexes 0..n-1 it is told belong together.
type unionFind []int

func newUnionFind(n int) unionFind {
	u := make(unionFind, n)
	for i := range u {
		u[i] = i
	}
	return u
}

func (u unionFind) find(i int) int {
	for u[i] != i {
		u[i] = u[u[i]]
		i = u[i]
	}
	return i
}

func (u unionFind) union(i, j int) { u[u.find(i)] = u.find(j) }

// groups are the sets of more than one index, each in ascending order,
// in the order of their first index.
func (u unionFind) groups() [][]int {
	by := map[int][]int{}
	var roots []int
	for i := range u {
		r := u.find(i)
		if _, ok := by[r]; !ok {
			roots = append(roots, r)
		}
		by[r] = append(by[r], i)
	}
	var out [][]int
	for _, r := range roots {
		if len(by[r]) > 1 {
			out = append(out, by[r])
		}
	}
	return out
}

// unionBy puts together the indexes whose keys are equal (an empty key
// puts nothing together).
func (u unionFind) unionBy(keys []string) {
	first := map[string]int{}
	for i, k := range keys {
		if k == "" {
			continue
		}
		if j, ok := first[k]; ok {
			u.union(i, j)
		} else {
			first[k] = i
		}
	}
}

// ---------------------------------------------------------------- series

var seriesKinds = []string{"gap", "duplicate_sequence", "spelling", "sequence_without_series"}

// placeInTitle is a title or subtitle that names a place in a series:
// "Book 3", "Volume 2", "Vol. 4", "Part 1", "#5".
var placeInTitle = regexp.MustCompile(`(?i)(\b(book|volume|vol|part|tome|band)\b\.?\s*|#\s*)(\d+)\b`)

// AuditSeries is audit_series.
func AuditSeries(ctx context.Context, d *kit.Deps, a toolargs.AuditSeries) (*mcp.CallToolResult, error) {
	pending := kit.Alongside(ctx, func(ctx context.Context) itemsRead {
		items, err := readItems(ctx, d, a.LibraryID, kit.Filter("series", "no-series"))
		return itemsRead{items, err}
	})
	series, err := readSeries(ctx, d, a.LibraryID)
	if err != nil {
		pending.Abandon()
		return nil, err
	}
	loose := pending.Wait()
	if loose.err != nil {
		return nil, loose.err
	}
	var findings []Finding
	// One series under several spellings: together, then gaps and
	// duplicated places counted over the books of all of them.
	u := newUnionFind(len(series))
	keys := make([]string, len(series))
	for i := range series {
		keys[i] = NameKey(series[i].Name)
	}
	u.unionBy(keys)
	var sets [][]int
	inGroup := map[int]bool{}
	for _, g := range u.groups() {
		sets = append(sets, g)
		for _, i := range g {
			inGroup[i] = true
		}
		f := Finding{Kind: "spelling", Detail: fmt.Sprintf("%d spellings of one series", len(g))}
		for _, i := range g {
			f.IDs = append(f.IDs, series[i].ID)
			f.Names = append(f.Names, series[i].Name)
		}
		findings = append(findings, f)
	}
	for i := range series {
		if !inGroup[i] {
			sets = append(sets, []int{i})
		}
	}
	for _, set := range sets {
		var ids []string
		type place struct{ seq, item string }
		var places []place
		for _, i := range set {
			s := &series[i]
			ids = append(ids, s.ID)
			for b := range s.Books {
				seq := sequenceIn(s.Books[b].Media.Metadata.SeriesName, s.Name)
				places = append(places, place{seq, s.Books[b].ID})
			}
		}
		// A place held by more than one book.
		held := map[string][]string{}
		var order []string
		ints := map[int]bool{}
		for _, p := range places {
			if p.seq == "" {
				continue
			}
			n := normalSequence(p.seq)
			if _, ok := held[n]; !ok {
				order = append(order, n)
			}
			held[n] = append(held[n], p.item)
			if f, err := strconv.ParseFloat(n, 64); err == nil && f >= 0 && f < 100000 {
				ints[int(math.Floor(f))] = true
			}
		}
		for _, n := range order {
			if books := held[n]; len(books) > 1 {
				sort.Strings(books)
				findings = append(findings, Finding{Kind: "duplicate_sequence", IDs: ids, Items: books,
					Detail: fmt.Sprintf("%d books hold #%s", len(books), n)})
			}
		}
		// Whole places missing between 1 (or the lowest, when below) and
		// the highest.
		if len(ints) > 0 {
			lo, hi := math.MaxInt, 0
			for n := range ints {
				lo, hi = min(lo, n), max(hi, n)
			}
			lo = min(lo, 1)
			var missing []string
			for n := lo; n <= hi; n++ {
				if !ints[n] {
					missing = append(missing, strconv.Itoa(n))
				}
			}
			if len(missing) > 0 {
				shown := missing
				if len(shown) > 20 {
					shown = append(shown[:20:20], fmt.Sprintf("and %d more", len(missing)-20))
				}
				findings = append(findings, Finding{Kind: "gap", IDs: ids,
					Detail: fmt.Sprintf("no book holds #%s (of #%d to #%d)", strings.Join(shown, ", #"), lo, hi)})
			}
		}
	}
	for i := range loose.items {
		it := &loose.items[i]
		md := &it.Media.Metadata
		for _, t := range []string{md.Title.Value, md.Subtitle.Value} {
			if m := placeInTitle.FindStringSubmatch(t); m != nil {
				findings = append(findings, Finding{Kind: "sequence_without_series", IDs: []string{it.ID}, Names: []string{titleOf(it)},
					Detail: "its title says #" + m[3] + " but it is in no series"})
				break
			}
		}
	}
	counts := tally(seriesKinds, findings)
	return answer(ctx, d, result.PagingOf(a.Page, a.Limit), findings, counts,
		fmt.Sprintf("%s and %s without a series", plural(len(series), "series", "series"), plural(len(loose.items), "book", "books")))
}

type itemsRead struct {
	items []absdata.Item
	err   error
}

// sequenceIn is the place a book holds in the series name, read from
// the book's seriesName as Audiobookshelf writes it (Book.seriesName:
// "Name #sequence" or "Name", joined with ", "); "" for none.
func sequenceIn(seriesName, name string) string {
	rest := seriesName
	for {
		i := strings.Index(rest, name)
		if i < 0 {
			return ""
		}
		if i == 0 || strings.HasSuffix(rest[:i], ", ") {
			after := rest[i+len(name):]
			if seq, ok := strings.CutPrefix(after, " #"); ok {
				if j := strings.Index(seq, ", "); j >= 0 {
					seq = seq[:j]
				}
				return strings.TrimSpace(seq)
			}
			if after == "" || strings.HasPrefix(after, ", ") {
				return ""
			}
		}
		rest = rest[i+len(name):]
	}
}

// normalSequence is a place written one way: a number as its shortest
// decimal ("01" and "1.0" are "1"), anything else trimmed.
func normalSequence(s string) string {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return s
}

// ---------------------------------------------------------------- people

var peopleKinds = []string{"author_spelling", "narrator_spelling"}

// AuditPeople is audit_people. It reads the library (a podcast library
// is refused), then at the same time its authors, page after page, and
// its narrators, both read from the books at every call: the filter data
// (getLibraryFilterData) is a copy Audiobookshelf keeps for up to 30
// minutes and does not update when a book's narrators are edited or an
// author renamed, so spellings written since would be missed.
func AuditPeople(ctx context.Context, d *kit.Deps, a toolargs.AuditPeople) (*mcp.CallToolResult, error) {
	lib, err := readLibrary(ctx, d, a.LibraryID)
	if err != nil {
		return nil, err
	}
	if lib.MediaType == "podcast" {
		return nil, notBooks(a.LibraryID)
	}
	pending := kit.Alongside(ctx, func(ctx context.Context) narratorsRead {
		names, err := readNarrators(ctx, d, a.LibraryID)
		return narratorsRead{names, err}
	})
	authors, err := readAuthors(ctx, d, a.LibraryID)
	if err != nil {
		pending.Abandon()
		return nil, err
	}
	nr := pending.Wait()
	if nr.err != nil {
		return nil, nr.err
	}
	narrators := nr.names
	var findings []Finding
	names := make([]string, len(authors))
	for i := range authors {
		names[i] = authors[i].Name
	}
	for _, g := range samePeople(names) {
		f := Finding{Kind: "author_spelling", Detail: fmt.Sprintf("%d spellings of one author", len(g))}
		for _, i := range g {
			f.IDs = append(f.IDs, authors[i].ID)
			f.Names = append(f.Names, authors[i].Name)
		}
		findings = append(findings, f)
	}
	for _, g := range samePeople(narrators) {
		f := Finding{Kind: "narrator_spelling", Detail: fmt.Sprintf("%d spellings of one narrator", len(g))}
		for _, i := range g {
			f.Names = append(f.Names, narrators[i])
		}
		sort.Strings(f.Names)
		findings = append(findings, f)
	}
	counts := tally(peopleKinds, findings)
	return answer(ctx, d, result.PagingOf(a.Page, a.Limit), findings, counts,
		fmt.Sprintf("%s and %s", plural(len(authors), "author", "authors"), plural(len(narrators), "narrator", "narrators")))
}

// samePeople groups the names that spell one person: alike under
// PersonKey, or a name written with initials alone and the one name
// spelt out whose initials it is.
func samePeople(names []string) [][]int {
	u := newUnionFind(len(names))
	keys := make([]string, len(names))
	for i, n := range names {
		keys[i] = PersonKey(n)
	}
	u.unionBy(keys)
	spelt := map[string][]int{}
	var bare []struct {
		i   int
		key string
	}
	for i, n := range names {
		k, s := InitialsKey(n)
		if len(strings.Fields(k)) < 2 {
			continue
		}
		if s {
			spelt[k] = append(spelt[k], i)
		} else {
			bare = append(bare, struct {
				i   int
				key string
			}{i, k})
		}
	}
	for _, b := range bare {
		full := spelt[b.key]
		if len(full) == 0 {
			continue
		}
		// Only where the initials fit one person spelt out: "J. Smith"
		// beside John and Jane Smith is left alone.
		one := true
		for _, j := range full[1:] {
			if u.find(j) != u.find(full[0]) {
				one = false
			}
		}
		if one {
			u.union(b.i, full[0])
		}
	}
	return u.groups()
}

// ---------------------------------------------------------------- duplicates

var duplicateKinds = []string{"same_asin", "same_isbn", "same_title_author"}

// durationSlack is how far apart two durations may be for the same
// title and author to count as one book: 5 % of the longer.
const durationSlack = 0.05

// AuditDuplicates is audit_duplicates. Books are put together by each
// reason (duplicateKinds), then the groups that share a book are one
// finding: each pair once, its kind the first reason in duplicateKinds'
// order and reasons every one that put books of it together.
func AuditDuplicates(ctx context.Context, d *kit.Deps, a toolargs.AuditDuplicates) (*mcp.CallToolResult, error) {
	items, err := readItems(ctx, d, a.LibraryID, "")
	if err != nil {
		return nil, err
	}
	type link struct {
		kind, detail string
		members      []int
	}
	var links []link
	for _, by := range []struct {
		kind string
		key  func(*absdata.Metadata) string
	}{
		{"same_asin", func(m *absdata.Metadata) string { return strings.ToUpper(strings.TrimSpace(m.ASIN.Value)) }},
		{"same_isbn", func(m *absdata.Metadata) string { return isbnKey(m.ISBN.Value) }},
	} {
		keys := make([]string, len(items))
		for i := range items {
			keys[i] = by.key(&items[i].Media.Metadata)
		}
		u := newUnionFind(len(items))
		u.unionBy(keys)
		for _, g := range u.groups() {
			links = append(links, link{by.kind, fmt.Sprintf("%d books share %s", len(g), keys[g[0]]), g})
		}
	}
	// The same title (edition notes such as "(Unabridged)" aside) and
	// author, durations within durationSlack.
	byWork := map[string][]int{}
	var works []string
	for i := range items {
		m := &items[i].Media.Metadata
		t, au := TitleKey(m.Title.Value), PersonKey(m.AuthorName)
		if t == "" {
			continue
		}
		k := t + "\x00" + au
		if _, ok := byWork[k]; !ok {
			works = append(works, k)
		}
		byWork[k] = append(byWork[k], i)
	}
	for _, k := range works {
		g := byWork[k]
		if len(g) < 2 {
			continue
		}
		u := newUnionFind(len(g))
		for x := range g {
			for y := x + 1; y < len(g); y++ {
				dx, dy := items[g[x]].Media.Duration, items[g[y]].Media.Duration
				if dx > 0 && dy > 0 && math.Abs(dx-dy) <= durationSlack*max(dx, dy) {
					u.union(x, y)
				}
			}
		}
		for _, sub := range u.groups() {
			var members []int
			for _, x := range sub {
				members = append(members, g[x])
			}
			links = append(links, link{"same_title_author", fmt.Sprintf("%d books of one title and author, durations within %d %%", len(members), int(durationSlack*100)), members})
		}
	}
	// One finding per set of books the reasons put together.
	all := newUnionFind(len(items))
	for _, l := range links {
		for _, i := range l.members[1:] {
			all.union(l.members[0], i)
		}
	}
	byRoot := map[int][]link{}
	for _, l := range links {
		r := all.find(l.members[0])
		byRoot[r] = append(byRoot[r], l)
	}
	var findings []Finding
	for _, g := range all.groups() {
		f := Finding{}
		var details []string
		for _, kind := range duplicateKinds {
			for _, l := range byRoot[all.find(g[0])] {
				if l.kind == kind {
					if !slices.Contains(f.Reasons, kind) {
						f.Reasons = append(f.Reasons, kind)
					}
					details = append(details, l.detail)
				}
			}
		}
		f.Kind, f.Detail = f.Reasons[0], strings.Join(details, "; ")
		for _, i := range g {
			f.IDs = append(f.IDs, items[i].ID)
			f.Names = append(f.Names, titleOf(&items[i]))
		}
		sortTogether(f.IDs, f.Names)
		findings = append(findings, f)
	}
	counts := tally(duplicateKinds, findings)
	return answer(ctx, d, result.PagingOf(a.Page, a.Limit), findings, counts,
		plural(len(items), "book", "books"))
}

// isbnKey is an ISBN's digits (and a final X), so that "978-0-7653"
// and "9780765" compare alike.
func isbnKey(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == 'x' || r == 'X':
			b.WriteByte('X')
		}
	}
	return b.String()
}

// sortTogether sorts ids, and names along with them.
func sortTogether(ids, names []string) {
	idx := make([]int, len(ids))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return ids[idx[a]] < ids[idx[b]] })
	i2, n2 := make([]string, len(ids)), make([]string, len(names))
	for k, i := range idx {
		i2[k] = ids[i]
		if i < len(names) {
			n2[k] = names[i]
		}
	}
	copy(ids, i2)
	copy(names, n2)
}

// ---------------------------------------------------------------- missing

// missingKinds are the kinds a finding names. A book lacking an ASIN or
// an ISBN alone is not one (most books have one and not the other);
// lacking both is asin_isbn.
var missingKinds = []string{"cover", "description", "author", "asin_isbn", "published_year", "language", "chapters", "issues"}

// MissingFinding is a book and the kinds it lacks.
type MissingFinding struct {
	LibraryItemID string   `json:"library_item_id"`
	Title         string   `json:"title"`
	Missing       []string `json:"missing"`
}

// lacks are the kinds of missingKinds a book lacks, from its minified
// item as a library's listing gives it: what Audiobookshelf's missing
// filters and its issues filter test (libraryItemsBookFilters: a text
// null or "", no chapters, no author, files missing or invalid), with
// spaces aside, and a description that is empty to a reader once its
// markup is taken out ("<p></p>", "&nbsp;"), which the filter misses.
func lacks(it *absdata.Item) []string {
	m := &it.Media.Metadata
	blank := func(t absdata.Text) bool { return strings.TrimSpace(t.Value) == "" }
	l := map[string]bool{
		"cover":          blank(it.Media.CoverPath),
		"description":    emptyToReader(m.Description.String()),
		"author":         len(m.Authors) == 0 && strings.TrimSpace(m.AuthorName) == "",
		"asin_isbn":      blank(m.ASIN) && blank(m.ISBN),
		"published_year": blank(m.PublishedYear),
		"language":       blank(m.Language),
		"chapters":       it.Media.NumChapters == 0 && len(it.Media.Chapters) == 0,
		"issues":         it.IsMissing || it.IsInvalid,
	}
	var out []string
	for _, k := range missingKinds {
		if l[k] {
			out = append(out, k)
		}
	}
	return out
}

// emptyToReader reports whether a description shows nothing once its
// markup and entities are taken out: no letter, digit, mark or symbol,
// only spaces and invisible characters.
func emptyToReader(s string) bool {
	text, _ := compact.Collapse(s, 1)
	for _, r := range text {
		if unicode.IsGraphic(r) && !unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

// AuditMissing is audit_missing: the library's books, page after page,
// each one's lacks.
func AuditMissing(ctx context.Context, d *kit.Deps, a toolargs.AuditMissing) (*mcp.CallToolResult, error) {
	items, err := readItems(ctx, d, a.LibraryID, "")
	if err != nil {
		return nil, err
	}
	counts := map[string]int{}
	for _, k := range missingKinds {
		counts[k] = 0
	}
	var findings []MissingFinding
	for i := range items {
		it := &items[i]
		if l := lacks(it); len(l) > 0 {
			for _, k := range l {
				counts[k]++
			}
			findings = append(findings, MissingFinding{LibraryItemID: it.ID, Title: titleOf(it), Missing: l})
		}
	}
	sort.Slice(findings, func(i, j int) bool { return findings[i].LibraryItemID < findings[j].LibraryItemID })
	return answer(ctx, d, result.PagingOf(a.Page, a.Limit), findings, counts, plural(len(items), "book", "books"))
}

// ---------------------------------------------------------------- tags and genres

var termKinds = []string{"tag_spelling", "genre_spelling", "tag_used_once", "genre_used_once"}

// AuditTagsAndGenres is audit_tags_and_genres.
func AuditTagsAndGenres(ctx context.Context, d *kit.Deps, a toolargs.AuditTagsAndGenres) (*mcp.CallToolResult, error) {
	items, err := readItems(ctx, d, a.LibraryID, "")
	if err != nil {
		return nil, err
	}
	var findings []Finding
	for _, t := range []struct {
		noun string
		of   func(*absdata.Item) []string
	}{
		{"tag", func(it *absdata.Item) []string { return it.Media.Tags }},
		{"genre", func(it *absdata.Item) []string { return it.Media.Metadata.Genres }},
	} {
		books := map[string]int{}
		var names []string
		for i := range items {
			seen := map[string]bool{}
			for _, n := range t.of(&items[i]) {
				if seen[n] {
					continue
				}
				seen[n] = true
				if books[n] == 0 {
					names = append(names, n)
				}
				books[n]++
			}
		}
		sort.Strings(names)
		keys := make([]string, len(names))
		for i, n := range names {
			keys[i] = NameKey(n)
		}
		u := newUnionFind(len(names))
		u.unionBy(keys)
		grouped := map[int]bool{}
		for _, g := range u.groups() {
			f := Finding{Kind: t.noun + "_spelling", Detail: fmt.Sprintf("%d spellings of one %s", len(g), t.noun)}
			for _, i := range g {
				grouped[i] = true
				f.Names = append(f.Names, names[i])
				f.Books = append(f.Books, books[names[i]])
			}
			findings = append(findings, f)
		}
		for i, n := range names {
			if books[n] == 1 && !grouped[i] {
				findings = append(findings, Finding{Kind: t.noun + "_used_once", Names: []string{n}, Books: []int{1}})
			}
		}
	}
	counts := tally(termKinds, findings)
	return answer(ctx, d, result.PagingOf(a.Page, a.Limit), findings, counts,
		plural(len(items), "book", "books"))
}

package naming

import (
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"

	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"unicode"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/argdec"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/guard"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
)

// NameKind is what an argument names when it is given a title or a name in
// place of an id (tools.yaml's `names:` of a parameter).
type NameKind string

// The kinds of name an argument can take.
const (
	NameItem           NameKind = "item"            // a book or a podcast, by title
	NamePodcast        NameKind = "podcast"         // a podcast, by title
	NameSeries         NameKind = "series"          // a series, by name
	NameAuthor         NameKind = "author"          // an author, by name
	NameLibrary        NameKind = "library"         // a library, by name
	NameAnyLibrary     NameKind = "any_library"     // a library of either kind, by name; left out, the user's one book library
	NameBookLibrary    NameKind = "book_library"    // a library of books, by name
	NamePodcastLibrary NameKind = "podcast_library" // a library of podcasts, by name
	NameCollection     NameKind = "collection"      // a collection, by name
	NamePlaylist       NameKind = "playlist"        // one of the user's playlists, by name
)

// NameKinds are the kinds tools.yaml may give.
var NameKinds = []NameKind{NameItem, NamePodcast, NameSeries, NameAuthor, NameLibrary, NameAnyLibrary, NameBookLibrary, NamePodcastLibrary, NameCollection, NamePlaylist}

// NameArg is one argument of a tool that takes a title or a name where it
// takes an id.
type NameArg struct {
	Param string
	Kind  NameKind
	// Field: the argument is a list of objects, and this key of each holds
	// the id (playlist entries' library_item_id).
	Field string
	// Omit: a required library argument that may be left out when the
	// user has exactly one library of the kind.
	Omit bool
}

// MaxNames is how many names one call may give: each costs a search.
const MaxNames = 25

// MaxCandidates is how many candidates an ambiguous name lists.
const MaxCandidates = 10

// searchLimit is how many matches of each group a search for a name asks
// for. Audiobookshelf cuts each group at it, so an answer with a group at
// the limit is not trusted: the name is matched on the complete listing.
const searchLimit = 25

// nameLike: a value that can be a title or a name to look up. Text with
// control or format characters, or longer than maxName bytes, is left to
// the decoder, which refuses it as an id before anything is sent.
func nameLike(s string) bool {
	name := strings.TrimSpace(s)
	if name == "" || len(name) > maxName || LooksLikeID(name) {
		return false
	}
	for _, r := range name {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return false
		}
	}
	return true
}

// maxName is the longest title or name looked up, in bytes.
const maxName = 500

// LooksLikeID is true for what Audiobookshelf makes ids of
// (argdec.LooksLikeID). Such a value is used as it is, with no request;
// anything else is a name.
func LooksLikeID(s string) bool { return argdec.LooksLikeID(s) }

// Resolve turns the titles and names among a call's arguments into
// ids, before the arguments are decoded (so the permission and the plan
// see ids alone), and fills a left-out library argument when the user has
// exactly one library of its kind. A value that looks like an id is left
// as it is and costs no request. A name matches what is named so exactly
// (case, accents, spacing and punctuation aside), else what holds it in
// its name; an item, a podcast, a series or an author is looked for with
// Audiobookshelf's search, and where its answer was cut at the limit or
// holds no exact match, on the complete listing of the library. A name
// that matches nothing, or more than one thing, is an error naming the
// argument (with the candidates and their ids), and nothing is sent
// beyond the reads. What each name matched comes back beside the
// arguments: a guarded tool's question says it, and a write that does
// not ask refuses a partial match (Founds.RefusePartial).
// Arguments that are not a JSON object, or values of another type, are
// left for the decoder to refuse.
func Resolve(ctx context.Context, d *kit.Deps, raw json.RawMessage, args ...NameArg) (json.RawMessage, Founds, error) {
	if len(args) == 0 {
		return raw, nil, nil
	}
	m := map[string]json.RawMessage{}
	if len(strings.TrimSpace(string(raw))) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &m); err != nil || m == nil {
			return raw, nil, nil
		}
	}
	// Counted before anything is sent: each name costs a search.
	n := 0
	for _, a := range args {
		if n += countNames(a, m[a.Param]); n > MaxNames {
			return nil, nil, kit.Errorf(kit.NotSent, "argument %q: at most %d titles or names in one call (each is a search), and it brings them to %d; give ids for the rest.", a.Param, MaxNames, n)
		}
	}
	r := &resolver{d: d, ctx: ctx}
	changed := false
	// Libraries first: a library given in the same call narrows the
	// search for an item, a series or an author to it.
	ordered := make([]NameArg, 0, len(args))
	for _, a := range args {
		if a.Kind.isLibrary() {
			ordered = append(ordered, a)
		}
	}
	for _, a := range args {
		if !a.Kind.isLibrary() {
			ordered = append(ordered, a)
		}
	}
	for _, a := range ordered {
		v, ok := m[a.Param]
		if !ok || string(v) == "null" {
			if a.Omit {
				id, err := r.onlyLibrary(a)
				if err != nil {
					return nil, nil, err
				}
				m[a.Param], _ = json.Marshal(id)
				changed = true
			}
			continue
		}
		nv, ch, err := r.value(a, v)
		if err != nil {
			return nil, nil, err
		}
		if ch {
			m[a.Param] = nv
			changed = true
		}
		if a.Kind.isLibrary() && (a.Param == "library_id" || a.Param == "library") {
			if s, ok := stringIn(m[a.Param]); ok {
				r.libraryID = s
			}
		}
	}
	if !changed {
		return raw, r.found, nil
	}
	out, err := json.Marshal(m)
	return out, r.found, err
}

// stringIn is the string v holds, and whether v is a JSON string at all: a
// test of an argument's shape, not a decode whose failure is an error (a
// value of another shape is left to the arguments' decoder to refuse).
func stringIn(v json.RawMessage) (string, bool) {
	var s string
	err := json.Unmarshal(v, &s)
	return s, err == nil
}

// countNames is how many titles or names v (an argument's value) holds.
func countNames(a NameArg, v json.RawMessage) int {
	if len(v) == 0 {
		return 0
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		if nameLike(s) {
			return 1
		}
		return 0
	}
	n := 0
	if a.Field == "" {
		var l []json.RawMessage
		if json.Unmarshal(v, &l) != nil {
			return 0
		}
		for _, e := range l {
			if s, ok := stringIn(e); ok && nameLike(s) {
				n++
			}
		}
		return n
	}
	var l []map[string]json.RawMessage
	if json.Unmarshal(v, &l) != nil {
		return 0
	}
	for _, e := range l {
		if s, ok := stringIn(e[a.Field]); ok && nameLike(s) {
			n++
		}
	}
	return n
}

// searched: a name of the kind is looked for with Audiobookshelf's search
// (and, where that cannot settle it, the complete listing); the other
// kinds are matched on a listing that is complete.
func (k NameKind) searched() bool {
	return k == NameItem || k == NamePodcast || k == NameSeries || k == NameAuthor
}

func (k NameKind) isLibrary() bool {
	return k == NameLibrary || k == NameAnyLibrary || k == NameBookLibrary || k == NamePodcastLibrary
}

// noun is what a kind is called in an error.
func (k NameKind) noun() string {
	switch k {
	case NameItem:
		return "item"
	case NamePodcast:
		return "podcast"
	case NameAnyLibrary:
		return "library"
	case NameBookLibrary:
		return "book library"
	case NamePodcastLibrary:
		return "podcast library"
	}
	return string(k)
}

// plural is the noun of more than one.
func (k NameKind) plural() string {
	n := k.noun()
	switch {
	case strings.HasSuffix(n, "library"):
		return strings.TrimSuffix(n, "y") + "ies"
	case n == "series":
		return n
	}
	return n + "s"
}

// lister is the tool that lists what a kind names, for an error.
func (k NameKind) lister() string {
	switch k {
	case NameItem, NamePodcast:
		return "search_library"
	case NameSeries:
		return "list_series"
	case NameAuthor:
		return "list_authors"
	case NameCollection:
		return "list_collections"
	case NamePlaylist:
		return "list_playlists"
	}
	return "list_libraries"
}

type resolver struct {
	d         *kit.Deps
	ctx       context.Context
	libraryID string // the call's library, once known

	libs        []absdata.Library
	collections []absdata.Collection
	playlists   []absdata.Playlist

	found Founds // what each name matched

	mu     sync.Mutex
	listed map[string]*listed // complete listings read, by group and library
}

// value resolves one argument's value: a string, a list of strings, or a
// list of objects whose Field holds the id.
func (r *resolver) value(a NameArg, v json.RawMessage) (json.RawMessage, bool, error) {
	var s string
	if json.Unmarshal(v, &s) == nil {
		id, ch, err := r.one(a, a.Param, s)
		if err != nil || !ch {
			return v, false, err
		}
		out, _ := json.Marshal(id)
		return out, true, nil
	}
	if a.Field == "" {
		var l []string
		if json.Unmarshal(v, &l) != nil {
			return v, false, nil
		}
		changed := false
		for i, s := range l {
			id, ch, err := r.one(a, fmt.Sprintf("%s[%d]", a.Param, i), s)
			if err != nil {
				return v, false, err
			}
			if ch {
				l[i], changed = id, true
			}
		}
		if !changed {
			return v, false, nil
		}
		out, _ := json.Marshal(l)
		return out, true, nil
	}
	var l []map[string]json.RawMessage
	if json.Unmarshal(v, &l) != nil {
		return v, false, nil
	}
	changed := false
	for i, e := range l {
		var s string
		if e == nil || json.Unmarshal(e[a.Field], &s) != nil {
			continue
		}
		id, ch, err := r.one(a, fmt.Sprintf("%s[%d].%s", a.Param, i, a.Field), s)
		if err != nil {
			return v, false, err
		}
		if ch {
			e[a.Field], _ = json.Marshal(id)
			changed = true
		}
	}
	if !changed {
		return v, false, nil
	}
	out, _ := json.Marshal(l)
	return out, true, nil
}

// candidate is one thing a name may stand for.
type candidate struct {
	ID, Name, Library string
	Podcast           bool // an item of a listing that is a podcast
}

// one resolves one value: an id (or an empty value, left to the decoder)
// as it is, else the one thing it names.
func (r *resolver) one(a NameArg, arg, s string) (string, bool, error) {
	if !nameLike(s) {
		return s, false, nil
	}
	name := strings.TrimSpace(s)
	cands, complete, err := r.candidates(a.Kind, name)
	if err != nil {
		return "", false, err
	}
	match, exact := pick(cands, name)
	if a.Kind.searched() && (!complete || !exact) {
		// A search cut at its limit may hide the exact name, or a second
		// one; one without an exact match may have missed it written
		// otherwise (accents, punctuation): the complete listing decides.
		if cands, err = r.listing(a.Kind); err != nil {
			return "", false, err
		}
		match, exact = pick(cands, name)
	}
	switch {
	case len(match) == 1:
		r.found = append(r.found, Found{Arg: arg, Kind: a.Kind, Words: name, Name: match[0].Name, ID: match[0].ID, Exact: exact})
		return match[0].ID, true, nil
	case len(match) == 0 && a.Kind.isLibrary():
		return "", false, r.noLibrary(a.Kind, arg, name)
	case len(match) == 0:
		return "", false, kit.Errorf(kit.Unchanged, "argument %q: no %s is named %q. Give its id (%s lists them) or another name.", arg, a.Kind.noun(), clip(name, 80), a.Kind.lister())
	}
	var b strings.Builder
	fmt.Fprintf(&b, "argument %q: %q names %d %s; call again with one of these ids in %s:", arg, clip(name, 80), len(match), a.Kind.plural(), a.Param)
	for i, c := range match {
		if i == MaxCandidates {
			fmt.Fprintf(&b, " … and %d more (a longer name narrows them)", len(match)-MaxCandidates)
			break
		}
		fmt.Fprintf(&b, " %q %q", c.ID, clip(c.Name, 80))
		if i < len(match)-1 && i < MaxCandidates-1 {
			b.WriteString(",")
		}
	}
	b.WriteString(".")
	return "", false, kit.Errorf(kit.Unchanged, "%s", b.String())
}

// pick is what a name matches: those named exactly so (case, accents,
// spacing and punctuation aside; exact true), else those whose name holds
// it (case, accents and spacing aside: with its punctuation, so that "_a"
// is not the "a" of every name).
func pick(cands []candidate, name string) ([]candidate, bool) {
	q, qw := Fold(name), lowerWords(name)
	var exact, part []candidate
	seen := map[string]bool{}
	for _, c := range cands {
		if seen[c.ID] {
			continue
		}
		seen[c.ID] = true
		switch {
		case Fold(c.Name) == q:
			exact = append(exact, c)
		case strings.Contains(lowerWords(c.Name), qw):
			part = append(part, c)
		}
	}
	if len(exact) > 0 {
		return exact, true
	}
	return part, false
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// candidates reads what a name of the kind may stand for; complete is
// false when what was read may leave some out (a search cut at its limit).
func (r *resolver) candidates(k NameKind, name string) (_ []candidate, complete bool, _ error) {
	var out []candidate
	switch {
	case k.isLibrary():
		libs, err := r.libraries()
		if err != nil {
			return nil, false, err
		}
		for _, l := range libs {
			if k.fits(l.MediaType) {
				out = append(out, candidate{ID: l.ID, Name: l.Name})
			}
		}
	case k == NameCollection:
		if r.collections == nil {
			body, err := r.d.Get(r.ctx, "collections", func(ctx context.Context) (*http.Response, error) { return r.d.API.ListCollections(ctx) })
			if err != nil {
				return nil, false, err
			}
			var v absdata.Listing[absdata.Collection]
			if err := kit.Decode(body, &v); err != nil {
				return nil, false, err
			}
			r.collections = append(append([]absdata.Collection{}, v.Collections...), v.Results...)
		}
		for _, c := range r.collections {
			out = append(out, candidate{ID: c.ID, Name: c.Name, Library: c.LibraryID})
		}
	case k == NamePlaylist:
		if r.playlists == nil {
			body, err := r.d.Get(r.ctx, "playlists", func(ctx context.Context) (*http.Response, error) { return r.d.API.ListPlaylists(ctx) })
			if err != nil {
				return nil, false, err
			}
			var v absdata.Listing[absdata.Playlist]
			if err := kit.Decode(body, &v); err != nil {
				return nil, false, err
			}
			r.playlists = append(append([]absdata.Playlist{}, v.Playlists...), v.Results...)
		}
		for _, p := range r.playlists {
			out = append(out, candidate{ID: p.ID, Name: p.Name, Library: p.LibraryID})
		}
	default:
		return r.search(k, name)
	}
	return out, true, nil
}

// noLibrary is the error of a library's name that names none of the
// kind: the library of another kind it names, or else the user's
// libraries (a short list, read in full).
func (r *resolver) noLibrary(k NameKind, arg, name string) error {
	libs, err := r.libraries()
	if err != nil {
		return err
	}
	var names []string
	for _, l := range libs {
		if Fold(l.Name) == Fold(name) && !k.fits(l.MediaType) {
			return kit.Errorf(kit.Unchanged, "argument %q: %s is a %s library, and a %s is needed here. Give one by its id (list_libraries lists them) or its name.", arg, guard.Quote(l.Name), l.MediaType, k.noun())
		}
		if len(names) == MaxCandidates {
			names = append(names, fmt.Sprintf("… and %d more", len(libs)-MaxCandidates))
			break
		}
		names = append(names, guard.Quote(l.Name))
	}
	there := "this user sees no library"
	if len(names) > 0 {
		there = "the user's libraries are " + strings.Join(names, ", ")
	}
	return kit.Errorf(kit.Unchanged, "argument %q: no %s is named %q; %s. Give its id (list_libraries lists them) or another name.", arg, k.noun(), clip(name, 80), there)
}

// fits: a library of this media type can hold what the kind names.
func (k NameKind) fits(mediaType string) bool {
	switch k {
	case NameBookLibrary, NameSeries, NameAuthor:
		return mediaType == "book"
	case NamePodcastLibrary, NamePodcast:
		return mediaType == "podcast"
	}
	return true
}

// libraries reads the user's libraries, once a call.
func (r *resolver) libraries() ([]absdata.Library, error) {
	if r.libs != nil {
		return r.libs, nil
	}
	libs, err := r.d.ReadLibraries(r.ctx)
	if err != nil {
		return nil, err
	}
	r.libs = append([]absdata.Library{}, libs...)
	return r.libs, nil
}

// onlyLibrary is the id of the user's one library of the kind, for a
// library argument left out.
func (r *resolver) onlyLibrary(a NameArg) (string, error) {
	libs, err := r.libraries()
	if err != nil {
		return "", err
	}
	if a.Kind == NameAnyLibrary { // left out, it stands for books
		a.Kind = NameBookLibrary
	}
	var fit []absdata.Library
	for _, l := range libs {
		if a.Kind.fits(l.MediaType) {
			fit = append(fit, l)
		}
	}
	if len(fit) == 1 {
		return fit[0].ID, nil
	}
	if len(fit) == 0 {
		return "", kit.Errorf(kit.Unchanged, "argument %q: is required: this user has no %s.", a.Param, a.Kind.noun())
	}
	var b strings.Builder
	fmt.Fprintf(&b, "argument %q: is required: this user has %d %s; give one of these ids (or its name):", a.Param, len(fit), a.Kind.plural())
	for i, l := range fit {
		if i == MaxCandidates {
			fmt.Fprintf(&b, " … and %d more (list_libraries)", len(fit)-MaxCandidates)
			break
		}
		fmt.Fprintf(&b, " %q %q (%s)", l.ID, clip(l.Name, 80), l.MediaType)
		if i < len(fit)-1 && i < MaxCandidates-1 {
			b.WriteString(",")
		}
	}
	b.WriteString(".")
	return "", kit.Errorf(kit.Unchanged, "%s", b.String())
}

// searchedLibraries are the libraries a name of the kind is looked for
// in: the call's library when it gave one, else each of the user's that
// can hold what the kind names.
func (r *resolver) searchedLibraries(k NameKind) ([]string, error) {
	if r.libraryID != "" {
		return []string{r.libraryID}, nil
	}
	libs, err := r.libraries()
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, l := range libs {
		if k.fits(l.MediaType) {
			ids = append(ids, l.ID)
		}
	}
	return ids, nil
}

// search asks Audiobookshelf's search of each library that can hold what
// the kind names (the call's library alone when it gave one), all at the
// same time; complete is false when a group the kind is read from came
// back with searchLimit hits (Audiobookshelf cuts each group there).
func (r *resolver) search(k NameKind, name string) ([]candidate, bool, error) {
	ids, err := r.searchedLibraries(k)
	if err != nil {
		return nil, false, err
	}
	found := make([][]candidate, len(ids))
	cut := make([]bool, len(ids))
	errs := make([]error, len(ids))
	var mu sync.Mutex
	kit.EachLimit(len(ids), 4, func(i int) {
		id := ids[i]
		body, err := r.d.Get(r.ctx, "library "+id, func(ctx context.Context) (*http.Response, error) {
			return r.d.API.SearchLibrary(ctx, id, &abs.SearchLibraryParams{Q: name, Limit: kit.Ptr(searchLimit)})
		})
		if err != nil {
			errs[i] = err
			return
		}
		var v absdata.SearchResults
		if err := kit.Decode(body, &v); err != nil {
			errs[i] = err
			return
		}
		var c []candidate
		switch k {
		case NameSeries:
			// A series with no book the user may see is dropped after the
			// cut: fewer than the limit can still be a cut answer, which
			// the listing then settles only when no exact name is here.
			cut[i] = len(v.Series) >= searchLimit
			for _, s := range v.Series {
				c = append(c, candidate{ID: s.Series.ID, Name: s.Series.Name, Library: id})
			}
		case NameAuthor:
			cut[i] = len(v.Authors) >= searchLimit
			for _, au := range v.Authors {
				c = append(c, candidate{ID: au.ID, Name: au.Name, Library: id})
			}
		default:
			hits := v.Podcast
			if k == NameItem {
				hits = append(append([]absdata.SearchHit{}, v.Book...), v.Podcast...)
			}
			cut[i] = len(v.Book) >= searchLimit || len(v.Podcast) >= searchLimit
			for _, h := range hits {
				c = append(c, candidate{ID: h.LibraryItem.ID, Name: h.LibraryItem.Media.Metadata.Title.Value, Library: id})
			}
		}
		mu.Lock()
		found[i] = c
		mu.Unlock()
	})
	var out []candidate
	complete := true
	for i := range ids {
		if errs[i] != nil {
			return nil, false, errs[i]
		}
		out = append(out, found[i]...)
		complete = complete && !cut[i]
	}
	return out, complete, nil
}

package naming

import (
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"

	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/guard"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
)

// Found is what one title or name given in place of an id matched: the
// argument it was given in, the words, the thing's name and id, and
// whether the name is the words exactly (case, accents, spacing and
// punctuation aside) or only holds them.
type Found struct {
	Arg   string // "collection_id", "items[2].library_item_id"
	Kind  NameKind
	Words string // the call's words, trimmed
	Name  string // the name (a title for an item) of what they matched
	ID    string
	Exact bool
}

// Founds are the names of one call that were resolved, in the order of
// its arguments.
type Founds []Found

// Partial is the names that matched only as a part of a name.
func (fs Founds) Partial() Founds {
	var out Founds
	for _, f := range fs {
		if !f.Exact {
			out = append(out, f)
		}
	}
	return out
}

// Sentences say, for a question, what each name matched: for a partial
// match that nothing is named so and what holds the words; for an exact
// match written otherwise (accents, punctuation) the name it stands for;
// nothing for an exact match as written. Names are quoted with
// guard.Quote.
func (fs Founds) Sentences() []string {
	var out []string
	for _, f := range fs {
		switch {
		case !f.Exact:
			out = append(out, fmt.Sprintf("You said %s; no %s is %s that, and the only %s whose %s holds it is %s.",
				guard.Quote(f.Words), f.Kind.noun(), f.Kind.named(), f.Kind.noun(), f.Kind.nameWord(), guard.Quote(f.Name)))
		case !strings.EqualFold(strings.Join(strings.Fields(f.Words), " "), strings.Join(strings.Fields(f.Name), " ")):
			out = append(out, fmt.Sprintf("You said %s: the %s %s so (case, accents and punctuation aside) is %s.",
				guard.Quote(f.Words), f.Kind.noun(), f.Kind.named(), guard.Quote(f.Name)))
		}
	}
	return out
}

// RefusePartial is the error of a write that does not ask in this call
// when a name matched only as a part of a name: such a write acts on no
// guess. Nil when every name matched exactly. Called before anything
// changing is sent.
func (fs Founds) RefusePartial() error {
	return fs.RefuseGuess("This write does not ask before it changes anything, so it does not act on a part of a name")
}

// RefuseGuess is the error of a call that acts on no part of a name
// (why says so, as a sentence without its full stop) when a name matched
// only as a part of one; nil when every name matched exactly. A prompt
// refuses so: its text names what it was given.
func (fs Founds) RefuseGuess(why string) error {
	p := fs.Partial()
	if len(p) == 0 {
		return nil
	}
	var b strings.Builder
	for i, f := range p {
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "argument %q: no %s is %s %s; the only one whose %s holds it is %s (id %q).",
			f.Arg, f.Kind.noun(), f.Kind.named(), guard.Quote(f.Words), f.Kind.nameWord(), guard.Quote(f.Name), f.ID)
	}
	b.WriteString(" " + why + ": call again with the id, or with the exact ")
	b.WriteString(p[0].Kind.nameWord())
	b.WriteString(".")
	return kit.Errorf(kit.Unchanged, "%s", b.String())
}

// named is the verb of a kind's name: a book is titled, a series named.
func (k NameKind) named() string {
	if k == NameItem || k == NamePodcast {
		return "titled"
	}
	return "named"
}

// nameWord is what a kind's name is called.
func (k NameKind) nameWord() string {
	if k == NameItem || k == NamePodcast {
		return "title"
	}
	return "name"
}

// The pages a name's complete listing is read in: a minified item is
// about 1,000 characters, a series carries its books, an author about 300.
const (
	namesItemsPage   = 500
	namesSeriesPage  = 50
	namesAuthorsPage = 500
	// namesMaxPages bounds one walk, rather than loop on a server that
	// never says it is done.
	namesMaxPages = 1000
)

// listed is what one library's complete listing of a group holds.
type listed struct {
	once  sync.Once
	cands []candidate
	err   error
}

// listing reads, complete and page after page, what a kind names in each
// library that can hold it (the call's library alone when it gave one),
// libraries at the same time; each library's listing once a call.
func (r *resolver) listing(k NameKind) ([]candidate, error) {
	ids, err := r.searchedLibraries(k)
	if err != nil {
		return nil, err
	}
	group := "items"
	switch k {
	case NameSeries:
		group = "series"
	case NameAuthor:
		group = "authors"
	}
	r.mu.Lock()
	if r.listed == nil {
		r.listed = map[string]*listed{}
	}
	ls := make([]*listed, len(ids))
	for i, id := range ids {
		key := group + " " + id
		if r.listed[key] == nil {
			r.listed[key] = &listed{}
		}
		ls[i] = r.listed[key]
	}
	r.mu.Unlock()
	kit.EachLimit(len(ids), 4, func(i int) {
		ls[i].once.Do(func() { ls[i].cands, ls[i].err = r.walk(group, ids[i]) })
	})
	var out []candidate
	for _, l := range ls {
		if l.err != nil {
			return nil, l.err
		}
		for _, c := range l.cands {
			if k == NamePodcast && !c.Podcast {
				continue
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// walk reads one library's group (items, series or authors) page after
// page until Audiobookshelf's total.
func (r *resolver) walk(group, libraryID string) ([]candidate, error) {
	per := namesItemsPage
	switch group {
	case "series":
		per = namesSeriesPage
	case "authors":
		per = namesAuthorsPage
	}
	var out []candidate
	seen := 0
	for page := 0; page < namesMaxPages; page++ {
		body, err := r.d.Get(r.ctx, "library "+libraryID, func(ctx context.Context) (*http.Response, error) {
			switch group {
			case "series":
				return r.d.API.ListLibrarySeries(ctx, libraryID, &abs.ListLibrarySeriesParams{Limit: kit.Ptr(per), Page: kit.Ptr(page), Sort: kit.Ptr("name")})
			case "authors":
				return r.d.API.ListLibraryAuthors(ctx, libraryID, &abs.ListLibraryAuthorsParams{Limit: kit.Ptr(per), Page: kit.Ptr(page), Sort: kit.Ptr("name")})
			}
			return r.d.API.ListLibraryItems(ctx, libraryID, &abs.ListLibraryItemsParams{Limit: kit.Ptr(per), Page: kit.Ptr(page),
				Minified: kit.Ptr(abs.ListLibraryItemsParamsMinifiedN1), Sort: kit.Ptr("media.metadata.title")})
		})
		if err != nil {
			return nil, err
		}
		var n int
		var total *int
		switch group {
		case "items":
			var v absdata.Listing[absdata.Item]
			if err := kit.Decode(body, &v); err != nil {
				return nil, err
			}
			rows, t := v.Rows()
			for _, it := range rows {
				out = append(out, candidate{ID: it.ID, Name: it.Media.Metadata.Title.Value, Library: libraryID, Podcast: it.MediaType == "podcast"})
			}
			n, total = len(rows), t
		case "series":
			var v absdata.Listing[absdata.Series]
			if err := kit.Decode(body, &v); err != nil {
				return nil, err
			}
			rows, t := v.Rows()
			for _, s := range rows {
				out = append(out, candidate{ID: s.ID, Name: s.Name, Library: libraryID})
			}
			n, total = len(rows), t
		default:
			var v absdata.Listing[absdata.Ref]
			if err := kit.Decode(body, &v); err != nil {
				return nil, err
			}
			rows, t := v.Rows()
			for _, a := range rows {
				out = append(out, candidate{ID: a.ID, Name: a.Name, Library: libraryID})
			}
			n, total = len(rows), t
		}
		seen += n
		if total == nil || n == 0 || seen >= *total {
			return out, nil
		}
	}
	return nil, kit.Errorf(kit.Unchanged, "library %q: Audiobookshelf was still sending pages of its %s after %d pages of %d; give an id instead of a name.", libraryID, group, namesMaxPages, per)
}

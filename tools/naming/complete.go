package naming

import (
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"

	"context"
	"net/http"
	"sort"
	"strings"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
)

// MaxCompletions is the most values one completion answers (MCP's limit
// for completion/complete).
const MaxCompletions = 100

// Completion is what completes an argument: at most MaxCompletions values,
// and how many there are in all (MCP's total; hasMore when Total is more
// than the values).
type Completion struct {
	Values []string
	Total  int
}

// HasMore: more values complete the argument than the answer holds.
func (c Completion) HasMore() bool { return c.Total > len(c.Values) }

// CompleteNames completes a name of the kind (tools.yaml's `names:`):
// the names that start with prefix, then those with a word that starts
// with it, each group by name, compared as Resolve compares them
// (case, accents, spacing and punctuation aside). It reads what
// Resolve reads for the kind: the libraries, collections or
// playlists whole; for an item, a podcast, a series or an author
// Audiobookshelf's search of each library that can hold it (libraryID
// alone when given), and the complete listing where the search cannot
// settle it (a group cut at its limit, or no name that starts so). With
// no prefix: a series' or an author's first page by name of each library
// (with Audiobookshelf's total), an item's or a podcast's the items in
// progress, most recent first. Each name once; none for a value that
// looks like an id.
func CompleteNames(ctx context.Context, d *kit.Deps, k NameKind, prefix, libraryID string) (Completion, error) {
	cands, total, err := completions(ctx, d, k, prefix, libraryID)
	if err != nil {
		return Completion{}, err
	}
	seen := map[string]bool{}
	var names []string
	for _, c := range cands {
		if c.Name != "" && !seen[c.Name] {
			seen[c.Name] = true
			names = append(names, c.Name)
		}
	}
	return clipCompletion(names, max(total-(len(cands)-len(names)), len(names))), nil
}

// CompleteIDs completes an id by what it stands for: the ids of the
// things of the kind CompleteNames would name, in its order; a value
// that looks like an id is its own completion, with no request.
func CompleteIDs(ctx context.Context, d *kit.Deps, k NameKind, prefix, libraryID string) (Completion, error) {
	cands, total, err := completions(ctx, d, k, prefix, libraryID)
	if err != nil {
		return Completion{}, err
	}
	ids := make([]string, 0, len(cands))
	for _, c := range cands {
		ids = append(ids, c.ID)
	}
	return clipCompletion(ids, total), nil
}

// CompleteValues completes one of values (tools.yaml's `enum:`) by its
// prefix; with list true the argument is a list separated by commas, and
// its last entry is completed, the ones before kept.
func CompleteValues(values []string, prefix string, list bool) Completion {
	done, last := "", prefix
	if i := strings.LastIndex(last, ","); list && i >= 0 {
		done, last = last[:i+1], last[i+1:]
	}
	last = strings.ToLower(strings.TrimSpace(last))
	var out []string
	for _, v := range values {
		if strings.HasPrefix(strings.ToLower(v), last) {
			out = append(out, done+v)
		}
	}
	return clipCompletion(out, len(out))
}

func clipCompletion(values []string, total int) Completion {
	if values == nil {
		values = []string{}
	}
	total = max(total, len(values))
	if len(values) > MaxCompletions {
		values = values[:MaxCompletions]
	}
	return Completion{Values: values, Total: total}
}

// completions are the candidates that complete prefix, in their order,
// and how many there are (more than the candidates when only a first
// page was read).
func completions(ctx context.Context, d *kit.Deps, k NameKind, prefix, libraryID string) ([]candidate, int, error) {
	r := &resolver{d: d, ctx: ctx, libraryID: libraryID}
	p := strings.TrimSpace(prefix)
	if len(p) > maxName {
		return nil, 0, nil
	}
	if LooksLikeID(p) {
		// An id already: it completes itself as an id (no search, and no
		// listing walked for words no name starts with), and no name.
		return []candidate{{ID: p}}, 1, nil
	}
	if k.searched() && p == "" {
		if k == NameItem || k == NamePodcast {
			return r.inProgress(k)
		}
		return r.firstPages(k)
	}
	cands, complete, err := r.candidates(k, p)
	if err != nil {
		return nil, 0, err
	}
	match := prefixed(cands, p)
	if k.searched() && (!complete || len(match) == 0) {
		// As Resolve: a search cut at its limit may leave names out,
		// one with no name that starts so may have missed one written
		// otherwise (accents, punctuation): the complete listing decides.
		if cands, err = r.listing(k); err != nil {
			return nil, 0, err
		}
		match = prefixed(cands, p)
	}
	return match, len(match), nil
}

// prefixed is the candidates whose folded name starts with the folded
// prefix, then those with a word (a later word onwards) that does, each
// group sorted by name; each id once.
func prefixed(cands []candidate, prefix string) []candidate {
	q := Fold(prefix)
	if strings.TrimSpace(prefix) == "" {
		q = ""
	}
	var first, then []candidate
	seen := map[string]bool{}
	for _, c := range cands {
		if seen[c.ID] {
			continue
		}
		seen[c.ID] = true
		words := strings.Fields(lowerWords(c.Name))
		switch {
		case strings.HasPrefix(Fold(c.Name), q):
			first = append(first, c)
		default:
			for i := 1; i < len(words); i++ {
				if strings.HasPrefix(Fold(strings.Join(words[i:], " ")), q) {
					then = append(then, c)
					break
				}
			}
		}
	}
	byName := func(l []candidate) {
		sort.SliceStable(l, func(i, j int) bool { return lowerWords(l[i].Name) < lowerWords(l[j].Name) })
	}
	byName(first)
	byName(then)
	return append(first, then...)
}

// inProgress is the items (or podcasts) the user is in the middle of,
// most recent first.
func (r *resolver) inProgress(k NameKind) ([]candidate, int, error) {
	body, _, _, err := r.d.ItemsInProgress(r.ctx, MaxCompletions)
	if err != nil {
		return nil, 0, err
	}
	var v struct {
		LibraryItems []absdata.Item `json:"libraryItems"`
	}
	if err := kit.Decode(body, &v); err != nil {
		return nil, 0, err
	}
	var out []candidate
	for _, it := range v.LibraryItems {
		if k == NamePodcast && it.MediaType != "podcast" {
			continue
		}
		if r.libraryID != "" && it.LibraryID != r.libraryID {
			continue
		}
		out = append(out, candidate{ID: it.ID, Name: it.Media.Metadata.Title.Value, Library: it.LibraryID, Podcast: it.MediaType == "podcast"})
	}
	return out, len(out), nil
}

// firstPages is the first MaxCompletions series or authors by name of
// each library that can hold them, and how many there are in all
// (Audiobookshelf's totals).
func (r *resolver) firstPages(k NameKind) ([]candidate, int, error) {
	ids, err := r.searchedLibraries(k)
	if err != nil {
		return nil, 0, err
	}
	var out []candidate
	total := 0
	for _, id := range ids {
		body, err := r.d.Get(r.ctx, "library "+id, func(ctx context.Context) (*http.Response, error) {
			if k == NameAuthor {
				return r.d.API.ListLibraryAuthors(ctx, id, &abs.ListLibraryAuthorsParams{Limit: kit.Ptr(MaxCompletions), Page: kit.Ptr(0), Sort: kit.Ptr("name")})
			}
			return r.d.API.ListLibrarySeries(ctx, id, &abs.ListLibrarySeriesParams{Limit: kit.Ptr(MaxCompletions), Page: kit.Ptr(0), Sort: kit.Ptr("name")})
		})
		if err != nil {
			return nil, 0, err
		}
		var v absdata.Listing[absdata.Ref]
		if err := kit.Decode(body, &v); err != nil {
			return nil, 0, err
		}
		rows, t := v.Rows()
		for _, x := range rows {
			out = append(out, candidate{ID: x.ID, Name: x.Name, Library: id})
		}
		if t != nil {
			total += *t
		} else {
			total += len(rows)
		}
	}
	out = prefixed(out, "")
	return out, max(total, len(out)), nil
}

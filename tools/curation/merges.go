package curation

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/naming"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// authorRead is what merge_authors reads of one author and binds the
// approval to.
type authorRead struct {
	ID             string   `json:"id"`
	UpdatedAt      int64    `json:"updatedAt"`
	HasDescription bool     `json:"hasDescription"`
	HasASIN        bool     `json:"hasAsin"`
	HasImage       bool     `json:"hasImage"`
	Books          []string `json:"books"`
}

// PlanMergeAuthors plans merge_authors: PATCH /api/authors/:id with the
// other author's exact name, which Audiobookshelf (AuthorController.update)
// takes as a merge: author_id's books get into_author_id instead, and
// author_id's record is destroyed with its description, ASIN and image.
func PlanMergeAuthors(ctx context.Context, d *kit.Deps, a toolargs.MergeAuthors) (*kit.Plan, error) {
	if a.AuthorID == a.IntoAuthorID {
		return nil, kit.Errorf(kit.NotSent, `arguments "author_id" and "into_author_id": they are the same author; give the author to merge away and another one to keep.`)
	}
	libs := d.SeenLibraries(ctx)
	from, into, err := readBoth(ctx, d, readAuthor, "author_id", a.AuthorID, "into_author_id", a.IntoAuthorID)
	if err != nil {
		libs.Abandon()
		return nil, err
	}
	if err := inSight(libs.Wait(), "author", "author_id", from.ID, from.LibraryID, "into_author_id", into.ID, into.LibraryID); err != nil {
		return nil, err
	}
	if from.LibraryID != into.LibraryID {
		return nil, kit.Errorf(kit.Unchanged, `argument "into_author_id": author %q is of library %q and author %q of library %q; Audiobookshelf merges authors of one library only (list_authors gives a library's authors).`,
			into.ID, into.LibraryID, from.ID, from.LibraryID)
	}
	if from.Name == into.Name {
		return nil, kit.Errorf(kit.Unchanged, `argument "into_author_id": authors %q and %q have exactly the same name, and Audiobookshelf merges two authors only when one is renamed to the other's name; rename one of them in Audiobookshelf first.`, from.ID, into.ID)
	}
	fromRead, intoRead := readOfAuthor(from), readOfAuthor(into)
	inInto := map[string]bool{}
	for _, id := range intoRead.Books {
		inInto[id] = true
	}
	var both []string
	for _, id := range fromRead.Books {
		if inInto[id] {
			both = append(both, id)
		}
	}
	keep, err := authorKeep(a.Keep, from)
	if err != nil {
		return nil, err
	}
	titles := naming.ItemTitles(from.LibraryItems)
	for id, t := range naming.ItemTitles(into.LibraryItems) {
		titles[id] = t
	}
	fromName, intoName := naming.Named("author", from.Name, from.ID), naming.NamedID(into.Name, into.ID)
	// To keep author_id's image the record Audiobookshelf keeps must be
	// author_id's: the merge is sent the other way round, and the record
	// kept then takes into_author_id's name and the fields not kept.
	reverse := keep["image"]
	kept, removed := into, from
	removedRead := fromRead
	if reverse {
		kept, removed = from, into
		removedRead = intoRead
	}
	// after is what the record kept holds once the merge is done: the
	// name is into_author_id's unless kept, each other field the
	// chosen record's.
	pick := func(field, fromV, intoV string) string {
		if keep[field] {
			return fromV
		}
		return intoV
	}
	after := authorFields{Name: pick("name", from.Name, into.Name), Description: pick("description", from.Description, into.Description), ASIN: pick("asin", from.ASIN, into.ASIN)}
	fix := after.diff(kept)
	plan := &kit.Plan{
		Targets: []string{from.ID, into.ID},
		Action: fmt.Sprintf("This will merge %s into %s: its %d book(s) (%s) get author %s instead, and Audiobookshelf removes %s.",
			fromName, intoName, len(fromRead.Books), titledList(fromRead.Books, titles), intoName, fromName),
		Consequences: []string{
			fmt.Sprintf("%d of those books (%s) hold both authors already: they keep one.", len(both), titledList(both, titles)),
		},
		Read: struct {
			From authorRead `json:"from"`
			Into authorRead `json:"into"`
		}{fromRead, intoRead},
	}
	if reverse {
		plan.Consequences = append(plan.Consequences, fmt.Sprintf(
			"To keep the image of %s (Audiobookshelf keeps an image only on the record it keeps), the record kept is %s's, id %q: the %d book(s) of %s (%s) are given it, and the record removed is %s's, id %q. Its name becomes %s.",
			fromName, kit.Quote(from.Name), from.ID, len(intoRead.Books), intoName, titledList(intoRead.Books, titles), kit.Quote(into.Name), into.ID, kit.Quote(after.Name)))
	}
	if len(keep) > 0 {
		plan.Consequences = append(plan.Consequences, fmt.Sprintf("Carried over from %s onto the author kept: %s.", fromName, strings.Join(keepList(keep, []string{"name", "description", "asin", "image"}), ", ")))
	}
	// A field of the record removed goes unless it is the one carried
	// onto the record kept.
	goneDesc := removedRead.HasDescription && reverse == keep["description"]
	goneASIN := removedRead.HasASIN && reverse == keep["asin"]
	plan.Consequences = append(plan.Consequences,
		fmt.Sprintf("The removed record, %s, goes with what is not carried over: a biography: %s; an ASIN: %s; an image: %s. The author kept keeps the rest of its own.",
			naming.Named("author", removed.Name, removed.ID), yesNo(goneDesc), yesNo(goneASIN), yesNo(removedRead.HasImage)))
	if removedRead.HasImage {
		plan.Consequences = append(plan.Consequences, "The removed record's image file stays in Audiobookshelf's metadata folder, unused: Audiobookshelf does not delete it in a merge, and nothing here does.")
	}
	plan.Consequences = append(plan.Consequences, "Counted over the books this user sees; Audiobookshelf moves every book of the author.")
	plan.Execute = func(ctx context.Context) (*mcp.CallToolResult, error) {
		name := kept.Name
		body, err := d.Mutate(ctx, "the author merge", func(ctx context.Context) (*http.Response, error) {
			return d.API.UpdateAuthor(ctx, removed.ID, abs.AuthorUpdate{Name: &name})
		})
		if err != nil {
			return nil, err
		}
		var ans struct {
			Author struct {
				ID string `json:"id"`
			} `json:"author"`
			Merged bool `json:"merged"`
		}
		if err := json.Unmarshal(body, &ans); err != nil {
			return nil, kit.Errorf(kit.Made, "the author merge was sent and Audiobookshelf said it was done, but its answer could not be read (%v); get_author shows author %q and author %q.", err, removed.ID, kept.ID)
		}
		if !ans.Merged || ans.Author.ID != kept.ID {
			return nil, kit.Errorf(kit.Made, "Audiobookshelf did not merge: it renamed author %q to the name author %q had when it was read (author %q was renamed in between). Author %q still exists under the new name; get_author shows both.",
				removed.ID, kept.ID, kept.ID, removed.ID)
		}
		out := map[string]any{
			"merged":             true,
			"kept_author_id":     kept.ID,
			"removed_author_id":  removed.ID,
			"books_moved":        len(removedRead.Books),
			"books_holding_both": len(both),
			"gone": map[string]any{
				"author_record": removed.ID,
				"description":   goneDesc,
				"asin":          goneASIN,
				"image":         removedRead.HasImage,
			},
			"not_put_back": "The person approved a merge: the removed author's record cannot be made again from here.",
		}
		shown, cut := capIDs(removedRead.Books)
		out["library_item_ids"] = shown
		if cut != "" {
			out["ids_cut"] = cut
		}
		if removedRead.HasImage {
			out["image_file_left"] = "The removed record's image file stays in Audiobookshelf's metadata folder, unused."
		}
		if len(keep) > 0 {
			out["kept_from_author_id"] = keepList(keep, []string{"name", "description", "asin", "image"})
		}
		if len(fix) > 0 {
			raw, _ := json.Marshal(fix)
			if _, err := d.Mutate(ctx, "the fields of the author kept", func(ctx context.Context) (*http.Response, error) {
				return d.API.UpdateAuthorWithBody(ctx, kept.ID, "application/json", bytes.NewReader(raw))
			}); err != nil {
				return nil, kit.Errorf(kit.Made, "the authors were merged (author %q kept, %q removed), but its fields were not set: %v. update_author with author_id %q and these arguments sets them: %s.",
					kept.ID, removed.ID, err, kept.ID, putBackJSON(fix.args()))
			}
			out["fields_set"] = fix.args()
		}
		return result.JSONResult(out)
	}
	return plan, nil
}

// authorFields are the texts of an author record a merge settles.
type authorFields struct{ Name, Description, ASIN string }

// authorFix is the body of the PATCH that gives the record kept the
// fields chosen (an empty text as null, as Audiobookshelf holds one never
// set).
type authorFix map[string]any

func (f authorFields) diff(au *absdata.Author) authorFix {
	out := authorFix{}
	if f.Name != au.Name {
		out["name"] = f.Name
	}
	for _, t := range []struct{ key, want, has string }{{"description", f.Description, au.Description}, {"asin", f.ASIN, au.ASIN}} {
		if t.want != t.has {
			if t.want == "" {
				out[t.key] = nil
			} else {
				out[t.key] = t.want
			}
		}
	}
	return out
}

// args is the fix as update_author's arguments.
func (f authorFix) args() map[string]any {
	out := map[string]any{}
	for k, v := range f {
		if v == nil {
			v = ""
		}
		out[k] = v
	}
	return out
}

// authorKeep checks merge_authors' keep against what the author merged
// away holds: a field it does not hold cannot be carried over.
func authorKeep(keep []string, from *absdata.Author) (map[string]bool, error) {
	out := map[string]bool{}
	for _, k := range keep {
		has := map[string]bool{"name": true, "description": from.Description != "", "asin": from.ASIN != "", "image": from.ImagePath != ""}[k]
		if !has {
			return nil, kit.Errorf(kit.Unchanged, `argument "keep": author %s has no %s to carry over.`, naming.NamedID(from.Name, from.ID), k)
		}
		out[k] = true
	}
	return out, nil
}

// keepList is the fields of keep in the order of all.
func keepList(keep map[string]bool, all []string) []string {
	var out []string
	for _, k := range all {
		if keep[k] {
			out = append(out, k)
		}
	}
	return out
}

// checkKeep refuses a field keep does not know, or one given twice.
func checkKeep(keep []string, allowed ...string) error {
	seen := map[string]bool{}
	for _, k := range keep {
		if !slices.Contains(allowed, k) {
			return kit.Errorf(kit.NotSent, `argument "keep": %q is not a field that can be carried over; allowed: %s.`, k, strings.Join(allowed, ", "))
		}
		if seen[k] {
			return kit.Errorf(kit.NotSent, `argument "keep": %q is given twice.`, k)
		}
		seen[k] = true
	}
	return nil
}

// CheckMergeAuthors refuses a keep that names no field of an author.
func CheckMergeAuthors(a toolargs.MergeAuthors) error {
	return checkKeep(a.Keep, "name", "description", "asin", "image")
}

// CheckMergeSeries refuses a keep that names no field of a series.
func CheckMergeSeries(a toolargs.MergeSeries) error {
	return checkKeep(a.Keep, "name", "description")
}

// inSight refuses a merge of records (what: "author", "series") of a
// library the user does not see, as if the record were not there:
// Audiobookshelf reads and changes an author by id whatever its library
// (AuthorController.middleware checks no library), and its merge would
// then act where the person cannot look. Nothing of the record is told.
func inSight(libs kit.Seen, what, fromArg, fromID, fromLib, intoArg, intoID, intoLib string) error {
	if err := libs.Check(fromArg, what, fromID, fromLib); err != nil {
		return err
	}
	return libs.Check(intoArg, what, intoID, intoLib)
}

// readBoth reads the record merged away and the one kept at the same
// time, with read; an error of either is the answer.
func readBoth[T any](ctx context.Context, d *kit.Deps, read func(context.Context, *kit.Deps, string, string) (*T, error), fromArg, fromID, intoArg, intoID string) (from, into *T, err error) {
	type result struct {
		v   *T
		err error
	}
	pending := kit.Alongside(ctx, func(ctx context.Context) result {
		v, err := read(ctx, d, intoArg, intoID)
		return result{v, err}
	})
	if from, err = read(ctx, d, fromArg, fromID); err != nil {
		pending.Abandon()
		return nil, nil, err
	}
	got := pending.Wait()
	if got.err != nil {
		return nil, nil, got.err
	}
	return from, got.v, nil
}

// readAuthor reads an author with the books this user sees
// (include=items); a 404 names the argument.
func readAuthor(ctx context.Context, d *kit.Deps, arg, id string) (*absdata.Author, error) {
	body, err := d.Get(ctx, fmt.Sprintf("argument %q (author %q)", arg, id), func(ctx context.Context) (*http.Response, error) {
		return d.API.GetAuthor(ctx, id, &abs.GetAuthorParams{Include: kit.Ptr("items")})
	})
	if err != nil {
		return nil, err
	}
	var au absdata.Author
	if err := kit.Decode(body, &au); err != nil {
		return nil, err
	}
	return &au, nil
}

// titledList lists books for a question by title and id; "none" when
// there are none.
func titledList(ids []string, titles map[string]string) string {
	if len(ids) == 0 {
		return "none"
	}
	return naming.ListTitled(naming.Titles(ids, titles))
}

func readOfAuthor(au *absdata.Author) authorRead {
	r := authorRead{ID: au.ID, UpdatedAt: au.UpdatedAt, HasDescription: au.Description != "", HasASIN: au.ASIN != "", HasImage: au.ImagePath != "", Books: []string{}}
	for _, it := range au.LibraryItems {
		r.Books = append(r.Books, it.ID)
	}
	return r
}

// seriesHeld is one series of a book with the book's sequence in it.
type seriesHeld struct {
	ID       string  `json:"id"`
	Sequence *string `json:"sequence"`
	name     string
}

// bookRead is what merge_series reads of one book and binds the approval
// to.
type bookRead struct {
	ID        string       `json:"id"`
	UpdatedAt int64        `json:"updatedAt"`
	Series    []seriesHeld `json:"series"`
}

// PlanMergeSeries plans merge_series. Audiobookshelf has no merge of
// series: each book of series_id is given into_series_id in its place, at
// the same sequence and with its other series kept, in one
// POST /api/items/batch/update; Audiobookshelf then removes the series
// left without a book (checkRemoveEmptySeries).
func PlanMergeSeries(ctx context.Context, d *kit.Deps, a toolargs.MergeSeries) (*kit.Plan, error) {
	if a.SeriesID == a.IntoSeriesID {
		return nil, kit.Errorf(kit.NotSent, `arguments "series_id" and "into_series_id": they are the same series; give the series to merge away and another one to keep.`)
	}
	libs := d.SeenLibraries(ctx)
	from, into, err := readBoth(ctx, d, readOneSeries, "series_id", a.SeriesID, "into_series_id", a.IntoSeriesID)
	if err != nil {
		libs.Abandon()
		return nil, err
	}
	if err := inSight(libs.Wait(), "series", "series_id", from.ID, from.LibraryID, "into_series_id", into.ID, into.LibraryID); err != nil {
		return nil, err
	}
	if from.LibraryID != into.LibraryID {
		return nil, kit.Errorf(kit.Unchanged, `argument "into_series_id": series %q is of library %q and series %q of library %q; a book can only be in series of its own library (list_series gives a library's series).`,
			into.ID, into.LibraryID, from.ID, from.LibraryID)
	}
	if strings.EqualFold(from.Name, into.Name) {
		return nil, kit.Errorf(kit.Unchanged, `argument "into_series_id": the names of series %q and %q differ only in case, and Audiobookshelf's batch update finds a book's series by name ignoring case, so it cannot move books between them; rename one of them in Audiobookshelf first.`, from.ID, into.ID)
	}
	fromDesc := ""
	if !from.Description.Null() {
		fromDesc = from.Description.String()
	}
	var fix abs.SeriesUpdate
	for _, k := range a.Keep {
		switch {
		case k == "name":
			fix.Name = kit.Ptr(from.Name)
		case fromDesc == "":
			return nil, kit.Errorf(kit.Unchanged, `argument "keep": series %s has no description to carry over.`, naming.NamedID(from.Name, from.ID))
		default:
			fix.Description = kit.Ptr(fromDesc)
		}
	}
	listed, err := walkItems(ctx, d, from.LibraryID, kit.Filter("series", from.ID), false)
	if err != nil {
		return nil, err
	}
	listedIDs := make([]string, len(listed))
	for i := range listed {
		listedIDs[i] = listed[i].ID
	}
	items, err := readBooks(ctx, d, listedIDs, false, "")
	if err != nil {
		return nil, err
	}
	books := make([]bookRead, len(items))
	for i := range items {
		it := &items[i]
		b := bookRead{ID: it.ID, UpdatedAt: it.UpdatedAt, Series: []seriesHeld{}}
		for _, s := range it.Media.Metadata.Series {
			e := seriesHeld{ID: s.ID, name: s.Name}
			if s.Sequence.Valid {
				e.Sequence = kit.Ptr(s.Sequence.Value)
			}
			b.Series = append(b.Series, e)
		}
		books[i] = b
	}
	var moved, inBoth, toEnd []string
	var updates []abs.BatchMediaUpdate
	// A book on which series_id comes before other series: Audiobookshelf
	// keeps a book's series in the order they were added, so
	// into_series_id, added now, would come after them. To keep the order
	// those later series are taken off in the batch update and put back
	// after into_series_id in a second one; that is safe only where
	// another book keeps each of them in between (Audiobookshelf removes
	// a series left without a book at the end of a batch update).
	var reorders []seriesReorder
	for _, b := range books {
		hasFrom, hasInto := false, false
		for _, s := range b.Series {
			hasFrom = hasFrom || s.ID == from.ID
			hasInto = hasInto || s.ID == into.ID
		}
		if !hasFrom {
			continue // out of the series since it was listed: left alone
		}
		list := []seriesEntry{}
		var r *seriesReorder
		for i, s := range b.Series {
			switch {
			case s.ID == from.ID && hasInto:
				// in both: the place in into_series_id stays
			case s.ID == from.ID:
				list = append(list, seriesEntry{Name: into.Name, Sequence: s.Sequence})
				if i != len(b.Series)-1 {
					r = &seriesReorder{book: b.ID, first: slices.Clone(list)}
				}
			default:
				list = append(list, seriesEntry{Name: s.name, Sequence: s.Sequence})
				if r != nil {
					r.later = append(r.later, s.ID)
				}
			}
		}
		moved = append(moved, b.ID)
		if hasInto {
			inBoth = append(inBoth, b.ID)
		}
		if r != nil {
			r.full = list
			reorders = append(reorders, *r)
		}
		updates = append(updates, abs.BatchMediaUpdate{Id: b.ID, MediaPayload: abs.MediaUpdate{Metadata: &abs.MediaMetadataUpdate{Series: &list}}})
	}
	// How many books each later series has (this user's), against how
	// many of the books merged would take it off for a moment.
	dropping := map[string]int{}
	var laterIDs []string
	for _, r := range reorders {
		for _, id := range r.later {
			if dropping[id] == 0 {
				laterIDs = append(laterIDs, id)
			}
			dropping[id]++
		}
	}
	unsafe := map[string]bool{}
	for _, id := range laterIDs {
		_, total, err := d.ReadFilteredBooks(ctx, "the books of series "+id, from.LibraryID, "series", id, "", 1)
		if err != nil {
			return nil, err
		}
		if total <= dropping[id] {
			unsafe[id] = true
		}
	}
	var second []abs.BatchMediaUpdate
	for _, r := range reorders {
		if slices.ContainsFunc(r.later, func(id string) bool { return unsafe[id] }) {
			toEnd = append(toEnd, r.book)
			continue
		}
		for i := range updates {
			if updates[i].Id == r.book {
				first := r.first
				updates[i].MediaPayload.Metadata.Series = &first
			}
		}
		full := r.full
		second = append(second, abs.BatchMediaUpdate{Id: r.book, MediaPayload: abs.MediaUpdate{Metadata: &abs.MediaMetadataUpdate{Series: &full}}})
	}
	titles := naming.ItemTitles(items)
	fromName, intoName := naming.Named("series", from.Name, from.ID), naming.NamedID(into.Name, into.ID)
	plan := &kit.Plan{
		Targets: []string{from.ID, into.ID},
		Action: fmt.Sprintf("This will merge %s into %s: its %d book(s) (%s) are put in series %s at the same sequence, and Audiobookshelf removes %s once no book is left in it.",
			fromName, intoName, len(moved), titledList(moved, titles), intoName, fromName),
		Consequences: []string{
			fmt.Sprintf("%d of those books (%s) are in series %s already: they keep their place there and lose their sequence in %s.", len(inBoth), titledList(inBoth, titles), intoName, fromName),
			fmt.Sprintf("The removed series' record, %s, goes with its summary: %s. Series %s keeps its own name and summary, but for what keep carries over.", fromName, yesNo(fromDesc != "" && fix.Description == nil), intoName),
		},
		Read: struct {
			From  int64      `json:"from"`
			Into  int64      `json:"into"`
			Books []bookRead `json:"books"`
		}{from.UpdatedAt, into.UpdatedAt, books},
	}
	if len(second) > 0 {
		plan.Consequences = append(plan.Consequences, fmt.Sprintf(
			"On %d of them (%s) %s comes before other series: to keep each book's series in their order, those are taken off and put back after series %s in a second batch update (another book keeps each of them in between).",
			len(second), titledList(payloadIDs(second), titles), fromName, intoName))
	}
	if len(toEnd) > 0 {
		plan.Consequences = append(plan.Consequences, fmt.Sprintf(
			"On %d of them (%s) %s is not the book's last series, and a series after it has no other book to keep it while it is taken off and put back: Audiobookshelf keeps a book's series in the order they were added, so series %s comes after the book's other series.",
			len(toEnd), titledList(toEnd, titles), fromName, intoName))
	}
	if len(a.Keep) > 0 {
		plan.Consequences = append(plan.Consequences, fmt.Sprintf("Carried over from %s onto series %s once the books are moved: %s.", fromName, intoName, strings.Join(a.Keep, ", ")))
	}
	plan.Consequences = append(plan.Consequences, "Counted over the books this user sees; a book of the series this user cannot see stays in it, and then the series is not removed.")
	plan.Execute = func(ctx context.Context) (*mcp.CallToolResult, error) {
		if len(updates) == 0 {
			return result.JSONResult(map[string]any{"merged": false, "books_moved": 0,
				"note": fmt.Sprintf("No book this user sees is in series %s any more; nothing was sent.", from.ID)})
		}
		changed, err := sendBatchUpdate(ctx, d, "the batch update of the series' books", updates)
		if err != nil {
			return nil, err
		}
		if len(second) > 0 {
			if _, err := sendBatchUpdate(ctx, d, "the batch update that puts the books' later series back", second); err != nil {
				var lost []string
				for _, u := range second {
					var names []string
					for _, e := range (*u.MediaPayload.Metadata.Series)[len(firstOf(reorders, u.Id)):] {
						names = append(names, kit.Quote(e.Name)+" at "+kit.Quote(derefOr(e.Sequence, "no sequence")))
					}
					lost = append(lost, fmt.Sprintf("book %q: %s", u.Id, strings.Join(names, ", ")))
				}
				return nil, kit.Errorf(kit.Made, "the books were moved to series %q, but the series that came after %q on them were not put back: %v. They are off these books now (batch_update_books with field series, mode add puts each back): %s.",
					into.ID, from.ID, err, strings.Join(lost, "; "))
			}
		}
		shown, cut := capIDs(moved)
		out := map[string]any{
			"merged":            true,
			"kept_series_id":    into.ID,
			"removed_series_id": from.ID,
			"books_moved":       len(moved),
			"library_item_ids":  shown,
			"books_in_both":     len(inBoth),
			"order_kept_on":     len(second),
			"items_updated":     changed,
			"gone": map[string]any{
				"series_record":              from.ID,
				"description":                fromDesc != "" && fix.Description == nil,
				"sequences_of_books_in_both": len(inBoth),
			},
			"not_put_back": "The person approved a merge: the removed series' record cannot be made again from here.",
		}
		if cut != "" {
			out["ids_cut"] = cut
		}
		if fix.Name != nil || fix.Description != nil {
			if _, err := d.Mutate(ctx, "the fields of the series kept", func(ctx context.Context) (*http.Response, error) {
				return d.API.UpdateSeries(ctx, into.ID, fix)
			}); err != nil {
				args := map[string]any{"series_id": into.ID}
				if fix.Name != nil {
					args["name"] = *fix.Name
				}
				if fix.Description != nil {
					args["description"] = *fix.Description
				}
				return nil, kit.Errorf(kit.Made, "the books were moved to series %q, but its fields were not set: %v. update_series with these arguments sets them: %s.", into.ID, err, putBackJSON(args))
			}
			out["kept_from_series_id"] = a.Keep
		}
		if changed != len(moved) {
			out["note"] = fmt.Sprintf("Audiobookshelf changed %d of the %d books sent; get_series shows where they are now.", changed, len(moved))
		}
		return result.JSONResult(out)
	}
	return plan, nil
}

// seriesReorder is a book on which merge_series keeps the order of the
// series: first is its list in the first batch update (up to
// into_series_id), full in the second, later the series put back.
type seriesReorder struct {
	book        string
	first, full []seriesEntry
	later       []string
}

// firstOf is what the first batch update gives book id among rs.
func firstOf(rs []seriesReorder, id string) []seriesEntry {
	for _, r := range rs {
		if r.book == id {
			return r.first
		}
	}
	return nil
}

func derefOr(p *string, or string) string {
	if p == nil {
		return or
	}
	return *p
}

// readOneSeries reads a series (GET /api/series/:id); a 404 (no such
// series, or none of its books visible to the user) names the argument.
func readOneSeries(ctx context.Context, d *kit.Deps, arg, id string) (*absdata.Series, error) {
	return kit.GetAs[absdata.Series](ctx, d, fmt.Sprintf("argument %q (series %q; Audiobookshelf also answers 404 for a series none of whose books this user sees)", arg, id), func(ctx context.Context) (*http.Response, error) {
		return d.API.GetSeries(ctx, id, nil)
	})
}

// capIDs is ids cut to shownIDs, and what was cut.
func capIDs(ids []string) ([]string, string) {
	if ids == nil {
		ids = []string{}
	}
	if len(ids) <= shownIDs {
		return ids, ""
	}
	return ids[:shownIDs], fmt.Sprintf("the first %d of %d library item ids", shownIDs, len(ids))
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

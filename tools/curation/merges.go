package curation

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
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
	titles := naming.ItemTitles(from.LibraryItems)
	fromName, intoName := naming.Named("author", from.Name, from.ID), naming.NamedID(into.Name, into.ID)
	plan := &kit.Plan{
		Targets: []string{from.ID, into.ID},
		Action: fmt.Sprintf("This will merge %s into %s: its %d book(s) (%s) get author %s instead, and Audiobookshelf removes %s.",
			fromName, intoName, len(fromRead.Books), titledList(fromRead.Books, titles), intoName, fromName),
		Consequences: []string{
			fmt.Sprintf("%d of those books (%s) hold both authors already: they keep one.", len(both), titledList(both, titles)),
			fmt.Sprintf("The removed author's record, %s, goes with what only it holds: a biography: %s; an ASIN: %s; an image: %s. Author %s keeps its own name, biography, ASIN and image.",
				fromName, yesNo(fromRead.HasDescription), yesNo(fromRead.HasASIN), yesNo(fromRead.HasImage), intoName),
			"Counted over the books this user sees; Audiobookshelf moves every book of the author.",
		},
		Read: struct {
			From authorRead `json:"from"`
			Into authorRead `json:"into"`
		}{fromRead, intoRead},
	}
	plan.Execute = func(ctx context.Context) (*mcp.CallToolResult, error) {
		name := into.Name
		body, err := d.Mutate(ctx, "the author merge", func(ctx context.Context) (*http.Response, error) {
			return d.API.UpdateAuthor(ctx, from.ID, abs.AuthorUpdate{Name: &name})
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
		_ = json.Unmarshal(body, &ans)
		if !ans.Merged || ans.Author.ID != into.ID {
			return nil, kit.Errorf(kit.Made, "Audiobookshelf did not merge: it renamed author %q to the name author %q had when it was read (author %q was renamed in between). Author %q still exists under the new name; get_author shows both.",
				from.ID, into.ID, into.ID, from.ID)
		}
		shown, cut := capIDs(fromRead.Books)
		out := map[string]any{
			"merged":             true,
			"kept_author_id":     into.ID,
			"removed_author_id":  from.ID,
			"books_moved":        len(fromRead.Books),
			"library_item_ids":   shown,
			"books_holding_both": len(both),
			"gone": map[string]any{
				"author_record": from.ID,
				"description":   fromRead.HasDescription,
				"asin":          fromRead.HasASIN,
				"image":         fromRead.HasImage,
			},
			"not_put_back": "The person approved a merge: the removed author's record cannot be made again from here.",
		}
		if cut != "" {
			out["ids_cut"] = cut
		}
		return result.JSONResult(out)
	}
	return plan, nil
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
		for i, s := range b.Series {
			switch {
			case s.ID == from.ID && hasInto:
				// in both: the place in into_series_id stays
			case s.ID == from.ID:
				list = append(list, seriesEntry{Name: into.Name, Sequence: s.Sequence})
				if i != len(b.Series)-1 {
					toEnd = append(toEnd, b.ID)
				}
			default:
				list = append(list, seriesEntry{Name: s.name, Sequence: s.Sequence})
			}
		}
		moved = append(moved, b.ID)
		if hasInto {
			inBoth = append(inBoth, b.ID)
		}
		updates = append(updates, abs.BatchMediaUpdate{Id: b.ID, MediaPayload: abs.MediaUpdate{Metadata: &abs.MediaMetadataUpdate{Series: &list}}})
	}
	titles := naming.ItemTitles(items)
	fromName, intoName := naming.Named("series", from.Name, from.ID), naming.NamedID(into.Name, into.ID)
	plan := &kit.Plan{
		Targets: []string{from.ID, into.ID},
		Action: fmt.Sprintf("This will merge %s into %s: its %d book(s) (%s) are put in series %s at the same sequence, and Audiobookshelf removes %s once no book is left in it.",
			fromName, intoName, len(moved), titledList(moved, titles), intoName, fromName),
		Consequences: []string{
			fmt.Sprintf("%d of those books (%s) are in series %s already: they keep their place there and lose their sequence in %s.", len(inBoth), titledList(inBoth, titles), intoName, fromName),
			fmt.Sprintf("The removed series' record, %s, goes with its summary: %s. Series %s keeps its own name and summary.", fromName, yesNo(!from.Description.Null() && from.Description.String() != ""), intoName),
		},
		Read: struct {
			From  int64      `json:"from"`
			Into  int64      `json:"into"`
			Books []bookRead `json:"books"`
		}{from.UpdatedAt, into.UpdatedAt, books},
	}
	if len(toEnd) > 0 {
		plan.Consequences = append(plan.Consequences, fmt.Sprintf(
			"On %d of them (%s) %s is not the book's last series: Audiobookshelf keeps a book's series in the order they were added, so series %s comes after the book's other series.",
			len(toEnd), titledList(toEnd, titles), fromName, intoName))
	}
	plan.Consequences = append(plan.Consequences, "Counted over the books this user sees; a book of the series this user cannot see stays in it, and then the series is not removed.")
	plan.Execute = func(ctx context.Context) (*mcp.CallToolResult, error) {
		if len(updates) == 0 {
			return result.JSONResult(map[string]any{"merged": false, "books_moved": 0,
				"note": fmt.Sprintf("No book this user sees is in series %s any more; nothing was sent.", from.ID)})
		}
		body, err := sendBatchUpdate(ctx, d, "the batch update of the series' books", updates)
		if err != nil {
			return nil, err
		}
		var ans struct {
			Updates int `json:"updates"`
		}
		_ = json.Unmarshal(body, &ans)
		shown, cut := capIDs(moved)
		out := map[string]any{
			"merged":            true,
			"kept_series_id":    into.ID,
			"removed_series_id": from.ID,
			"books_moved":       len(moved),
			"library_item_ids":  shown,
			"books_in_both":     len(inBoth),
			"items_updated":     ans.Updates,
			"gone": map[string]any{
				"series_record":              from.ID,
				"description":                !from.Description.Null() && from.Description.String() != "",
				"sequences_of_books_in_both": len(inBoth),
			},
			"not_put_back": "The person approved a merge: the removed series' record cannot be made again from here.",
		}
		if cut != "" {
			out["ids_cut"] = cut
		}
		if ans.Updates != len(moved) {
			out["note"] = fmt.Sprintf("Audiobookshelf changed %d of the %d books sent; get_series shows where they are now.", ans.Updates, len(moved))
		}
		return result.JSONResult(out)
	}
	return plan, nil
}

// readOneSeries reads a series (GET /api/series/:id); a 404 (no such
// series, or none of its books visible to the user) names the argument.
func readOneSeries(ctx context.Context, d *kit.Deps, arg, id string) (*absdata.Series, error) {
	body, err := d.Get(ctx, fmt.Sprintf("argument %q (series %q; Audiobookshelf also answers 404 for a series none of whose books this user sees)", arg, id), func(ctx context.Context) (*http.Response, error) {
		return d.API.GetSeries(ctx, id, nil)
	})
	if err != nil {
		return nil, err
	}
	var se absdata.Series
	if err := kit.Decode(body, &se); err != nil {
		return nil, err
	}
	return &se, nil
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

package upkeep

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/argdec"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/naming"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// metadataBody is the PATCH body for the fields given.
func metadataBody(f *argdec.MetadataFields) abs.UpdateLibraryItemMediaJSONRequestBody {
	var body abs.UpdateLibraryItemMediaJSONRequestBody
	m := &abs.MediaMetadataUpdate{Title: f.Title, Subtitle: f.Subtitle, Description: f.Description, PublishedYear: f.PublishYear,
		Narrators: f.Narrators, Genres: f.Genres, Publisher: f.Publisher, Language: f.Language, Isbn: f.ISBN, Asin: f.ASIN,
		Explicit: f.Explicit, Abridged: f.Abridged}
	if f.Authors != nil {
		authors := make([]struct {
			Name string `json:"name"`
		}, 0, len(*f.Authors))
		for _, a := range *f.Authors {
			authors = append(authors, struct {
				Name string `json:"name"`
			}{a})
		}
		m.Authors = &authors
	}
	if f.Series != nil {
		series := make([]struct {
			Name     string  `json:"name"`
			Sequence *string `json:"sequence,omitempty"`
		}, 0, len(*f.Series))
		for _, s := range *f.Series {
			e := struct {
				Name     string  `json:"name"`
				Sequence *string `json:"sequence,omitempty"`
			}{Name: s.Name}
			if s.Sequence != "" {
				e.Sequence = kit.Ptr(s.Sequence)
			}
			series = append(series, e)
		}
		m.Series = &series
	}
	body.Metadata = m
	// Book.updateFromRequest reads tags at the top level, not in metadata.
	body.Tags = f.Tags
	return body
}

// givenFields are the names of the fields f sets, in the tool's order,
// and their values as the call gave them.
func givenFields(f *argdec.MetadataFields) ([]string, map[string]any, error) {
	raw, err := json.Marshal(f)
	if err != nil {
		return nil, nil, kit.Errorf(kit.Unchanged, "internal error: the fields given could not be read back: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, nil, kit.Errorf(kit.Unchanged, "internal error: the fields given could not be read back: %v", err)
	}
	var out []string
	for _, k := range editableFields {
		if _, ok := m[k]; ok {
			out = append(out, k)
		}
	}
	return out, m, nil
}

// EffectDeletesAuthorOrSeries is update_item_metadata's effect that makes
// it ask (tools.yaml): the change takes an author or a series off the last
// book that carries it, and Audiobookshelf then deletes the record
// (ApiRouter.checkRemoveEmptySeries, checkRemoveAuthorsWithNoBooks). The
// name put back makes a new record with a new id.
const EffectDeletesAuthorOrSeries = "deletes_author_or_series"

// EffectReordersAuthorsOrSeries is update_item_metadata's other effect
// that makes it ask (tools.yaml): the change takes an author or a series
// off the book that is listed before one that stays. Audiobookshelf keeps
// a book's authors and series in the order their rows were added
// (LibraryItem's include order: bookAuthor and bookSeries createdAt), so
// the put-back appends it after those that stayed and the old order could
// not be given back.
const EffectReordersAuthorsOrSeries = "reorders_authors_or_series"

// EffectReplacesUnrestorableValues is update_item_metadata's effect that
// makes it ask (tools.yaml) when the put-back could not carry a value the
// change replaces: a text holding a control character the tool's arguments
// refuse (a CR, as in a CRLF line end a desc.txt written on Windows gives
// after a scan), one longer than the tool takes, or a null title.
const EffectReplacesUnrestorableValues = "replaces_unrestorable_values"

// unrestorable names the fields of prev whose old value the put-back
// would be refused for, and counts the control characters among them that
// the tool's arguments refuse.
func unrestorable(id string, prev map[string]any, fields []string) (names []string, controls int) {
	for _, k := range fields {
		if pb, _ := putBackArgs(id, map[string]any{k: prev[k]}); pb != nil {
			continue
		}
		names = append(names, k)
		switch v := prev[k].(type) {
		case string:
			controls += argdec.RefusedControls(v)
		case []string:
			for _, s := range v {
				controls += argdec.RefusedControls(s)
			}
		case []argdec.SeriesEntry:
			for _, s := range v {
				controls += argdec.RefusedControls(s.Name) + argdec.RefusedControls(s.Sequence)
			}
		}
	}
	return names, controls
}

// outOfPlace are the ids of removed that order lists before an id that
// stays: put back, each would be appended after it.
func outOfPlace(order, removed []string) []string {
	gone := map[string]bool{}
	for _, id := range removed {
		gone[id] = true
	}
	last := -1 // the last id that stays
	for i, id := range order {
		if !gone[id] {
			last = i
		}
	}
	var out []string
	for i := 0; i < last; i++ {
		if gone[order[i]] {
			out = append(out, order[i])
		}
	}
	return out
}

// takenOff are the ids of the book's authors and series that the fields
// take off it, as Audiobookshelf decides (Book.updateAuthorsFromRequest:
// names trimmed, empty ones dropped, compared without case;
// Book.updateSeriesFromRequest: names compared without case).
func takenOff(b *absdata.Item, f *argdec.MetadataFields) (authors, series []string) {
	m := &b.Media.Metadata
	if f.Authors != nil {
		keep := map[string]bool{}
		for _, n := range *f.Authors {
			if n = strings.TrimSpace(n); n != "" {
				keep[strings.ToLower(n)] = true
			}
		}
		for _, a := range m.Authors {
			if !keep[strings.ToLower(a.Name)] {
				authors = append(authors, a.ID)
			}
		}
	}
	if f.Series != nil {
		keep := map[string]bool{}
		for _, e := range *f.Series {
			keep[strings.ToLower(e.Name)] = true
		}
		for _, se := range m.Series {
			if !keep[strings.ToLower(se.Name)] {
				series = append(series, se.ID)
			}
		}
	}
	return authors, series
}

// recordReads bounds the reads deletedRecords has in flight at once.
const recordReads = 4

// deletedRecords are the authors and series taken off book b that
// Audiobookshelf would delete with the change: a series with no other book
// always, an author with no other book when its asin, description and
// imagePath are all empty. Each one's books are counted with the library's
// item listing filtered to it (limit 1: its total); an author that has no
// other book is then read for those three fields. Audiobookshelf counts
// only the books the user may see, so a book hidden from the user makes
// this ask where it need not, never the other way round.
func deletedRecords(ctx context.Context, d *kit.Deps, b *absdata.Item, authors, series []string) (delAuthors, delSeries []string, err error) {
	type probe struct {
		group, id string
	}
	var probes []probe
	for _, id := range authors {
		probes = append(probes, probe{"authors", id})
	}
	for _, id := range series {
		probes = append(probes, probe{"series", id})
	}
	books := make([]int, len(probes))
	failed := make([]error, len(probes))
	kit.EachLimit(len(probes), recordReads, func(i int) {
		pr := probes[i]
		filter := kit.Filter(pr.group, pr.id)
		body, err := d.Get(ctx, "the books of "+strings.TrimSuffix(pr.group, "s")+" "+kit.ShowID(pr.id), func(ctx context.Context) (*http.Response, error) {
			return d.API.ListLibraryItems(ctx, b.LibraryID, &abs.ListLibraryItemsParams{Limit: kit.Ptr(1), Page: kit.Ptr(0), Filter: &filter})
		})
		if err != nil {
			failed[i] = err
			return
		}
		var v struct {
			Total *int `json:"total"`
		}
		if err := kit.Decode(body, &v); err != nil {
			failed[i] = err
			return
		}
		if v.Total == nil {
			failed[i] = kit.Errorf(kit.Unchanged, "Audiobookshelf's item listing for %s %s carried no total, so whether the change deletes it cannot be told.", strings.TrimSuffix(pr.group, "s"), kit.ShowID(pr.id))
			return
		}
		books[i] = *v.Total
	})
	for _, f := range failed {
		if f != nil {
			return nil, nil, f
		}
	}
	var lone []string
	for i, pr := range probes {
		if books[i] > 1 {
			continue // another book keeps it
		}
		if pr.group == "series" {
			delSeries = append(delSeries, pr.id)
		} else {
			lone = append(lone, pr.id)
		}
	}
	kept := make([]bool, len(lone))
	failed = make([]error, len(lone))
	kit.EachLimit(len(lone), recordReads, func(i int) {
		body, err := d.Get(ctx, "author "+kit.ShowID(lone[i]), func(ctx context.Context) (*http.Response, error) {
			return d.API.GetAuthor(ctx, lone[i], nil)
		})
		if err != nil {
			failed[i] = err
			return
		}
		var a absdata.Author
		if err := kit.Decode(body, &a); err != nil {
			failed[i] = err
			return
		}
		kept[i] = a.ASIN != "" || a.Description != "" || a.ImagePath != ""
	})
	for i := range lone {
		if failed[i] != nil {
			return nil, nil, failed[i]
		}
		if !kept[i] {
			delAuthors = append(delAuthors, lone[i])
		}
	}
	return delAuthors, delSeries, nil
}

// metadataRead is what an approval of update_item_metadata is bound to:
// the book's updatedAt (Audiobookshelf moves it on every change of the
// book), the authors and series the change would delete, and those it
// would take off before others that stay.
type metadataRead struct {
	ID           string   `json:"id"`
	UpdatedAt    int64    `json:"updatedAt"`
	Authors      []string `json:"authors"`
	Series       []string `json:"series"`
	MovedAuthors []string `json:"movedAuthors,omitempty"`
	MovedSeries  []string `json:"movedSeries,omitempty"`
	Unrestorable []string `json:"unrestorable,omitempty"`
}

// authorsAndSeries names author and series ids with their counts, for a
// question: "2 authors (a, b) and 1 series (c)".
func authorsAndSeries(authors, series []string, names map[string]string) string {
	var parts []string
	if len(authors) > 0 {
		parts = append(parts, countOf(len(authors), "author", "authors")+" ("+naming.ListTitled(naming.Titles(authors, names))+")")
	}
	if len(series) > 0 {
		parts = append(parts, countOf(len(series), "series", "series")+" ("+naming.ListTitled(naming.Titles(series, names))+")")
	}
	return strings.Join(parts, " and ")
}

func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// PlanUpdateItemMetadata plans update_item_metadata. The answer carries
// the previous values and the call that puts them back; a change that
// takes an author or a series off the last book that keeps it asks first,
// because Audiobookshelf deletes that record and the name put back is a
// new one.
func PlanUpdateItemMetadata(ctx context.Context, d *kit.Deps, a toolargs.UpdateItemMetadata) (*kit.Plan, error) {
	b, err := getBook(ctx, d, a.LibraryItemID, "update_item_metadata")
	if err != nil {
		return nil, err
	}
	plan := &kit.Plan{Targets: []string{a.LibraryItemID}}
	given, want, err := givenFields(a.Fields)
	if err != nil {
		return nil, err
	}
	prev := map[string]any{}
	for _, k := range given {
		// "" is how a text is cleared; Audiobookshelf holds it as null.
		if !sameValue(valueOf(b, k), want[k]) && !(want[k] == "" && valueOf(b, k) == nil) {
			prev[k] = valueOf(b, k)
		}
	}
	if len(prev) == 0 {
		plan.Execute = func(context.Context) (*mcp.CallToolResult, error) {
			return result.JSONResult(map[string]any{"updated": false, "library_item_id": a.LibraryItemID,
				"note": "Every field given already holds that value; nothing was sent."})
		}
		return plan, nil
	}
	changing := make([]string, 0, len(prev))
	for _, k := range given {
		if _, ok := prev[k]; ok {
			changing = append(changing, k)
		}
	}
	pb, why := putBackArgs(a.LibraryItemID, prev)
	// The answer must carry the previous values whole: refuse before
	// changing anything when it could not.
	probe := map[string]any{"previous": prev, "put_back": pb}
	if pj, _ := result.Marshal(probe); len([]rune(string(pj)))+2000 > result.Room(d) {
		return nil, kit.Errorf(kit.Unchanged, `argument "fields": the values these fields hold now take %d characters, and the answer must carry them whole (with the call that puts them back) within the result budget of %d (AUDIOBOOKSHELF_MAX_RESULT_CHARS). Change fewer fields at a time, or raise the budget.`, len([]rune(string(pj))), result.MaxChars(d))
	}
	offAuthors, offSeries := takenOff(b, a.Fields)
	delAuthors, delSeries, err := deletedRecords(ctx, d, b, offAuthors, offSeries)
	if err != nil {
		return nil, err
	}
	var authorOrder, seriesOrder []string
	for _, au := range b.Media.Metadata.Authors {
		authorOrder = append(authorOrder, au.ID)
	}
	for _, se := range b.Media.Metadata.Series {
		seriesOrder = append(seriesOrder, se.ID)
	}
	movedAuthors, movedSeries := outOfPlace(authorOrder, offAuthors), outOfPlace(seriesOrder, offSeries)
	// The names the question gives the book, its fields, and the authors
	// and series it takes off, from the book as read.
	names := map[string]string{}
	for _, au := range b.Media.Metadata.Authors {
		names[au.ID] = au.Name
	}
	for _, se := range b.Media.Metadata.Series {
		names[se.ID] = se.Name
	}
	fields := fmt.Sprintf("%s (%s) of %s", countOf(len(changing), "field", "fields"), strings.Join(changing, ", "), naming.Named("book", b.Media.Metadata.Title.Value, a.LibraryItemID))
	lostFields, controls := unrestorable(a.LibraryItemID, prev, changing)
	if len(delAuthors) > 0 || len(delSeries) > 0 || len(movedAuthors) > 0 || len(movedSeries) > 0 || len(lostFields) > 0 {
		plan.Read = metadataRead{ID: b.ID, UpdatedAt: b.UpdatedAt, Authors: delAuthors, Series: delSeries, MovedAuthors: movedAuthors, MovedSeries: movedSeries, Unrestorable: lostFields}
	}
	if len(lostFields) > 0 {
		plan.Effects = append(plan.Effects, EffectReplacesUnrestorableValues)
		why := "a value longer than the tool takes, or a null title"
		if controls > 0 {
			why = fmt.Sprintf("%d control character(s) among them (a CR, as in a CRLF line end, or VT, FF, NUL, ESC, DEL or a C1 control) that the tool's arguments refuse", controls)
		}
		plan.Action = fmt.Sprintf("This will change %s.", fields)
		plan.Consequences = append(plan.Consequences, fmt.Sprintf("What %s hold%s now could not be given back with update_item_metadata: the put-back would be refused (%s).",
			strings.Join(lostFields, ", "), map[bool]string{true: "s", false: ""}[len(lostFields) == 1], why))
	}
	if len(movedAuthors) > 0 || len(movedSeries) > 0 {
		plan.Effects = append(plan.Effects, EffectReordersAuthorsOrSeries)
		for _, id := range append(append([]string{}, movedAuthors...), movedSeries...) {
			if !slices.Contains(plan.Targets, id) {
				plan.Targets = append(plan.Targets, id)
			}
		}
		one := len(movedAuthors)+len(movedSeries) == 1
		moved := fmt.Sprintf("It takes off %s listed before others that stay: put back with update_item_metadata, %s would be appended after them, so the book's order of authors and series could not be given back.",
			authorsAndSeries(movedAuthors, movedSeries, names), map[bool]string{true: "it", false: "they"}[one])
		if len(delAuthors) == 0 && len(delSeries) == 0 {
			plan.Action = fmt.Sprintf("This will change %s. %s", fields, moved)
		} else {
			plan.Consequences = append(plan.Consequences, moved)
		}
	}
	if len(delAuthors) > 0 || len(delSeries) > 0 {
		plan.Effects = append(plan.Effects, EffectDeletesAuthorOrSeries)
		plan.Targets = append(append(plan.Targets, delAuthors...), delSeries...)
		one := len(delAuthors)+len(delSeries) == 1
		plan.Action = fmt.Sprintf("This will change %s and so delete %s: the book is %s last book, and Audiobookshelf deletes an author or series left with no book.",
			fields, authorsAndSeries(delAuthors, delSeries, names), map[bool]string{true: "its", false: "their"}[one])
		plan.Consequences = append([]string{"Putting the names back with update_item_metadata makes new records with new ids: what Audiobookshelf held on the deleted ones (a series' description and any RSS feed opened for it) cannot be given back from here."}, plan.Consequences...)
		if kept := len(offAuthors) + len(offSeries) - len(delAuthors) - len(delSeries); kept > 0 {
			plan.Consequences = append(plan.Consequences, fmt.Sprintf("%s taken off the book %s: another book keeps %s, or (an author) its own details do.",
				countOf(kept, "more author or series", "more authors or series"), map[bool]string{true: "stays", false: "stay"}[kept == 1], map[bool]string{true: "it", false: "them"}[kept == 1]))
		}
	}
	body := metadataBody(a.Fields)
	plan.Execute = func(ctx context.Context) (*mcp.CallToolResult, error) {
		rb, err := changeItem(ctx, d, a.LibraryItemID, func(ctx context.Context) (*http.Response, error) {
			return d.API.UpdateLibraryItemMedia(ctx, a.LibraryItemID, body)
		})
		if err != nil {
			return nil, err
		}
		var v struct {
			Updated     bool         `json:"updated"`
			LibraryItem absdata.Item `json:"libraryItem"`
		}
		if err := kit.Decode(rb, &v); err != nil {
			return nil, err
		}
		out := map[string]any{"updated": v.Updated, "library_item_id": a.LibraryItemID, "changed": changing,
			"previous": prev, "now": nowValues(&v.LibraryItem, changing, a.LibraryItemID)}
		var notes []string
		if !v.Updated {
			// Audiobookshelf leaves updated out of a change that changed
			// nothing: the book held these values when it came (another
			// call set them first). A success, not a strange answer.
			notes = append(notes, "Audiobookshelf changed nothing: the book already held these values when the change arrived (another call may have set them first).")
		}
		for _, k := range changing {
			if !sameValue(valueOf(&v.LibraryItem, k), want[k]) && !(want[k] == "" && valueOf(&v.LibraryItem, k) == nil) {
				notes = append(notes, fmt.Sprintf("Audiobookshelf stored %s differently from what was sent (it sanitizes description HTML; see now).", k))
			}
		}
		if len(movedAuthors) > 0 || len(movedSeries) > 0 {
			notes = append(notes, "The put-back gives back the authors and series this change took off, appended after those that stayed: their old order cannot be given back from here.")
		}
		if len(delAuthors) > 0 || len(delSeries) > 0 {
			out["deleted"] = map[string]any{"author_ids": listOf(delAuthors), "series_ids": listOf(delSeries)}
			notes = append(notes, "Audiobookshelf deleted the authors and series in deleted, which no other book kept; the put-back gives the names back as new records with new ids, not those records.")
		}
		if pb != nil {
			out["put_back"] = pb
		} else {
			notes = append(notes, "No call can put every previous value back: "+why+".")
		}
		if len(notes) > 0 {
			out["notes"] = notes
		}
		return result.JSONResult(out)
	}
	return plan, nil
}

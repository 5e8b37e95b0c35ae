package tools

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/argdec"
)

// bookRecord is what update_item_metadata and match_library_item read of a
// book (LibraryItem.toOldJSON): null kept apart from "".
type bookRecord struct {
	ID        string `json:"id"`
	LibraryID string `json:"libraryId"`
	MediaType string `json:"mediaType"`
	UpdatedAt int64  `json:"updatedAt"`
	Media     struct {
		CoverPath *string  `json:"coverPath"`
		Tags      []string `json:"tags"`
		Metadata  struct {
			Title    *string `json:"title"`
			Subtitle *string `json:"subtitle"`
			Authors  []struct {
				ID   string `json:"id"`
				Name string `json:"name"`
			} `json:"authors"`
			Narrators []string `json:"narrators"`
			Series    []struct {
				ID       string      `json:"id"`
				Name     string      `json:"name"`
				Sequence *flexString `json:"sequence"`
			} `json:"series"`
			Genres        []string    `json:"genres"`
			PublishedYear *flexString `json:"publishedYear"`
			Description   *string     `json:"description"`
			Publisher     *string     `json:"publisher"`
			Language      *string     `json:"language"`
			ISBN          *string     `json:"isbn"`
			ASIN          *string     `json:"asin"`
			Explicit      bool        `json:"explicit"`
			Abridged      bool        `json:"abridged"`
		} `json:"metadata"`
	} `json:"media"`
}

// editable are the fields update_item_metadata sets, by its names; match
// fields are the others quick match sets.
var (
	editableFields  = argdec.MetadataFieldNames
	matchOnlyFields = []string{"cover"}
)

func strOrNil(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

func listOf(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

// value is a field's value as the tool names it: a string or null, a list
// of names, a list of {name, sequence}, or a boolean.
func (b *bookRecord) value(field string) any {
	m := &b.Media.Metadata
	switch field {
	case "title":
		return strOrNil(m.Title)
	case "subtitle":
		return strOrNil(m.Subtitle)
	case "description":
		return strOrNil(m.Description)
	case "publish_year":
		if m.PublishedYear == nil {
			return nil
		}
		return string(*m.PublishedYear)
	case "authors":
		out := []string{}
		for _, a := range m.Authors {
			out = append(out, a.Name)
		}
		return out
	case "narrators":
		return listOf(m.Narrators)
	case "genres":
		return listOf(m.Genres)
	case "tags":
		return listOf(b.Media.Tags)
	case "series":
		out := []argdec.SeriesEntry{}
		for _, s := range m.Series {
			e := argdec.SeriesEntry{Name: s.Name}
			if s.Sequence != nil {
				e.Sequence = string(*s.Sequence)
			}
			out = append(out, e)
		}
		return out
	case "publisher":
		return strOrNil(m.Publisher)
	case "language":
		return strOrNil(m.Language)
	case "isbn":
		return strOrNil(m.ISBN)
	case "asin":
		return strOrNil(m.ASIN)
	case "explicit":
		return m.Explicit
	case "abridged":
		return m.Abridged
	case "cover":
		return strOrNil(b.Media.CoverPath)
	}
	return nil
}

// filled reports whether a field holds a value (quick match fills only
// fields that do not, unless told to override).
func (b *bookRecord) filled(field string) bool {
	switch v := b.value(field).(type) {
	case nil:
		return false
	case string:
		return v != ""
	case bool:
		return v
	case []string:
		return len(v) > 0
	case []argdec.SeriesEntry:
		return len(v) > 0
	}
	return false
}

func sameValue(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

func (d *Deps) getBook(ctx context.Context, id, tool string) (*bookRecord, *mcp.CallToolResult) {
	body, res := d.get(ctx, "library item "+id, func(ctx context.Context) (*http.Response, error) {
		return d.API.GetLibraryItem(ctx, id, nil)
	})
	if res != nil {
		return nil, res
	}
	var b bookRecord
	if res := decode(body, &b); res != nil {
		return nil, res
	}
	if b.MediaType != "book" {
		return nil, errorResult(`argument "library_item_id": %s is a %s; %s works on books only. Nothing was changed.`, id, b.MediaType, tool)
	}
	return &b, nil
}

// changeItem sends a write to one item; a 403 names the permission.
func (d *Deps) changeItem(ctx context.Context, id string, s sender) ([]byte, *mcp.CallToolResult) {
	r, res := d.send(ctx, true, s)
	if res != nil {
		return nil, res
	}
	if r.Status == http.StatusForbidden {
		return nil, errorResult("Audiobookshelf answered 403 Forbidden for library item %s: changing an item needs the update permission (Settings → Users → the user → Can Update), which the user of this API key lacks. Nothing was changed.", id)
	}
	if r.Status/100 != 2 {
		return nil, statusError(r, "library item "+id, true)
	}
	if res := d.checkWrite(r, "library item "+id); res != nil {
		return nil, res
	}
	return r.Body, nil
}

// putBackArgs turns previous values into update_item_metadata's fields:
// null texts become "" (Audiobookshelf stores "" as null). ok is false
// when the result would not be accepted by update_item_metadata (a value
// longer than it takes, a null title).
func putBackArgs(id string, prev map[string]any) (*PutBack, string) {
	fields := map[string]any{}
	for k, v := range prev {
		if v == nil {
			if k == "title" {
				return nil, "the title was null, and a title cannot be set to nothing"
			}
			v = ""
		}
		fields[k] = v
	}
	args := map[string]any{"library_item_id": id, "fields": fields}
	raw, _ := json.Marshal(args)
	if _, err := toolargs.DecodeUpdateItemMetadata(raw); err != nil {
		return nil, clip(err.Error(), 300)
	}
	return &PutBack{Tool: "update_item_metadata", Arguments: args}, ""
}

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
				e.Sequence = ptrOf(s.Sequence)
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

// givenFields are the names of the fields f sets, in the tool's order.
func givenFields(f *argdec.MetadataFields) []string {
	var out []string
	raw, _ := json.Marshal(f)
	var m map[string]json.RawMessage
	_ = json.Unmarshal(raw, &m)
	for _, k := range editableFields {
		if _, ok := m[k]; ok {
			out = append(out, k)
		}
	}
	return out
}

// descriptionShown is how much of a new description an answer repeats.
const descriptionShown = 300

// nowValues are the values after a change, for an answer: a description is
// shown by its start and length (the caller sent it, or the provider did).
func nowValues(b *bookRecord, fields []string, id string) map[string]any {
	now := map[string]any{}
	for _, k := range fields {
		v := b.value(k)
		if s, ok := v.(string); ok && k == "description" {
			shown, total, cut := excerpt(s, descriptionShown, fmt.Sprintf(`get_library_item {"library_item_id": %q}`, id))
			if cut != "" {
				now[k] = map[string]any{"start": shown, "length": total}
				continue
			}
		}
		now[k] = v
	}
	return now
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
func takenOff(b *bookRecord, f *argdec.MetadataFields) (authors, series []string) {
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
func (d *Deps) deletedRecords(ctx context.Context, b *bookRecord, authors, series []string) (delAuthors, delSeries []string, res *mcp.CallToolResult) {
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
	failed := make([]*mcp.CallToolResult, len(probes))
	eachLimit(len(probes), recordReads, func(i int) {
		pr := probes[i]
		filter := pr.group + "." + base64.StdEncoding.EncodeToString([]byte(pr.id))
		body, res := d.get(ctx, "the books of "+strings.TrimSuffix(pr.group, "s")+" "+pr.id, func(ctx context.Context) (*http.Response, error) {
			return d.API.ListLibraryItems(ctx, b.LibraryID, &abs.ListLibraryItemsParams{Limit: ptrOf(1), Page: ptrOf(0), Filter: &filter})
		})
		if res != nil {
			failed[i] = res
			return
		}
		var v struct {
			Total *int `json:"total"`
		}
		if res := decode(body, &v); res != nil {
			failed[i] = res
			return
		}
		if v.Total == nil {
			failed[i] = errorResult("Audiobookshelf's item listing for %s %s carried no total, so whether the change deletes it cannot be told. Nothing was changed.", strings.TrimSuffix(pr.group, "s"), pr.id)
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
	failed = make([]*mcp.CallToolResult, len(lone))
	eachLimit(len(lone), recordReads, func(i int) {
		body, res := d.get(ctx, "author "+lone[i], func(ctx context.Context) (*http.Response, error) {
			return d.API.GetAuthor(ctx, lone[i], nil)
		})
		if res != nil {
			failed[i] = res
			return
		}
		var a struct {
			ASIN        *string `json:"asin"`
			Description *string `json:"description"`
			ImagePath   *string `json:"imagePath"`
		}
		if res := decode(body, &a); res != nil {
			failed[i] = res
			return
		}
		filled := func(s *string) bool { return s != nil && *s != "" }
		kept[i] = filled(a.ASIN) || filled(a.Description) || filled(a.ImagePath)
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
}

// authorsAndSeries names author and series ids with their counts, for a
// question: "2 authors (a, b) and 1 series (c)".
func authorsAndSeries(authors, series []string) string {
	var parts []string
	if len(authors) > 0 {
		parts = append(parts, countOf(len(authors), "author", "authors")+" ("+listIDs(authors)+")")
	}
	if len(series) > 0 {
		parts = append(parts, countOf(len(series), "series", "series")+" ("+listIDs(series)+")")
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
func PlanUpdateItemMetadata(ctx context.Context, d *Deps, a toolargs.UpdateItemMetadata) (*Plan, *mcp.CallToolResult) {
	b, res := d.getBook(ctx, a.LibraryItemID, "update_item_metadata")
	if res != nil {
		return nil, res
	}
	plan := &Plan{Targets: []string{a.LibraryItemID}}
	given := givenFields(a.Fields)
	raw, _ := json.Marshal(a.Fields)
	var want map[string]any
	_ = json.Unmarshal(raw, &want)
	prev := map[string]any{}
	for _, k := range given {
		// "" is how a text is cleared; Audiobookshelf holds it as null.
		if !sameValue(b.value(k), want[k]) && !(want[k] == "" && b.value(k) == nil) {
			prev[k] = b.value(k)
		}
	}
	if len(prev) == 0 {
		plan.Execute = func(context.Context) (*mcp.CallToolResult, error) {
			return jsonResult(map[string]any{"updated": false, "library_item_id": a.LibraryItemID,
				"note": "Every field given already holds that value; nothing was sent."}), nil
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
	if pj, _ := marshal(probe); len([]rune(string(pj)))+2000 > d.room() {
		return nil, errorResult(`argument "fields": the values these fields hold now take %d characters, and the answer must carry them whole (with the call that puts them back) within the result budget of %d (AUDIOBOOKSHELF_MAX_RESULT_CHARS). Change fewer fields at a time, or raise the budget. Nothing was changed.`, len([]rune(string(pj))), d.MaxChars())
	}
	offAuthors, offSeries := takenOff(b, a.Fields)
	delAuthors, delSeries, res := d.deletedRecords(ctx, b, offAuthors, offSeries)
	if res != nil {
		return nil, res
	}
	var authorOrder, seriesOrder []string
	for _, au := range b.Media.Metadata.Authors {
		authorOrder = append(authorOrder, au.ID)
	}
	for _, se := range b.Media.Metadata.Series {
		seriesOrder = append(seriesOrder, se.ID)
	}
	movedAuthors, movedSeries := outOfPlace(authorOrder, offAuthors), outOfPlace(seriesOrder, offSeries)
	if len(delAuthors) > 0 || len(delSeries) > 0 || len(movedAuthors) > 0 || len(movedSeries) > 0 {
		plan.Read = metadataRead{ID: b.ID, UpdatedAt: b.UpdatedAt, Authors: delAuthors, Series: delSeries, MovedAuthors: movedAuthors, MovedSeries: movedSeries}
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
			authorsAndSeries(movedAuthors, movedSeries), map[bool]string{true: "it", false: "they"}[one])
		if len(delAuthors) == 0 && len(delSeries) == 0 {
			plan.Action = fmt.Sprintf("This will change %s of book %s. %s", countOf(len(changing), "field", "fields"), a.LibraryItemID, moved)
		} else {
			plan.Consequences = append(plan.Consequences, moved)
		}
	}
	if len(delAuthors) > 0 || len(delSeries) > 0 {
		plan.Effects = append(plan.Effects, EffectDeletesAuthorOrSeries)
		plan.Targets = append(append(plan.Targets, delAuthors...), delSeries...)
		one := len(delAuthors)+len(delSeries) == 1
		plan.Action = fmt.Sprintf("This will change %s of book %s and so delete %s: the book is %s last book, and Audiobookshelf deletes an author or series left with no book.",
			countOf(len(changing), "field", "fields"), a.LibraryItemID, authorsAndSeries(delAuthors, delSeries), map[bool]string{true: "its", false: "their"}[one])
		plan.Consequences = append([]string{"Putting the names back with update_item_metadata makes new records with new ids: what Audiobookshelf held on the deleted ones (a series' description and any RSS feed opened for it) cannot be given back from here."}, plan.Consequences...)
		if kept := len(offAuthors) + len(offSeries) - len(delAuthors) - len(delSeries); kept > 0 {
			plan.Consequences = append(plan.Consequences, fmt.Sprintf("%s taken off the book %s: another book keeps %s, or (an author) its own details do.",
				countOf(kept, "more author or series", "more authors or series"), map[bool]string{true: "stays", false: "stay"}[kept == 1], map[bool]string{true: "it", false: "them"}[kept == 1]))
		}
	}
	body := metadataBody(a.Fields)
	plan.Execute = func(ctx context.Context) (*mcp.CallToolResult, error) {
		rb, res := d.changeItem(ctx, a.LibraryItemID, func(ctx context.Context) (*http.Response, error) {
			return d.API.UpdateLibraryItemMedia(ctx, a.LibraryItemID, body)
		})
		if res != nil {
			return res, nil
		}
		var v struct {
			Updated     bool       `json:"updated"`
			LibraryItem bookRecord `json:"libraryItem"`
		}
		if res := decode(rb, &v); res != nil {
			return res, nil
		}
		out := map[string]any{"updated": v.Updated, "library_item_id": a.LibraryItemID, "changed": changing,
			"previous": prev, "now": nowValues(&v.LibraryItem, changing, a.LibraryItemID)}
		var notes []string
		for _, k := range changing {
			if !sameValue(v.LibraryItem.value(k), want[k]) && !(want[k] == "" && v.LibraryItem.value(k) == nil) {
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
		return jsonResult(out), nil
	}
	return plan, nil
}

// ---------------------------------------------------------------- match

// EffectOverwritesFilledFields is match_library_item's effect that makes it
// ask (tools.yaml): with override, fields that hold a value are replaced.
const EffectOverwritesFilledFields = "overwrites_filled_fields"

// matchRead is what an approval of an overriding match is bound to.
type matchRead struct {
	ID        string   `json:"id"`
	UpdatedAt int64    `json:"updatedAt"`
	Filled    []string `json:"filled"`
}

// PlanMatchLibraryItem plans match_library_item. Without override it asks
// nothing (only empty fields are filled); with override on a book whose
// fields hold values it asks, after checking the update permission.
func PlanMatchLibraryItem(ctx context.Context, d *Deps, a toolargs.MatchLibraryItem) (*Plan, *mcp.CallToolResult) {
	b, res := d.getBook(ctx, a.LibraryItemID, "match_library_item")
	if res != nil {
		return nil, res
	}
	var filled []string
	for _, k := range append(append([]string{}, editableFields...), matchOnlyFields...) {
		if b.filled(k) {
			filled = append(filled, k)
		}
	}
	plan := &Plan{Targets: []string{a.LibraryItemID}, Read: matchRead{ID: b.ID, UpdatedAt: b.UpdatedAt, Filled: filled}}
	if a.Override && len(filled) > 0 {
		plan.Effects = []string{EffectOverwritesFilledFields}
		plan.Action = fmt.Sprintf("This will replace up to %d filled field(s) of book %s with the first result of provider %s: %s.", len(filled), a.LibraryItemID, a.Provider, strings.Join(filled, ", "))
		plan.Consequences = []string{"Only the fields the provider has a value for change. The answer carries the old values; update_item_metadata can put back every field but a replaced cover."}
	}
	plan.Execute = func(ctx context.Context) (*mcp.CallToolResult, error) {
		provider := a.Provider
		// Both overrides are always sent: without them Audiobookshelf uses
		// its scannerPreferMatchedMetadata setting, which may override.
		body := abs.MatchLibraryItemJSONRequestBody{Provider: &provider, OverrideDetails: a.Override, OverrideCover: a.Override}
		rb, res := d.changeItem(ctx, a.LibraryItemID, func(ctx context.Context) (*http.Response, error) {
			return d.API.MatchLibraryItem(ctx, a.LibraryItemID, body)
		})
		if res != nil {
			return res, nil
		}
		var v struct {
			Warning     *string     `json:"warning"`
			Updated     bool        `json:"updated"`
			LibraryItem *bookRecord `json:"libraryItem"`
		}
		if res := decode(rb, &v); res != nil {
			return res, nil
		}
		if v.Warning != nil || v.LibraryItem == nil {
			w := "no result"
			if v.Warning != nil {
				w = clip(cleanText(*v.Warning), 200)
			}
			return jsonResult(map[string]any{"matched": false, "library_item_id": a.LibraryItemID, "provider": a.Provider,
				"warning": w, "note": "The provider had no match; nothing was changed. Try another provider."}), nil
		}
		prev := map[string]any{}
		var changed []string
		after := v.LibraryItem
		for _, k := range append(append([]string{}, editableFields...), matchOnlyFields...) {
			if !sameValue(b.value(k), after.value(k)) {
				prev[k] = b.value(k)
				changed = append(changed, k)
			}
		}
		out := map[string]any{"matched": true, "updated": v.Updated, "library_item_id": a.LibraryItemID, "provider": a.Provider, "changed": changed}
		if len(changed) == 0 {
			out["note"] = "The provider's first result had nothing to add or change."
			return jsonResult(out), nil
		}
		out["previous"] = prev
		out["now"] = nowValues(after, changed, a.LibraryItemID)
		editable := map[string]any{}
		var lost []string
		for _, k := range changed {
			if slices.Contains(editableFields, k) {
				editable[k] = prev[k]
			} else {
				lost = append(lost, k)
			}
		}
		var pb *PutBack
		if len(editable) > 0 {
			var why string
			if pb, why = putBackArgs(a.LibraryItemID, editable); pb == nil {
				out["put_back_refused"] = why
			}
		}
		// A cover fetched for a book that had none comes off again with
		// remove_item_cover, which leaves the book's record as it was (the
		// image file stays on disk); a replaced cover no tool here sets
		// back.
		var kept []string
		for _, k := range lost {
			if k == "cover" && prev[k] == nil {
				cover := &PutBack{Tool: "remove_item_cover", Arguments: map[string]any{"library_item_id": a.LibraryItemID},
					Note: "Takes off the cover this match fetched (the book had none); it asks the person first. The image file stays on the server's disk."}
				if pb == nil {
					pb = cover
				} else {
					pb.Then = cover
				}
				continue
			}
			kept = append(kept, k)
		}
		if pb != nil {
			out["put_back"] = pb
		}
		if len(kept) > 0 {
			out["not_put_back"] = fmt.Sprintf("%s: no tool here sets them; their old values are in previous.", strings.Join(kept, ", "))
		}
		return jsonResult(out), nil
	}
	return plan, nil
}

// ---------------------------------------------------------------- cover

// MaxCoverBytes bounds the image get_item_cover returns.
const MaxCoverBytes = 2 << 20

// GetItemCover is get_item_cover.
func GetItemCover(ctx context.Context, d *Deps, a toolargs.GetItemCover) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(ctx, d.Timeout)
	defer cancel()
	format := abs.GetLibraryItemCoverParamsFormat("jpeg")
	width := int(a.Width)
	resp, err := d.API.GetLibraryItemCover(ctx, a.LibraryItemID, &abs.GetLibraryItemCoverParams{Width: &width, Format: &format})
	if err != nil {
		return d.transportError(ctx, false, err), nil
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return errorResult("Audiobookshelf has no cover for library item %s (404): the item has none, its cover file is gone, or the id is wrong (get_library_item tells which).", a.LibraryItemID), nil
	case resp.StatusCode == http.StatusNoContent:
		return errorResult("Audiobookshelf handed the cover of library item %s to a reverse proxy (X-Accel, 204 without the image); this server cannot read it through the API.", a.LibraryItemID), nil
	case resp.StatusCode/100 != 2:
		body, _ := readLimited(resp.Body, -1, 64<<10)
		if d.redact != nil {
			body = d.redact(body)
		}
		return statusError(&response{Status: resp.StatusCode, Body: body, ContentType: resp.Header.Get("Content-Type")}, "the cover of library item "+a.LibraryItemID, false), nil
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt != "image/jpeg" {
		return errorResult("Audiobookshelf at %s answered the cover of library item %s with %q, not a JPEG image. Is AUDIOBOOKSHELF_URL the Audiobookshelf server itself? Nothing was changed.", d.BaseURL, a.LibraryItemID, clip(cleanText(mt), 60)), nil
	}
	img, err := readLimited(resp.Body, resp.ContentLength, MaxCoverBytes)
	if errors.Is(err, errTooLarge) {
		return errorResult(`argument "width": the cover of library item %s at width %d is larger than %d MB, the most this tool returns. Ask for a smaller width (400 is plenty to look at).`, a.LibraryItemID, width, MaxCoverBytes>>20), nil
	}
	if err != nil {
		return d.transportError(ctx, false, err), nil
	}
	if len(img) < 3 || img[0] != 0xFF || img[1] != 0xD8 || img[2] != 0xFF {
		return errorResult("Audiobookshelf's answer for the cover of library item %s is labelled JPEG but is not one (%d bytes). Nothing was changed.", a.LibraryItemID, len(img)), nil
	}
	info, _ := marshal(map[string]any{"library_item_id": a.LibraryItemID, "width": width, "mime_type": "image/jpeg", "bytes": len(img)})
	return &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.ImageContent{Data: img, MIMEType: "image/jpeg"},
		&mcp.TextContent{Text: string(info)},
	}}, nil
}

// ---------------------------------------------------------------- remove cover

// coverRead is what an approval of remove_item_cover is bound to: whether
// the item has a cover, and its updatedAt (Audiobookshelf moves it when a
// cover is set, replaced or removed). The cover's path goes nowhere near a
// question.
type coverRead struct {
	ID        string `json:"id"`
	UpdatedAt int64  `json:"updatedAt"`
	HasCover  bool   `json:"hasCover"`
}

// PlanRemoveItemCover plans remove_item_cover: Audiobookshelf forgets which
// file is the item's cover (LibraryItemController.removeCover sets
// media.coverPath to null; the file stays). It always asks, for no tool
// here sets a cover again; an item without a cover is refused before
// anybody is asked or anything is sent.
func PlanRemoveItemCover(ctx context.Context, d *Deps, a toolargs.RemoveItemCover) (*Plan, *mcp.CallToolResult) {
	id := a.LibraryItemID
	body, res := d.get(ctx, "library item "+id, func(ctx context.Context) (*http.Response, error) {
		return d.API.GetLibraryItem(ctx, id, nil)
	})
	if res != nil {
		return nil, res
	}
	var it struct {
		ID        string `json:"id"`
		UpdatedAt int64  `json:"updatedAt"`
		Media     struct {
			CoverPath *string `json:"coverPath"`
		} `json:"media"`
	}
	if res := decode(body, &it); res != nil {
		return nil, res
	}
	if it.Media.CoverPath == nil || *it.Media.CoverPath == "" {
		return nil, errorResult(`argument "library_item_id": library item %s has no cover (Audiobookshelf holds none for it), so there is nothing to remove. Nothing was sent and nobody was asked.`, id)
	}
	file := *it.Media.CoverPath
	return &Plan{
		Targets: []string{id},
		Action:  fmt.Sprintf("This will remove the cover of library item %s: Audiobookshelf forgets which image file is its cover.", id),
		Read:    coverRead{ID: it.ID, UpdatedAt: it.UpdatedAt, HasCover: true},
		Execute: func(ctx context.Context) (*mcp.CallToolResult, error) {
			r, res := d.send(ctx, true, func(ctx context.Context) (*http.Response, error) {
				return d.API.RemoveLibraryItemCover(ctx, id)
			})
			if res != nil {
				return res, nil
			}
			if r.Status == http.StatusForbidden {
				return errorResult("Audiobookshelf answered 403 Forbidden for library item %s: removing a cover needs the delete permission (Settings → Users → the user → Can Delete), which the user of this API key lacks. Nothing was changed.", id), nil
			}
			if r.Status/100 != 2 {
				return statusError(r, "the cover of library item "+id, true), nil
			}
			if res := d.checkWrite(r, "the cover of library item "+id); res != nil {
				return res, nil
			}
			return jsonResult(map[string]any{"removed": true, "library_item_id": id,
				"file_kept": file,
				"note":      "Audiobookshelf no longer takes this file as the item's cover; the file itself was not deleted. A later scan that finds an image file in the item's own folder may take it as the cover again."}), nil
		},
	}, nil
}

package curation

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/argdec"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/guard"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/naming"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The effects that make batch_update_books ask (tools.yaml).
const (
	// EffectReplacesValues: a book's text, whole list, series or place in
	// a series would be replaced by something else.
	EffectReplacesValues = "replaces_values"
	// EffectPartialLists: one call back could not give every book its
	// list back exactly (values held in part, or not last in order).
	EffectPartialLists = "partial_lists"
	// EffectDeletesSeries: a series would be left without a book, and
	// Audiobookshelf deletes it.
	EffectDeletesSeries = "deletes_series"
)

// readsAtOnce is how many books are read at the same time.
const readsAtOnce = 4

// maxText is the longest text the tool's value argument takes: a value
// longer than it, or holding what the arguments refuse, could not be
// carried by a put-back.
const maxText = 500

// maxSequence is the longest place in a series the tool's sequence
// argument takes.
const maxSequence = 100

// bookState is what batch_update_books reads of one book: the field it
// changes, as Audiobookshelf holds it.
type bookState struct {
	ID        string              `json:"id"`
	LibraryID string              `json:"libraryId"`
	UpdatedAt int64               `json:"updatedAt"`
	List      []string            `json:"list,omitempty"`
	Value     absdata.Text        `json:"value"`
	Series    []absdata.SeriesRef `json:"series,omitempty"`
}

// seriesEntry is one entry of a book's metadata.series in a media payload.
type seriesEntry = struct {
	Name     string  `json:"name"`
	Sequence *string `json:"sequence,omitempty"`
}

// readBooks reads each item, up to readsAtOnce at the same time, as
// Audiobookshelf keeps it; a podcast is refused when books is true.
func readBooks(ctx context.Context, d *kit.Deps, ids []string, books bool, tool string) ([]absdata.Item, error) {
	items := make([]absdata.Item, len(ids))
	errs := make([]error, len(ids))
	kit.EachLimit(len(ids), readsAtOnce, func(i int) {
		it, err := d.ReadItemRecord(ctx, ids[i])
		if err != nil {
			errs[i] = err
			return
		}
		items[i] = *it
	})
	for i, err := range errs {
		if err != nil {
			return nil, err
		}
		if books && items[i].MediaType != "book" {
			return nil, kit.Errorf(kit.Unchanged, `argument "library_item_ids": item %s is a podcast; %s changes books only.`, kit.ShowID(ids[i]), tool)
		}
	}
	return items, nil
}

// oneLine says what is wrong with a text argument that a book's field
// would hold, or "".
func oneLine(s string) string {
	if strings.ContainsAny(s, "\n\t") || argdec.RefusedControls(s) > 0 {
		return "must not contain control characters (a line break, a tab or another): it is one line of text"
	}
	return ""
}

// carriable reports whether a text can go back through the tool's own
// value argument exactly.
func carriable(s string) bool {
	return oneLine(s) == "" && len([]rune(s)) <= maxText
}

// CheckBatchUpdateBooks refuses a combination of batch_update_books's
// arguments that does not fit the field; the generated handler calls it
// before anything is sent.
func CheckBatchUpdateBooks(a toolargs.BatchUpdateBooks) error {
	_, err := batchArgs(a)
	return err
}

// batchArgs checks the combination of batch_update_books's arguments and
// gives the mode it runs in.
func batchArgs(a toolargs.BatchUpdateBooks) (string, error) {
	given := func(name string) bool {
		switch name {
		case "values":
			return a.Values != nil
		case "value":
			return a.Value != nil
		case "series":
			return a.Series != nil
		case "sequence":
			return a.Sequence != nil
		}
		return false
	}
	refuse := func(names ...string) error {
		for _, n := range names {
			if given(n) {
				return kit.Errorf(kit.NotSent, "argument %q: not taken with field %q (lists take values; publisher and language take value; series takes series and sequence).", n, a.Field)
			}
		}
		return nil
	}
	mode := ""
	if a.Mode != nil {
		mode = *a.Mode
	}
	switch a.Field {
	case "tags", "genres", "narrators":
		if a.Values == nil {
			return "", kit.Errorf(kit.NotSent, `argument "values": required with field %q (the %s to add, remove or set).`, a.Field, a.Field)
		}
		if err := refuse("value", "series", "sequence"); err != nil {
			return "", err
		}
		if mode == "" {
			mode = "add"
		}
	case "publisher", "language":
		if a.Value == nil {
			return "", kit.Errorf(kit.NotSent, `argument "value": required with field %q ("" clears it).`, a.Field)
		}
		if err := refuse("values", "series", "sequence"); err != nil {
			return "", err
		}
		if mode == "" {
			mode = "set"
		}
		if mode != "set" {
			return "", kit.Errorf(kit.NotSent, `argument "mode": field %q takes mode "set" only (value "" clears it), got %q.`, a.Field, mode)
		}
		if msg := oneLine(*a.Value); msg != "" {
			return "", kit.Errorf(kit.NotSent, `argument "value": %s.`, msg)
		}
		if *a.Value != "" && strings.TrimSpace(*a.Value) == "" {
			return "", kit.Errorf(kit.NotSent, `argument "value": must not be only spaces; "" clears the %s.`, a.Field)
		}
	case "series":
		if a.Series == nil {
			return "", kit.Errorf(kit.NotSent, `argument "series": required with field "series" (the series' name).`)
		}
		if err := refuse("values", "value"); err != nil {
			return "", err
		}
		if mode == "" {
			mode = "add"
		}
		if msg := oneLine(*a.Series); msg != "" {
			return "", kit.Errorf(kit.NotSent, `argument "series": %s.`, msg)
		}
		if strings.TrimSpace(*a.Series) == "" {
			return "", kit.Errorf(kit.NotSent, `argument "series": must not be only spaces.`)
		}
		if a.Sequence != nil {
			if mode == "remove" {
				return "", kit.Errorf(kit.NotSent, `argument "sequence": not taken with mode "remove" (a book is taken out of the series whatever its place).`)
			}
			if msg := oneLine(*a.Sequence); msg != "" {
				return "", kit.Errorf(kit.NotSent, `argument "sequence": %s.`, msg)
			}
		}
	}
	return mode, nil
}

// PlanBatchUpdateBooks plans batch_update_books: one POST
// /api/items/batch/update with, for every book that changes, its new list,
// value or series made from what was read.
func PlanBatchUpdateBooks(ctx context.Context, d *kit.Deps, a toolargs.BatchUpdateBooks) (*kit.Plan, error) {
	mode, err := batchArgs(a)
	if err != nil {
		return nil, err
	}
	items, err := readBooks(ctx, d, a.LibraryItemIDs, true, "batch_update_books")
	if err != nil {
		return nil, err
	}
	states := make([]bookState, len(items))
	for i := range items {
		it := &items[i]
		st := bookState{ID: it.ID, LibraryID: it.LibraryID, UpdatedAt: it.UpdatedAt}
		switch a.Field {
		case "tags":
			st.List = it.Media.Tags
		case "genres":
			st.List = it.Media.Metadata.Genres
		case "narrators":
			st.List = it.Media.Metadata.Narrators
		case "publisher":
			st.Value = it.Media.Metadata.Publisher
		case "language":
			st.Value = it.Media.Metadata.Language
		case "series":
			st.Series = it.Media.Metadata.Series
		}
		states[i] = st
	}
	var c change
	switch a.Field {
	case "tags", "genres", "narrators":
		c = planList(states, mode, a.Values, a.Field)
	case "publisher", "language":
		c = planText(states, a.Field, *a.Value)
	case "series":
		c, err = planSeries(ctx, d, states, mode, *a.Series, a.Sequence)
		if err != nil {
			return nil, err
		}
	}
	plan := &kit.Plan{Targets: c.ids()}
	titles := naming.ItemTitles(items)
	seriesNames := map[string]string{}
	for _, st := range states {
		for _, sr := range st.Series {
			seriesNames[sr.ID] = sr.Name
		}
	}
	for _, e := range []struct {
		name string
		ids  []string
		text string
	}{
		{EffectReplacesValues, c.replaced, "it replaces what the book holds (text somebody typed, a whole list, a series or a place in one), which a call back could not give back exactly"},
		{EffectPartialLists, c.partial, "the values are held only in part, or are not the last of the book's list in the order given (or the series is not the book's last, or places differ between the books), so one call back could not give every list back exactly"},
	} {
		if len(e.ids) > 0 {
			plan.Effects = append(plan.Effects, e.name)
			plan.Consequences = append(plan.Consequences, fmt.Sprintf("On %d of them (%s) %s.", len(e.ids), naming.ListTitled(naming.Titles(e.ids, titles)), e.text))
		}
	}
	if len(c.deleted) > 0 {
		plan.Effects = append(plan.Effects, EffectDeletesSeries)
		plan.Consequences = append(plan.Consequences, fmt.Sprintf("%d series record(s) (%s) would be left without a book: Audiobookshelf deletes them, and putting the name back makes a new record with a new id.", len(c.deleted), naming.ListTitled(naming.Titles(c.deleted, seriesNames))))
	}
	if len(plan.Effects) > 0 {
		plan.Action = fmt.Sprintf("This will %s on %d book(s): %s.", batchChange(a, mode), len(c.payload), naming.ListTitled(naming.Titles(c.ids(), titles)))
		plan.Read = struct {
			Books  []bookState    `json:"books"`
			Counts map[string]int `json:"seriesCounts,omitempty"`
		}{states, c.counts}
	}
	plan.Execute = func(ctx context.Context) (*mcp.CallToolResult, error) {
		if len(c.payload) == 0 {
			return result.JSONResult(map[string]any{"books_changed": 0,
				"note": fmt.Sprintf("Every book already holds what the call asks for (the %s compared as Audiobookshelf compares them); nothing was sent.", a.Field)})
		}
		changed, err := sendBatchUpdate(ctx, d, "the batch update", c.payload)
		if err != nil {
			return nil, err
		}
		ids := c.ids()
		out := map[string]any{"books_changed": changed, "library_item_ids": ids}
		switch {
		case len(plan.Effects) > 0:
			out["not_put_back"] = "The person approved a change that one call back cannot undo exactly."
		case changed != len(ids):
			out["not_put_back"] = fmt.Sprintf("Audiobookshelf changed %d book(s) where %d were to change: a book changed in between, so a call back might not give every book its field back; read the books first (get_library_item).", changed, len(ids))
		default:
			pb := c.putBack
			pb.Arguments["library_item_ids"] = ids
			out["put_back"] = &pb
		}
		return result.JSONResult(out)
	}
	return plan, nil
}

// change is what a batch update would do: the payload of the books that
// change, which of them make it ask and why, and the call that puts it
// back when none does.
// batchChange says in words what batch_update_books does to each book,
// with the call's values quoted: `add "a", "b" to the tags`, `set the
// publisher to "X"`, `take them out of series "Y"`.
func batchChange(a toolargs.BatchUpdateBooks, mode string) string {
	switch a.Field {
	case "tags", "genres", "narrators":
		quoted := make([]string, len(a.Values))
		for i, v := range a.Values {
			quoted[i] = guard.Quote(v)
		}
		vs := strings.Join(quoted, ", ")
		switch {
		case mode == "set" && len(a.Values) == 0:
			return "clear the " + a.Field
		case mode == "set":
			return fmt.Sprintf("set the %s to %s", a.Field, vs)
		case mode == "remove":
			return fmt.Sprintf("take %s out of the %s", vs, a.Field)
		}
		return fmt.Sprintf("add %s to the %s", vs, a.Field)
	case "publisher", "language":
		if a.Value == nil || *a.Value == "" {
			return "clear the " + a.Field
		}
		return fmt.Sprintf("set the %s to %s", a.Field, guard.Quote(*a.Value))
	case "series":
		name, seq := "", ""
		if a.Series != nil {
			name = guard.Quote(*a.Series)
		}
		if a.Sequence != nil {
			seq = " at sequence " + guard.Quote(*a.Sequence)
		}
		switch mode {
		case "remove":
			return "take the books out of series " + name
		case "set":
			return fmt.Sprintf("set the series to %s%s alone", name, seq)
		}
		return fmt.Sprintf("put the books in series %s%s", name, seq)
	}
	return "change the " + a.Field
}

type change struct {
	payload  []abs.BatchMediaUpdate
	replaced []string
	partial  []string
	deleted  []string
	counts   map[string]int
	putBack  result.PutBack
}

func (c *change) ids() []string { return payloadIDs(c.payload) }

// payloadIDs are the items of a batch update's entries, in their order.
func payloadIDs(updates []abs.BatchMediaUpdate) []string {
	out := make([]string, len(updates))
	for i, p := range updates {
		out[i] = p.Id
	}
	return out
}

// sendBatchUpdate sends POST /api/items/batch/update, once no other write
// of this process to one of its items is under way (kit.ForItems): every
// batch update of the toolset goes through it.
func sendBatchUpdate(ctx context.Context, d *kit.Deps, what string, updates []abs.BatchMediaUpdate) (int, error) {
	body, err := d.Mutate(kit.ForItems(ctx, payloadIDs(updates)), what, func(ctx context.Context) (*http.Response, error) {
		return d.API.BatchUpdateLibraryItems(ctx, updates)
	})
	if err != nil {
		return 0, err
	}
	// The answer says how many books changed ({"updates": N}); the change
	// was made either way, so an answer that cannot be read says so.
	var ans struct {
		Updates int `json:"updates"`
	}
	if err := json.Unmarshal(body, &ans); err != nil {
		return 0, kit.Errorf(kit.Made, "%s was made, but Audiobookshelf's answer could not be read (%v); get_library_item shows each book.", what, err)
	}
	return ans.Updates, nil
}

func putBackCall(args map[string]any) result.PutBack {
	return result.PutBack{Tool: "batch_update_books", Arguments: args}
}

// planList: tags, genres or narrators. add appends what a book lacks (one
// call of remove takes it off again when every book lacked all the
// values); remove takes every copy off (add puts them back when they were
// the last of the list in order, once each); set replaces the list (free
// only on books whose list is empty: then it is an add).
func planList(states []bookState, mode string, values []string, field string) change {
	var c change
	for _, st := range states {
		var next []string
		switch mode {
		case "add":
			var missing []string
			for _, v := range values {
				if !slices.Contains(st.List, v) {
					missing = append(missing, v)
				}
			}
			if len(missing) == 0 {
				continue
			}
			if len(missing) < len(values) {
				c.partial = append(c.partial, st.ID)
			}
			next = append(slices.Clone(st.List), missing...)
		case "remove":
			held := 0
			for _, v := range st.List {
				if slices.Contains(values, v) {
					held++
				}
			}
			if held == 0 {
				continue
			}
			if held != len(values) || len(st.List) < len(values) || !slices.Equal(st.List[len(st.List)-len(values):], values) {
				c.partial = append(c.partial, st.ID)
			}
			next = []string{}
			for _, v := range st.List {
				if !slices.Contains(values, v) {
					next = append(next, v)
				}
			}
		case "set":
			if slices.Equal(st.List, values) {
				continue
			}
			if len(st.List) > 0 {
				c.replaced = append(c.replaced, st.ID)
			}
			next = slices.Clone(values)
		}
		c.payload = append(c.payload, listPayload(st.ID, field, next))
	}
	back := map[string]string{"add": "remove", "remove": "add", "set": "remove"}[mode]
	c.putBack = putBackCall(map[string]any{"field": field, "mode": back, "values": values})
	return c
}

func listPayload(id, field string, list []string) abs.BatchMediaUpdate {
	p := abs.BatchMediaUpdate{Id: id}
	switch field {
	case "tags":
		p.MediaPayload.Tags = &list
	case "genres":
		p.MediaPayload.Metadata = &abs.MediaMetadataUpdate{Genres: &list}
	case "narrators":
		p.MediaPayload.Metadata = &abs.MediaMetadataUpdate{Narrators: &list}
	}
	return p
}

// planText: publisher or language, set to value. Audiobookshelf stores ""
// as null (value || null). Free where every book that changes holds null
// and the value is text (setting "" gives null back), or where the value
// is "" and every book that changes holds the same text (setting it gives
// it back).
func planText(states []bookState, field, value string) change {
	var c change
	var held []string
	for _, st := range states {
		if (st.Value.Valid && st.Value.Value == value) || (!st.Value.Valid && value == "") {
			continue
		}
		v := value
		meta := &abs.MediaMetadataUpdate{}
		if field == "publisher" {
			meta.Publisher = &v
		} else {
			meta.Language = &v
		}
		c.payload = append(c.payload, abs.BatchMediaUpdate{Id: st.ID, MediaPayload: abs.MediaUpdate{Metadata: meta}})
		held = append(held, st.Value.Value)
		switch {
		case value != "" && !st.Value.Valid:
		case value == "" && st.Value.Valid && st.Value.Value != "" && st.Value.Value == held[0] && carriable(st.Value.Value):
		default:
			c.replaced = append(c.replaced, st.ID)
		}
	}
	back := ""
	if value == "" && len(held) > 0 {
		back = held[0]
	}
	c.putBack = putBackCall(map[string]any{"field": field, "mode": "set", "value": back})
	return c
}

// planSeries: a book's series, by name (Audiobookshelf compares them
// ignoring case). add puts each book in the series at sequence (remove
// takes it out again), or moves a book already in it to sequence (add at
// the old place puts it back, when every book moved had the same one and
// none was put in the series by the same call); remove takes it out (add puts it back when it was
// each book's last series, at one place for all, and the series keeps a
// book); set makes it each book's only series (free only on books without
// one: then it is an add).
func planSeries(ctx context.Context, d *kit.Deps, states []bookState, mode, name string, sequence *string) (change, error) {
	var c change
	want := absdata.Text{}
	if sequence != nil {
		want = absdata.Text{Value: *sequence, Valid: true}
	}
	entries := func(refs []absdata.SeriesRef) []seriesEntry {
		out := make([]seriesEntry, 0, len(refs)+1)
		for _, r := range refs {
			e := seriesEntry{Name: r.Name}
			if r.Sequence.Valid {
				e.Sequence = kit.Ptr(r.Sequence.Value)
			}
			out = append(out, e)
		}
		return out
	}
	payload := func(id string, list []seriesEntry) abs.BatchMediaUpdate {
		return abs.BatchMediaUpdate{Id: id, MediaPayload: abs.MediaUpdate{Metadata: &abs.MediaMetadataUpdate{Series: &list}}}
	}
	var removed []absdata.SeriesRef
	// moved are the books add moves to another place in a series they
	// are in already, and from where; added those it puts in it.
	var moved []string
	var from []absdata.Text
	added := 0
	for _, st := range states {
		at := slices.IndexFunc(st.Series, func(r absdata.SeriesRef) bool { return strings.EqualFold(r.Name, name) })
		switch mode {
		case "add":
			if at >= 0 {
				if st.Series[at].Sequence == want {
					continue
				}
				// Audiobookshelf changes the place where the book is
				// (Book.updateSeriesFromRequest saves its bookSeries row),
				// its series and their order staying as they were.
				moved, from = append(moved, st.ID), append(from, st.Series[at].Sequence)
				list := entries(st.Series)
				list[at].Sequence = sequence
				c.payload = append(c.payload, payload(st.ID, list))
				continue
			}
			added++
			c.payload = append(c.payload, payload(st.ID, append(entries(st.Series), seriesEntry{Name: name, Sequence: sequence})))
		case "remove":
			if at < 0 {
				continue
			}
			if at != len(st.Series)-1 || (len(removed) > 0 && (removed[0].Sequence != st.Series[at].Sequence || removed[0].Name != st.Series[at].Name)) {
				c.partial = append(c.partial, st.ID)
			}
			removed = append(removed, st.Series[at])
			c.payload = append(c.payload, payload(st.ID, entries(slices.Delete(slices.Clone(st.Series), at, at+1))))
		case "set":
			if len(st.Series) == 1 && at == 0 && st.Series[0].Sequence == want {
				continue
			}
			if len(st.Series) > 0 {
				c.replaced = append(c.replaced, st.ID)
			}
			c.payload = append(c.payload, payload(st.ID, []seriesEntry{{Name: name, Sequence: sequence}}))
		}
	}
	if mode == "remove" && len(removed) > 0 {
		// A series left without a book is deleted: count each one's books.
		off := map[string]int{}
		lib := map[string]string{}
		for i, r := range removed {
			off[r.ID]++
			for _, st := range states {
				if st.ID == c.payload[i].Id {
					lib[r.ID] = st.LibraryID
				}
			}
		}
		c.counts = map[string]int{}
		for _, id := range slices.Sorted(maps.Keys(off)) {
			n, err := countSeriesBooks(ctx, d, lib[id], id)
			if err != nil {
				return c, err
			}
			c.counts[id] = n
			if n <= off[id] {
				c.deleted = append(c.deleted, id)
			}
		}
		args := map[string]any{"field": "series", "mode": "add", "series": removed[0].Name}
		if removed[0].Sequence.Valid {
			args["sequence"] = removed[0].Sequence.Value
		}
		if !carriable(removed[0].Name) || (removed[0].Sequence.Valid && !carriable(removed[0].Sequence.Value)) {
			c.replaced = append(c.replaced, c.ids()...)
		}
		c.putBack = putBackCall(args)
		return c, nil
	}
	if len(moved) > 0 {
		// One call back puts every moved book at its old place when they
		// all had the same one (or none) and nothing was added to the
		// series besides; else a place somebody chose would be lost.
		same := added == 0
		for _, f := range from {
			if f != from[0] || (f.Valid && (oneLine(f.Value) != "" || len([]rune(f.Value)) > maxSequence)) {
				same = false
			}
		}
		if !same {
			c.replaced = append(c.replaced, moved...)
		} else {
			args := map[string]any{"field": "series", "mode": "add", "series": name}
			if from[0].Valid {
				args["sequence"] = from[0].Value
			}
			c.putBack = putBackCall(args)
			return c, nil
		}
	}
	pb := putBackCall(map[string]any{"field": "series", "mode": "remove", "series": name})
	pb.Note = "It asks first when it would leave the series without a book (Audiobookshelf then deletes it): so it does when this call made the series."
	c.putBack = pb
	return c, nil
}

// countSeriesBooks is how many books of a library are in a series
// (Audiobookshelf's series filter, limit 1: its total).
func countSeriesBooks(ctx context.Context, d *kit.Deps, libraryID, seriesID string) (int, error) {
	params := &abs.ListLibraryItemsParams{Limit: kit.Ptr(1), Page: kit.Ptr(0), Filter: kit.Ptr(kit.Filter("series", seriesID))}
	body, err := d.Get(ctx, "library "+libraryID, func(ctx context.Context) (*http.Response, error) {
		return d.API.ListLibraryItems(ctx, libraryID, params)
	})
	if err != nil {
		return 0, err
	}
	var v absdata.Listing[absdata.Item]
	if err := kit.Decode(body, &v); err != nil {
		return 0, err
	}
	_, total := v.Rows()
	if total == nil {
		return 0, kit.Errorf(kit.Unchanged, "library %s: Audiobookshelf's answer to a series filter carried no total; nothing was changed.", libraryID)
	}
	return *total, nil
}

// PlanBatchQuickMatch plans batch_quick_match: POST
// /api/items/batch/quickmatch, which Audiobookshelf answers at once and
// runs in the background. It always asks.
func PlanBatchQuickMatch(ctx context.Context, d *kit.Deps, a toolargs.BatchQuickMatch) (*kit.Plan, error) {
	items, err := readBooks(ctx, d, a.LibraryItemIDs, false, "batch_quick_match")
	if err != nil {
		return nil, err
	}
	type read struct {
		ID        string `json:"id"`
		MediaType string `json:"mediaType"`
		UpdatedAt int64  `json:"updatedAt"`
	}
	reads := make([]read, len(items))
	podcasts := 0
	for i, it := range items {
		reads[i] = read{it.ID, it.MediaType, it.UpdatedAt}
		if it.MediaType == "podcast" {
			podcasts++
		}
	}
	ids := a.LibraryItemIDs
	provider := "a metadata provider"
	if a.Provider != nil {
		provider = "metadata provider " + guard.Quote(*a.Provider)
	}
	plan := &kit.Plan{Targets: ids, Read: reads,
		Action: fmt.Sprintf("This will quick match %d item(s) (%d podcast(s) among them) against %s, in the background on the server: %s.", len(ids), podcasts, provider, naming.ListTitled(naming.Titles(ids, naming.ItemTitles(items))))}
	switch {
	case a.OverrideDetails && a.OverrideCover:
		plan.Consequences = append(plan.Consequences, "Details and covers that hold a value are replaced by the provider's.")
	case a.OverrideDetails:
		plan.Consequences = append(plan.Consequences, "Details that hold a value are replaced by the provider's; only missing covers are fetched.")
	case a.OverrideCover:
		plan.Consequences = append(plan.Consequences, "Covers are replaced by the provider's; only empty details are filled.")
	default:
		plan.Consequences = append(plan.Consequences, "Only empty details and missing covers are filled.")
	}
	plan.Execute = func(ctx context.Context) (*mcp.CallToolResult, error) {
		body := abs.BatchQuickMatch{LibraryItemIds: ids}
		body.Options = &struct {
			OverrideCover   *bool   `json:"overrideCover,omitempty"`
			OverrideDetails *bool   `json:"overrideDetails,omitempty"`
			Provider        *string `json:"provider,omitempty"`
		}{OverrideCover: kit.Ptr(a.OverrideCover), OverrideDetails: kit.Ptr(a.OverrideDetails), Provider: a.Provider}
		if _, err := d.Mutate(kit.ForItems(ctx, ids), "the batch quick match", func(ctx context.Context) (*http.Response, error) {
			return d.API.BatchQuickMatchLibraryItems(ctx, body)
		}); err != nil {
			return nil, err
		}
		return result.JSONResult(map[string]any{
			"started":          true,
			"items_sent":       len(ids),
			"library_item_ids": ids,
			"note": "Audiobookshelf accepted the items and matches them one after the other in the background, asking the provider over the internet; this answer cannot tell what was found or changed, and an item with no match is left as it was. " +
				"Afterwards get_library_item shows an item's metadata, and audit_missing the books still without a cover, a description or an ASIN/ISBN.",
			"not_put_back": "What the provider writes over the items cannot be put back from here.",
		})
	}
	return plan, nil
}

package curation

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/guard"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/naming"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The effects that make rename_tag and rename_genre ask (tools.yaml).
const (
	// EffectMergesNames: some item holds the new name already, so the
	// rename is a merge that the rename back could not split again.
	EffectMergesNames = "merges_names"
	// EffectReordersNames: on some item the old name is not the last of
	// its list (or is there twice); Audiobookshelf appends the new name at
	// the end, so the rename back would not give the order back.
	EffectReordersNames = "reorders_names"
)

// shownIDs is how many item ids an answer lists; the rest are counted.
const shownIDs = 100

// nameKind is what a rename acts on: the filter group of Audiobookshelf's
// library items route, the list of an item it reads, the tools and their
// argument names, the rename route and the fields of its answer.
type nameKind struct {
	what, group, tool, oldArg, newArg string
	// mergeTool, listArg and intoArg name the merge of several names.
	mergeTool, listArg, intoArg string
	list                        func(*absdata.Item) []string
	// joined is the list as the items route gives it when it gives no
	// list (a book's narrators come minified as one narratorName, joined
	// with ", "); nil when the route gives the list.
	joined func(*absdata.Item) string
	// booksOnly: only books hold the name (narrators); podcast libraries
	// are not read.
	booksOnly bool
	// send renames oldName to newName; libraryID is a library the user
	// sees, for a route that names one.
	send func(ctx context.Context, d *kit.Deps, libraryID, oldName, newName string) (*http.Response, error)
	// mergedKey and countKey are the answer's fields: whether some item
	// held the new name already ("" when the route does not say), and how
	// many items changed.
	mergedKey, countKey string
}

var (
	tagKind = nameKind{what: "tag", group: "tags", tool: "rename_tag", oldArg: "tag", newArg: "new_tag",
		mergeTool: "merge_tags", listArg: "tags", intoArg: "into_tag",
		list:      func(it *absdata.Item) []string { return it.Media.Tags },
		mergedKey: "tagMerged", countKey: "numItemsUpdated",
		send: func(ctx context.Context, d *kit.Deps, _, oldName, newName string) (*http.Response, error) {
			return d.API.RenameTag(ctx, abs.TagRename{Tag: oldName, NewTag: newName})
		}}
	genreKind = nameKind{what: "genre", group: "genres", tool: "rename_genre", oldArg: "genre", newArg: "new_genre",
		mergeTool: "merge_genres", listArg: "genres", intoArg: "into_genre",
		list:      func(it *absdata.Item) []string { return it.Media.Metadata.Genres },
		mergedKey: "genreMerged", countKey: "numItemsUpdated",
		send: func(ctx context.Context, d *kit.Deps, _, oldName, newName string) (*http.Response, error) {
			return d.API.RenameGenre(ctx, abs.GenreRename{Genre: oldName, NewGenre: newName})
		}}
	narratorKind = nameKind{what: "narrator", group: "narrators", tool: "rename_narrator", oldArg: "narrator", newArg: "new_narrator",
		mergeTool: "merge_narrators", listArg: "narrators", intoArg: "into_narrator",
		list:      func(it *absdata.Item) []string { return it.Media.Metadata.Narrators },
		joined:    func(it *absdata.Item) string { return it.Media.Metadata.NarratorName },
		booksOnly: true, countKey: "updated",
		send: func(ctx context.Context, d *kit.Deps, libraryID, oldName, newName string) (*http.Response, error) {
			return d.API.RenameNarrator(ctx, libraryID, base64.StdEncoding.EncodeToString([]byte(oldName)), abs.NarratorRename{Name: newName})
		}}
)

// PlanRenameTag plans rename_tag: POST /api/tags/rename, on every book
// and podcast of the server.
func PlanRenameTag(ctx context.Context, d *kit.Deps, a toolargs.RenameTag) (*kit.Plan, error) {
	return planRename(ctx, d, tagKind, a.Tag, a.NewTag)
}

// PlanRenameGenre plans rename_genre: POST /api/genres/rename, on every
// book and podcast of the server.
func PlanRenameGenre(ctx context.Context, d *kit.Deps, a toolargs.RenameGenre) (*kit.Plan, error) {
	return planRename(ctx, d, genreKind, a.Genre, a.NewGenre)
}

// PlanRenameNarrator plans rename_narrator: PATCH
// /api/libraries/:id/narrators/:narratorId, which names a library but
// renames on every book of the server.
func PlanRenameNarrator(ctx context.Context, d *kit.Deps, a toolargs.RenameNarrator) (*kit.Plan, error) {
	return planRename(ctx, d, narratorKind, a.Narrator, a.NewNarrator)
}

// holder is an item that holds the old or the new name, as read.
type holder struct {
	ID        string   `json:"id"`
	UpdatedAt int64    `json:"updatedAt"`
	List      []string `json:"list"`
	Joined    string   `json:"joined,omitempty"`
	// Title is the item's title, for the question only.
	Title string `json:"-"`
}

// holdings is what a rename or a merge read: for each name, in every
// library (book libraries for a kind of books only), the items holding
// it; and a library the route can be sent through.
type holdings struct {
	by        map[string][]holder
	libraryID string
}

// checkName refuses an empty, blank or multi-line name for argument arg.
func checkName(k nameKind, arg, v string) error {
	if strings.ContainsAny(v, "\n\t") {
		return kit.Errorf(kit.NotSent, "argument %q: must not contain control characters (a line break or a tab); a %s is one line of text.", arg, k.what)
	}
	if strings.TrimSpace(v) == "" {
		return kit.Errorf(kit.NotSent, "argument %q: must not be empty or only spaces.", arg)
	}
	return nil
}

// readHoldings reads, in every library, the items holding each of names
// (Audiobookshelf's own filter, which compares names exactly, as the
// renames do). Audiobookshelf's renames change every item of the server,
// whatever its user sees, so tool refuses, before anything else is read,
// a user who does not see every item: what the change would do there
// could be neither counted nor shown, and the answer would tell of items
// the person may not see.
func readHoldings(ctx context.Context, d *kit.Deps, k nameKind, tool string, names []string) (*holdings, error) {
	p, err := d.Viewer(ctx)
	if err != nil {
		return nil, err
	}
	if !p.SeesEverything {
		return nil, kit.RefuseServerWide(tool, k.what, p)
	}
	h := &holdings{by: map[string][]holder{}}
	libs, err := d.ReadLibraries(ctx)
	if err != nil {
		return nil, err
	}
	for _, l := range libs {
		if h.libraryID == "" {
			h.libraryID = l.ID
		}
		if k.booksOnly && l.MediaType != "book" {
			continue
		}
		for _, name := range names {
			items, err := walkItems(ctx, d, l.ID, kit.Filter(k.group, name), !k.booksOnly)
			if err != nil {
				return nil, err
			}
			for i := range items {
				hd := holder{ID: items[i].ID, UpdatedAt: items[i].UpdatedAt, List: k.list(&items[i]), Title: items[i].Media.Metadata.Title.Value}
				if k.joined != nil {
					hd.Joined = k.joined(&items[i])
				}
				h.by[name] = append(h.by[name], hd)
			}
		}
	}
	return h, nil
}

// rename sends one rename and reads from its answer how many items changed
// and whether some item held the new name already.
func (h *holdings) rename(ctx context.Context, d *kit.Deps, k nameKind, oldName, newName string) (updated int, merged bool, err error) {
	body, err := d.Mutate(ctx, k.what+" rename", func(ctx context.Context) (*http.Response, error) {
		return k.send(ctx, d, h.libraryID, oldName, newName)
	})
	if err != nil {
		return 0, false, err
	}
	var ans map[string]json.RawMessage
	unread := func(err error) (int, bool, error) {
		return 0, false, kit.Errorf(kit.Made, "the %s rename of %s was made, but Audiobookshelf's answer could not be read (%v); list_items or get_library_item show the items.", k.what, guard.Quote(oldName), err)
	}
	if err := json.Unmarshal(body, &ans); err != nil {
		return unread(err)
	}
	if raw, ok := ans[k.mergedKey]; ok && k.mergedKey != "" {
		if err := json.Unmarshal(raw, &merged); err != nil {
			return unread(err)
		}
	}
	if raw, ok := ans[k.countKey]; ok {
		if err := json.Unmarshal(raw, &updated); err != nil {
			return unread(err)
		}
	}
	return updated, merged, nil
}

// planRename reads the items holding the old name and those holding the
// new one, and says what the rename would do to them. Onto a name no
// item holds, where the old name is the last of every list that holds it,
// the rename back gives every list back exactly, so it does not ask;
// otherwise it asks. A user who does not see every item is refused
// (readHoldings).
func planRename(ctx context.Context, d *kit.Deps, k nameKind, oldName, newName string) (*kit.Plan, error) {
	for _, arg := range []struct{ name, v string }{{k.oldArg, oldName}, {k.newArg, newName}} {
		if err := checkName(k, arg.name, arg.v); err != nil {
			return nil, err
		}
	}
	if oldName == newName {
		return nil, kit.Errorf(kit.NotSent, "arguments %q and %q: they are the same %s; give a different new name.", k.oldArg, k.newArg, k.what)
	}
	h, err := readHoldings(ctx, d, k, k.tool, []string{oldName, newName})
	if err != nil {
		return nil, err
	}
	withOld, withNew := h.by[oldName], h.by[newName]
	newIDs := map[string]bool{}
	for _, h := range withNew {
		newIDs[h.ID] = true
	}
	var changed, both, reordered []string
	for _, h := range withOld {
		changed = append(changed, h.ID)
		if newIDs[h.ID] {
			both = append(both, h.ID)
		}
		list, err := listOf(ctx, d, k, h, oldName)
		if err != nil {
			return nil, err
		}
		n := 0
		for _, v := range list {
			if v == oldName {
				n++
			}
		}
		if n > 1 || len(list) == 0 || list[len(list)-1] != oldName {
			reordered = append(reordered, h.ID)
		}
	}
	plan := &kit.Plan{Targets: changed}
	if len(withNew) > 0 && len(changed) > 0 {
		plan.Effects = append(plan.Effects, EffectMergesNames)
		plan.Consequences = append(plan.Consequences, fmt.Sprintf(
			"The new name is already held by %d item(s) (%s), %d of them among those changed (%s): the two names become one there, and the rename back would take the name off every one of those items, not only the ones changed.",
			len(withNew), titled(withNew), len(both), titledIDs(both, withOld)))
	}
	if len(reordered) > 0 {
		plan.Effects = append(plan.Effects, EffectReordersNames)
		plan.Consequences = append(plan.Consequences, fmt.Sprintf(
			"On %d of them (%s) the %s is not the last of the item's %ss: Audiobookshelf puts the new name at the end, so the rename back would not give the order back.",
			len(reordered), titledIDs(reordered, withOld), k.what, k.what))
	}
	if len(plan.Effects) > 0 {
		plan.Action = fmt.Sprintf("This will rename %s %s to %s on %d item(s) of the server, in every library: %s.", k.what, guard.Quote(oldName), guard.Quote(newName), len(changed), titled(withOld))
		plan.Read = struct {
			Old []holder `json:"old"`
			New []holder `json:"new"`
		}{withOld, withNew}
	}
	plan.Execute = func(ctx context.Context) (*mcp.CallToolResult, error) {
		if len(changed) == 0 {
			return result.JSONResult(map[string]any{"renamed": false, "items_changed": 0,
				"note": fmt.Sprintf("No item of the libraries this user sees holds the %s (names are compared exactly: case and spaces count); nothing was sent. %s lists the spellings in use.", k.what, auditOf(k))})
		}
		updated, merged, err := h.rename(ctx, d, k, oldName, newName)
		if err != nil {
			return nil, err
		}
		// What the answer counts is what was read: Audiobookshelf's own
		// count may take in items changed since, which the answer does
		// not describe.
		out := map[string]any{"renamed": true, "items_changed": min(updated, len(changed))}
		showIDs(out, changed, "the rename back needs none of them")
		switch {
		case len(plan.Effects) > 0:
			out["not_put_back"] = "The person approved a rename that the rename back cannot undo exactly (a merge, or a changed order)."
		case merged || updated != len(changed):
			out["not_put_back"] = fmt.Sprintf("Audiobookshelf's answer does not match the items read: the %s changed on some item in between, so a rename back might not give every item its list back; read the items first.", k.what)
		default:
			out["put_back"] = &result.PutBack{Tool: k.tool, Arguments: map[string]any{k.oldArg: newName, k.newArg: oldName}}
		}
		return result.JSONResult(out)
	}
	return plan, nil
}

// listOf is the list of names of an item holding name. Where the items
// route gives it joined (narrators), a joined text equal to the name is
// that name alone (an item holding it, with others, would join longer);
// any other is read from the item's record, since a name may hold the
// ", " the names are joined with.
func listOf(ctx context.Context, d *kit.Deps, k nameKind, h holder, name string) ([]string, error) {
	if k.joined == nil || h.List != nil {
		return h.List, nil
	}
	if h.Joined == name {
		return []string{name}, nil
	}
	it, err := d.ReadItemRecord(ctx, h.ID)
	if err != nil {
		return nil, err
	}
	return k.list(it), nil
}

// auditOf is the audit that lists a kind's spellings.
func auditOf(k nameKind) string {
	if k.what == "narrator" {
		return "audit_people"
	}
	return "audit_tags_and_genres"
}

// showIDs puts the first shownIDs of changed into out, and says so when
// there were more.
func showIDs(out map[string]any, changed []string, why string) {
	shown := changed
	if len(shown) > shownIDs {
		shown = shown[:shownIDs]
		out["ids_cut"] = fmt.Sprintf("the first %d of %d item ids; %s", shownIDs, len(changed), why)
	}
	out["library_item_ids"] = shown
}

// titled lists holders for a question by title and id; "none" when
// there are none.
func titled(hs []holder) string {
	if len(hs) == 0 {
		return "none"
	}
	ts := make([]naming.Titled, len(hs))
	for i, h := range hs {
		ts[i] = naming.Titled{ID: h.ID, Name: h.Title}
	}
	return naming.ListTitled(ts)
}

// titledIDs lists ids for a question by the titles the holders read;
// "none" when there are none.
func titledIDs(ids []string, hs ...[]holder) string {
	if len(ids) == 0 {
		return "none"
	}
	byID := map[string]string{}
	for _, l := range hs {
		for _, h := range l {
			byID[h.ID] = h.Title
		}
	}
	return naming.ListTitled(naming.Titles(ids, byID))
}

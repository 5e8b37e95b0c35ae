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
// library items route, the list of an item it reads, the tool, and its
// argument names.
type nameKind struct {
	what, group, tool, oldArg, newArg string
	list                              func(*absdata.Item) []string
}

var (
	tagKind = nameKind{what: "tag", group: "tags", tool: "rename_tag", oldArg: "tag", newArg: "new_tag",
		list: func(it *absdata.Item) []string { return it.Media.Tags }}
	genreKind = nameKind{what: "genre", group: "genres", tool: "rename_genre", oldArg: "genre", newArg: "new_genre",
		list: func(it *absdata.Item) []string { return it.Media.Metadata.Genres }}
)

// PlanRenameTag plans rename_tag: POST /api/tags/rename, on every book
// and podcast of the server.
func PlanRenameTag(ctx context.Context, d *kit.Deps, a toolargs.RenameTag) (*kit.Plan, error) {
	return planRename(ctx, d, tagKind, a.Tag, a.NewTag, func(ctx context.Context) (*http.Response, error) {
		return d.API.RenameTag(ctx, abs.TagRename{Tag: a.Tag, NewTag: a.NewTag})
	})
}

// PlanRenameGenre plans rename_genre: POST /api/genres/rename, on every
// book and podcast of the server.
func PlanRenameGenre(ctx context.Context, d *kit.Deps, a toolargs.RenameGenre) (*kit.Plan, error) {
	return planRename(ctx, d, genreKind, a.Genre, a.NewGenre, func(ctx context.Context) (*http.Response, error) {
		return d.API.RenameGenre(ctx, abs.GenreRename{Genre: a.Genre, NewGenre: a.NewGenre})
	})
}

// holder is an item that holds the old or the new name, as read.
type holder struct {
	ID        string   `json:"id"`
	UpdatedAt int64    `json:"updatedAt"`
	List      []string `json:"list"`
}

// planRename reads, in every library the user sees, the items holding the
// old name and those holding the new one (Audiobookshelf's own filter,
// which compares names exactly, as the rename does), and says what the
// rename would do to them. Onto a name no item holds, where the old name
// is the last of every list that holds it, the rename back gives every
// list back exactly, so it does not ask; otherwise it asks.
func planRename(ctx context.Context, d *kit.Deps, k nameKind, oldName, newName string, send func(context.Context) (*http.Response, error)) (*kit.Plan, error) {
	for _, arg := range []struct{ name, v string }{{k.oldArg, oldName}, {k.newArg, newName}} {
		if strings.ContainsAny(arg.v, "\n\t") {
			return nil, kit.Errorf(kit.NotSent, "argument %q: must not contain control characters (a line break or a tab); a %s is one line of text.", arg.name, k.what)
		}
		if strings.TrimSpace(arg.v) == "" {
			return nil, kit.Errorf(kit.NotSent, "argument %q: must not be empty or only spaces.", arg.name)
		}
	}
	if oldName == newName {
		return nil, kit.Errorf(kit.NotSent, "arguments %q and %q: they are the same %s; give a different new name.", k.oldArg, k.newArg, k.what)
	}
	libs, err := readLibraries(ctx, d)
	if err != nil {
		return nil, err
	}
	var withOld, withNew []holder
	for _, l := range libs {
		for _, w := range []struct {
			name string
			into *[]holder
		}{{oldName, &withOld}, {newName, &withNew}} {
			items, err := walkItems(ctx, d, l.ID, filter(k.group, w.name), true)
			if err != nil {
				return nil, err
			}
			for i := range items {
				*w.into = append(*w.into, holder{items[i].ID, items[i].UpdatedAt, k.list(&items[i])})
			}
		}
	}
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
		n := 0
		for _, v := range h.List {
			if v == oldName {
				n++
			}
		}
		if n > 1 || len(h.List) == 0 || h.List[len(h.List)-1] != oldName {
			reordered = append(reordered, h.ID)
		}
	}
	plan := &kit.Plan{Targets: changed}
	if len(withNew) > 0 && len(changed) > 0 {
		plan.Effects = append(plan.Effects, EffectMergesNames)
		plan.Consequences = append(plan.Consequences, fmt.Sprintf(
			"The new name is already held by %d item(s) (%s), %d of them among those changed (%s): the two names become one there, and the rename back would take the name off every one of those items, not only the ones changed.",
			len(withNew), kit.ListIDs(ids(withNew)), len(both), listOrNone(both)))
	}
	if len(reordered) > 0 {
		plan.Effects = append(plan.Effects, EffectReordersNames)
		plan.Consequences = append(plan.Consequences, fmt.Sprintf(
			"On %d of them (%s) the %s is not the last of the item's %ss: Audiobookshelf puts the new name at the end, so the rename back would not give the order back.",
			len(reordered), kit.ListIDs(reordered), k.what, k.what))
	}
	if len(plan.Effects) > 0 {
		plan.Action = fmt.Sprintf("This will rename a %s on %d item(s) of the server, in every library: %s.", k.what, len(changed), kit.ListIDs(changed))
		plan.Read = struct {
			Old []holder `json:"old"`
			New []holder `json:"new"`
		}{withOld, withNew}
	}
	plan.Execute = func(ctx context.Context) (*mcp.CallToolResult, error) {
		if len(changed) == 0 {
			return kit.JSONResult(map[string]any{"renamed": false, "items_changed": 0,
				"note": fmt.Sprintf("No item of the libraries this user sees holds the %s (names are compared exactly: case and spaces count); nothing was sent. audit_tags_and_genres lists the spellings in use.", k.what)})
		}
		body, err := d.Mutate(ctx, k.what+" rename", send)
		if err != nil {
			return nil, err
		}
		var ans map[string]json.RawMessage
		_ = json.Unmarshal(body, &ans)
		var merged bool
		var updated int
		_ = json.Unmarshal(ans[k.what+"Merged"], &merged)
		_ = json.Unmarshal(ans["numItemsUpdated"], &updated)
		shown, cut := changed, ""
		if len(shown) > shownIDs {
			shown = shown[:shownIDs]
			cut = fmt.Sprintf("the first %d of %d item ids; the rename back needs none of them", shownIDs, len(changed))
		}
		out := map[string]any{"renamed": true, "items_changed": updated, "library_item_ids": shown}
		if cut != "" {
			out["ids_cut"] = cut
		}
		switch {
		case len(plan.Effects) > 0:
			out["not_put_back"] = "The person approved a rename that the rename back cannot undo exactly (a merge, or a changed order)."
		case merged || updated != len(changed):
			out["not_put_back"] = fmt.Sprintf("Audiobookshelf changed %d item(s) where %d were read%s: the %s changed in between, so a rename back might not give every item its list back; read the items first.",
				updated, len(changed), map[bool]string{true: " and found the new name already in use", false: ""}[merged], k.what)
		default:
			out["put_back"] = &kit.PutBack{Tool: k.tool, Arguments: map[string]any{k.oldArg: newName, k.newArg: oldName}}
		}
		return kit.JSONResult(out)
	}
	return plan, nil
}

// readLibraries is every library the user of the key sees.
func readLibraries(ctx context.Context, d *kit.Deps) ([]absdata.Library, error) {
	body, err := d.Get(ctx, "the library list", func(ctx context.Context) (*http.Response, error) { return d.API.ListLibraries(ctx) })
	if err != nil {
		return nil, err
	}
	var v struct {
		Libraries []absdata.Library `json:"libraries"`
	}
	if err := kit.Decode(body, &v); err != nil {
		return nil, err
	}
	return v.Libraries, nil
}

func ids(hs []holder) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.ID
	}
	return out
}

func listOrNone(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	return kit.ListIDs(ids)
}

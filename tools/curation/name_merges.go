package curation

import (
	"context"
	"fmt"
	"strings"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/guard"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// PlanMergeTags plans merge_tags: the tag rename, once for each name
// merged, one after the other.
func PlanMergeTags(ctx context.Context, d *kit.Deps, a toolargs.MergeTags) (*kit.Plan, error) {
	return planMerge(ctx, d, tagKind, a.Tags, a.IntoTag)
}

// PlanMergeGenres plans merge_genres: the genre rename, once for each
// name merged, one after the other.
func PlanMergeGenres(ctx context.Context, d *kit.Deps, a toolargs.MergeGenres) (*kit.Plan, error) {
	return planMerge(ctx, d, genreKind, a.Genres, a.IntoGenre)
}

// PlanMergeNarrators plans merge_narrators: the narrator rename, once for
// each name merged, one after the other.
func PlanMergeNarrators(ctx context.Context, d *kit.Deps, a toolargs.MergeNarrators) (*kit.Plan, error) {
	return planMerge(ctx, d, narratorKind, a.Narrators, a.IntoNarrator)
}

// merged is what one name of a merge came to, in the answer.
type merged struct {
	Name         string `json:"name"`
	ItemsChanged int    `json:"items_changed"`
	Sent         bool   `json:"sent"`
}

// planMerge reads the items holding each of the names and those holding
// the name they merge into, and asks, always: a merge takes a name out,
// and the rename back could not tell which items held which spelling.
// Approved, it sends the renames one after the other, in the order given,
// skipping a name no item holds; one that fails stops the rest, and the
// error says which were made and which not. Names no item holds at all
// are refused before anything is asked, and a user who does not see every
// item before anything is read (readHoldings).
func planMerge(ctx context.Context, d *kit.Deps, k nameKind, sources []string, into string) (*kit.Plan, error) {
	if err := checkName(k, k.intoArg, into); err != nil {
		return nil, err
	}
	for i, s := range sources {
		if err := checkName(k, fmt.Sprintf("%s[%d]", k.listArg, i), s); err != nil {
			return nil, err
		}
		if s == into {
			return nil, kit.Errorf(kit.NotSent, "arguments %q and %q: entry %d of %s is the %s merged into; list only the names to take out.", k.listArg, k.intoArg, i, k.listArg, k.what)
		}
	}
	h, err := readHoldings(ctx, d, k, k.mergeTool, append(append([]string{}, sources...), into))
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var changed, parts []string
	for _, s := range sources {
		for _, it := range h.by[s] {
			if !seen[it.ID] {
				seen[it.ID] = true
				changed = append(changed, it.ID)
			}
		}
		parts = append(parts, fmt.Sprintf("%s: %d item(s) (%s)", guard.Quote(s), len(h.by[s]), titled(h.by[s])))
	}
	if len(changed) == 0 {
		return nil, kit.Errorf(kit.NotAsked, "argument %q: no item of the libraries this user sees holds any of the %d names (names are compared exactly: case and spaces count), so there is nothing to merge. %s lists the spellings in use.", k.listArg, len(sources), auditOf(k))
	}
	plan := &kit.Plan{Targets: changed}
	quoted := make([]string, len(sources))
	for i, s := range sources {
		quoted[i] = guard.Quote(s)
	}
	var holders []holder
	for _, s := range sources {
		holders = append(holders, h.by[s]...)
	}
	plan.Action = fmt.Sprintf("This will merge the %d %ss %s into the one %s %s, on %d item(s) of the server, in every library: %s.",
		len(sources), k.what, strings.Join(quoted, ", "), k.what, guard.Quote(into), len(changed), titledIDs(changed, holders))
	plan.Consequences = append(plan.Consequences,
		"Items holding each name merged, in the order given: "+strings.Join(parts, "; ")+".",
		fmt.Sprintf("The name merged into, %s, is held by %d item(s) already (%s). The merged names cannot be split again from here: renaming back would take the name off every item holding it, and on items holding several of the names they become one, at the end of the item's %ss.",
			guard.Quote(into), len(h.by[into]), titled(h.by[into]), k.what))
	read := map[string][]holder{}
	for n, hs := range h.by {
		read[n] = hs
	}
	plan.Read = read
	plan.Execute = func(ctx context.Context) (*mcp.CallToolResult, error) {
		done := make([]merged, 0, len(sources))
		total := 0
		for i, s := range sources {
			if len(h.by[s]) == 0 {
				done = append(done, merged{Name: s})
				continue
			}
			n, _, err := h.rename(ctx, d, k, s, into)
			if err != nil {
				return nil, mergeFailed(k, sources, done, i, err)
			}
			// Counted as read: Audiobookshelf's count may take in items
			// changed since, which the answer does not describe.
			n = min(n, len(h.by[s]))
			total += n
			done = append(done, merged{Name: s, ItemsChanged: n, Sent: true})
		}
		out := map[string]any{"merged": true, "into": into, "names": done, "items_changed": total,
			"not_put_back": "A merge cannot be undone exactly: the rename back would take the name off every item holding it, and cannot tell which items held which spelling."}
		showIDs(out, changed, "they are the items holding the merged name now")
		return result.JSONResult(out)
	}
	return plan, nil
}

// mergeFailed is the error of a merge whose rename of sources[at] failed:
// which names were merged (with their counts), which one failed and how,
// and which were not tried.
func mergeFailed(k nameKind, sources []string, done []merged, at int, err error) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s stopped at name %d of %d, whose rename failed. For that name alone: %s", k.mergeTool, at+1, len(sources), strings.TrimSpace(err.Error()))
	var made, skipped []string
	for i, m := range done {
		if m.Sent {
			made = append(made, fmt.Sprintf("%s (name %d, %d item(s) changed)", kit.Quote(kit.Clip(m.Name, 100)), i+1, m.ItemsChanged))
		} else {
			skipped = append(skipped, fmt.Sprintf("%s (name %d)", kit.Quote(kit.Clip(m.Name, 100)), i+1))
		}
	}
	if len(made) > 0 {
		fmt.Fprintf(&b, " Merged before it: %s.", strings.Join(made, ", "))
	} else {
		b.WriteString(" No name was merged before it.")
	}
	if len(skipped) > 0 {
		fmt.Fprintf(&b, " Held by no item, so not sent: %s.", strings.Join(skipped, ", "))
	}
	if rest := sources[at+1:]; len(rest) > 0 {
		q := make([]string, len(rest))
		for i, s := range rest {
			q[i] = fmt.Sprintf("%s (name %d)", kit.Quote(kit.Clip(s, 100)), at+2+i)
		}
		fmt.Fprintf(&b, " Not tried: %s.", strings.Join(q, ", "))
	}
	fmt.Fprintf(&b, " Read the items back (%s) before calling %s again with the names left.", auditOf(k), k.mergeTool)
	return kit.Errorf(kit.Stated, "%s", b.String())
}

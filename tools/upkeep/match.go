package upkeep

import (
	"context"
	"fmt"
	"net/http"
	"slices"
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
func PlanMatchLibraryItem(ctx context.Context, d *kit.Deps, a toolargs.MatchLibraryItem) (*kit.Plan, error) {
	b, err := getBook(ctx, d, a.LibraryItemID, "match_library_item")
	if err != nil {
		return nil, err
	}
	var filled []string
	for _, k := range append(append([]string{}, editableFields...), matchOnlyFields...) {
		if holdsValue(b, k) {
			filled = append(filled, k)
		}
	}
	plan := &kit.Plan{Targets: []string{a.LibraryItemID}, Read: matchRead{ID: b.ID, UpdatedAt: b.UpdatedAt, Filled: filled}}
	if a.Override && len(filled) > 0 {
		plan.Effects = []string{EffectOverwritesFilledFields}
		plan.Action = fmt.Sprintf("This will replace up to %d filled field(s) of %s with the first result of provider %s: %s.", len(filled), naming.Named("book", b.Media.Metadata.Title.Value, a.LibraryItemID), guard.Quote(a.Provider), strings.Join(filled, ", "))
		plan.Consequences = []string{"Only the fields the provider has a value for change. The answer carries the old values; update_item_metadata can put back every field but a replaced cover."}
	}
	plan.Execute = func(ctx context.Context) (*mcp.CallToolResult, error) {
		provider := a.Provider
		// Both overrides are always sent: without them Audiobookshelf uses
		// its scannerPreferMatchedMetadata setting, which may override.
		body := abs.MatchLibraryItemJSONRequestBody{Provider: &provider, OverrideDetails: a.Override, OverrideCover: a.Override}
		rb, err := changeItem(ctx, d, a.LibraryItemID, func(ctx context.Context) (*http.Response, error) {
			return d.API.MatchLibraryItem(ctx, a.LibraryItemID, body)
		})
		if err != nil {
			return nil, err
		}
		var v struct {
			Warning     *string       `json:"warning"`
			Updated     bool          `json:"updated"`
			LibraryItem *absdata.Item `json:"libraryItem"`
		}
		if err := kit.Decode(rb, &v); err != nil {
			return nil, err
		}
		if v.Warning != nil && v.LibraryItem == nil {
			return result.JSONResult(map[string]any{"matched": false, "library_item_id": a.LibraryItemID, "provider": a.Provider,
				"warning": kit.Clip(kit.CleanText(*v.Warning), 200), "note": "The provider had no match; nothing was changed. Try another provider."})
		}
		after := v.LibraryItem
		readBack := after == nil
		if readBack {
			// Not an answer Audiobookshelf 2.36 gives ({updated,
			// libraryItem} after a match, {warning} without one): the
			// match may have changed the book all the same, so the book is
			// read back and compared with what was read before.
			after, err = d.ReadItemRecord(ctx, a.LibraryItemID)
			if err != nil {
				return nil, kit.Errorf(kit.MaybeChanged, `Audiobookshelf answered the quick match of library item %s without the item it matched (an answer of another shape than {updated, libraryItem} or {warning}), and reading the book back failed too, so whether the match changed it cannot be told. Look with get_library_item {"library_item_id": %q} and compare with what it held; update_item_metadata sets back a field.`, a.LibraryItemID, a.LibraryItemID)
			}
		}
		prev := map[string]any{}
		var changed []string
		for _, k := range append(append([]string{}, editableFields...), matchOnlyFields...) {
			if !sameValue(valueOf(b, k), valueOf(after, k)) {
				prev[k] = valueOf(b, k)
				changed = append(changed, k)
			}
		}
		out := map[string]any{"matched": true, "updated": v.Updated, "library_item_id": a.LibraryItemID, "provider": a.Provider, "changed": changed}
		if readBack {
			// What the book shows now is all that is known: the answer
			// said neither whether there was a match nor what it set.
			out["matched"] = len(changed) > 0
			out["read_back"] = "Audiobookshelf's answer to the match did not carry the item; the book was read back and compared with what it held before the match (a change somebody else made in between would show here too)."
		}
		if len(changed) == 0 {
			out["note"] = "The provider's first result had nothing to add or change."
			if readBack {
				out["note"] = "Read back, the book holds what it held before the match: nothing was changed."
			}
			return result.JSONResult(out)
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
		var pb *result.PutBack
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
				cover := &result.PutBack{Tool: "remove_item_cover", Arguments: map[string]any{"library_item_id": a.LibraryItemID},
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
		return result.JSONResult(out)
	}
	return plan, nil
}

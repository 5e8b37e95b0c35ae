package collections

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/argdec"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// PlanUpdateCollection plans update_collection. A new order must list the
// collection's current books exactly: Audiobookshelf uses it as a sort key,
// moving omitted books to the front and ignoring unknown ones, so anything
// else would not do what was asked.
func PlanUpdateCollection(ctx context.Context, d *kit.Deps, a toolargs.UpdateCollection) (*kit.Plan, error) {
	body := abs.UpdateCollectionJSONRequestBody{Name: a.Name, Description: a.Description}
	plan := &kit.Plan{Targets: []string{a.CollectionID}}
	// The collection is read first in every case: the answer carries what
	// the call replaces, and the call that puts it back.
	c, err := getCollection(ctx, d, a.CollectionID)
	if err != nil {
		return nil, err
	}
	prev, putBack, lost, lostWhy := collectionPutBack(c, a)
	if lost != "" {
		plan.Effects = append(plan.Effects, kit.EffectUnrestorableText)
		plan.Read = readOf(c)
		plan.Action = fmt.Sprintf("This will replace the %s of %s%s.", lost, kit.Named("collection", c.Name, a.CollectionID), kit.NewName(a.Name))
		plan.Consequences = []string{"The text it holds now could not be given back with update_collection: " + lostWhy + "."}
		plan.Consequences = append(plan.Consequences, sharedNote()...)
	}
	if a.LibraryItemIDs != nil {
		missing, extra := kit.SameMembers(c.BookIDs(), a.LibraryItemIDs)
		if len(missing) > 0 || len(extra) > 0 {
			var why []string
			if len(missing) > 0 {
				why = append(why, "it leaves out "+kit.ListIDs(missing)+" (to take books out use remove_books_from_collection)")
			}
			if len(extra) > 0 {
				why = append(why, kit.ListIDs(extra)+kit.PluralBe(len(extra))+" not in the collection (to add books use add_books_to_collection)")
			}
			return nil, kit.Errorf(kit.Unchanged, `argument "library_item_ids": must list each of the %d books of collection %s exactly once, in the new order; %s.`, len(c.Books), a.CollectionID, strings.Join(why, "; "))
		}
		books := a.LibraryItemIDs
		body.Books = &books
		moved := 0
		for i, id := range c.BookIDs() {
			if books[i] != id {
				moved++
			}
		}
		plan.Targets = append(plan.Targets, books...)
		plan.Read = readOf(c)
		plan.Action = fmt.Sprintf("This will reorder the %d book(s) of %s; %d of them change place.", len(books), kit.Named("collection", c.Name, a.CollectionID), moved)
		plan.Consequences = []string{"New order: " + kit.ListTitled(kit.Titles(books, kit.ItemTitles(c.Books))) + "."}
		if lost != "" {
			plan.Consequences = append(plan.Consequences, "The text it holds now could not be given back with update_collection: "+lostWhy+".")
		} else if a.Name != nil || a.Description != nil {
			plan.Consequences = append(plan.Consequences, "The name or description changes too.")
		}
		plan.Consequences = append(plan.Consequences, sharedNote()...)
	}
	plan.Execute = func(ctx context.Context) (*mcp.CallToolResult, error) {
		rb, err := d.Mutate(ctx, "collection "+a.CollectionID, func(ctx context.Context) (*http.Response, error) {
			return d.API.UpdateCollection(ctx, a.CollectionID, body)
		})
		if err != nil {
			return nil, err
		}
		var c absdata.Collection
		if err := kit.Decode(rb, &c); err != nil {
			return nil, err
		}
		out := map[string]any{"updated": true, "collection": collectionDetail(&c), "previous": prev}
		if lost != "" {
			out["not_put_back"] = "The old " + lost + " could not be given back with update_collection (" + lostWhy + "); it is in previous, whole."
		} else if putBack != nil {
			out["put_back"] = putBack
		}
		return kit.JSONResult(out)
	}
	return plan, nil
}

// collectionPutBack is what update_collection replaces and the call that
// gives it back. lost names what could not be given back exactly ("" when
// all can), and why says why: then the tool asks first.
func collectionPutBack(c *absdata.Collection, a toolargs.UpdateCollection) (prev map[string]any, pb *kit.PutBack, lost, why string) {
	prev = map[string]any{}
	args := map[string]any{"collection_id": c.ID}
	var lostParts, whys []string
	if a.Name != nil {
		prev["name"] = c.Name
		args["name"] = c.Name
		if n := argdec.RefusedControls(c.Name); n > 0 {
			lostParts = append(lostParts, "name")
			whys = append(whys, kit.ControlWhy("name", n))
		} else if utf8.RuneCountInString(c.Name) > kit.MaxNameLen || c.Name == "" {
			lostParts = append(lostParts, "name")
			whys = append(whys, kit.UnrestorableWhy("name", false, false))
		}
	}
	if a.Description != nil {
		prev["description"] = c.Description // whole; null when none
		args["description"] = absdata.Str(c.Description)
		if n := argdec.RefusedControls(absdata.Str(c.Description)); n > 0 {
			lostParts = append(lostParts, "description")
			whys = append(whys, kit.ControlWhy("description", n))
		} else if c.Description == nil || utf8.RuneCountInString(*c.Description) > kit.MaxDescriptionLen {
			lostParts = append(lostParts, "description")
			whys = append(whys, kit.UnrestorableWhy("description", c.Description == nil, false))
		}
	}
	note := ""
	if a.LibraryItemIDs != nil {
		prev["library_item_ids"] = c.BookIDs()
		args["library_item_ids"] = c.BookIDs()
		note = "Giving the old order back asks the person first, as every reorder does."
	}
	return prev, &kit.PutBack{Tool: "update_collection", Arguments: args, Note: note}, strings.Join(lostParts, " and "), strings.Join(whys, "; ")
}

// AddBooksToCollection is add_books_to_collection.
func AddBooksToCollection(ctx context.Context, d *kit.Deps, a toolargs.AddBooksToCollection) (*mcp.CallToolResult, error) {
	// The collection is read first: the answer names the books this call
	// added (not those already in it) and the call that takes them out.
	before, err := getCollection(ctx, d, a.CollectionID)
	if err != nil {
		return nil, err
	}
	had := map[string]bool{}
	for _, id := range before.BookIDs() {
		had[id] = true
	}
	var added []string
	for _, id := range a.LibraryItemIDs {
		if !had[id] {
			had[id] = true
			added = append(added, id)
		}
	}
	rb, err := d.Mutate(ctx, "collection "+a.CollectionID, func(ctx context.Context) (*http.Response, error) {
		return d.API.AddBooksToCollection(ctx, a.CollectionID, abs.AddBooksToCollectionJSONRequestBody{Books: a.LibraryItemIDs})
	})
	if err != nil {
		return nil, err
	}
	var c absdata.Collection
	if err := kit.Decode(rb, &c); err != nil {
		return nil, err
	}
	out := map[string]any{"updated": true, "collection": collectionDetail(&c)}
	if len(added) > 0 {
		out["put_back"] = &kit.PutBack{Tool: "remove_books_from_collection", Arguments: map[string]any{"collection_id": a.CollectionID, "library_item_ids": added},
			Note: "Takes out only the books this call appended, which leaves the old order; it asks the person first, as every removal does."}
	}
	return kit.JSONResult(out)
}

// PlanRemoveBooksFromCollection plans remove_books_from_collection.
func PlanRemoveBooksFromCollection(ctx context.Context, d *kit.Deps, a toolargs.RemoveBooksFromCollection) (*kit.Plan, error) {
	c, err := getCollection(ctx, d, a.CollectionID)
	if err != nil {
		return nil, err
	}
	_, extra := kit.SameMembers(c.BookIDs(), a.LibraryItemIDs)
	if len(extra) > 0 {
		return nil, kit.Errorf(kit.Unchanged, `argument "library_item_ids": %s not in collection %s (get_collection lists its books).`, kit.ListIDs(extra)+kit.PluralBe(len(extra)), a.CollectionID)
	}
	stay := len(c.Books) - len(a.LibraryItemIDs)
	plan := &kit.Plan{
		Targets: append([]string{a.CollectionID}, a.LibraryItemIDs...),
		Action: fmt.Sprintf("This will remove %d book(s) (%s) from %s; %d stay.", len(a.LibraryItemIDs), kit.ListTitled(kit.Titles(a.LibraryItemIDs, kit.ItemTitles(c.Books))),
			kit.Named("collection", c.Name, a.CollectionID), stay),
		Read: readOf(c),
	}
	if stay == 0 {
		plan.Consequences = []string{"These are all of its books: the collection stays, empty."}
	}
	plan.Consequences = append(plan.Consequences, sharedNote()...)
	plan.Execute = func(ctx context.Context) (*mcp.CallToolResult, error) {
		rb, err := d.Mutate(ctx, "collection "+a.CollectionID, func(ctx context.Context) (*http.Response, error) {
			return d.API.RemoveBooksFromCollection(ctx, a.CollectionID, abs.RemoveBooksFromCollectionJSONRequestBody{Books: a.LibraryItemIDs})
		})
		if err != nil {
			return nil, err
		}
		var c absdata.Collection
		if err := kit.Decode(rb, &c); err != nil {
			return nil, err
		}
		return kit.JSONResult(map[string]any{"removed": len(a.LibraryItemIDs), "collection": collectionDetail(&c)})
	}
	return plan, nil
}

// PlanDeleteCollection plans delete_collection.
func PlanDeleteCollection(ctx context.Context, d *kit.Deps, a toolargs.DeleteCollection) (*kit.Plan, error) {
	c, err := getCollection(ctx, d, a.CollectionID)
	if err != nil {
		return nil, err
	}
	return &kit.Plan{
		Targets:      []string{a.CollectionID},
		Action:       fmt.Sprintf("This will delete %s with its %d book(s) in their order.", kit.Named("collection", c.Name, a.CollectionID), len(c.Books)),
		Consequences: sharedNote(),
		Read:         readOf(c),
		Execute: func(ctx context.Context) (*mcp.CallToolResult, error) {
			_, err := d.Mutate(ctx, "collection "+a.CollectionID, func(ctx context.Context) (*http.Response, error) {
				return d.API.DeleteCollection(ctx, a.CollectionID)
			})
			if err != nil {
				return nil, err
			}
			return kit.JSONResult(map[string]any{"deleted": true, "collection_id": a.CollectionID, "books_kept_in_library": len(c.Books)})
		},
	}, nil
}

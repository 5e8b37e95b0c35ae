package collections

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/naming"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/orderedlist"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// PlanUpdateCollection plans update_collection. A new order must list the
// collection's current books exactly: Audiobookshelf uses it as a sort key,
// moving omitted books to the front and ignoring unknown ones, so anything
// else would not do what was asked.
func PlanUpdateCollection(ctx context.Context, d *kit.Deps, a toolargs.UpdateCollection) (*kit.Plan, error) {
	// The collection is read first in every case: the answer carries what
	// the call replaces, and the call that puts it back.
	c, _, err := getCollection(ctx, d, a.CollectionID)
	if err != nil {
		return nil, err
	}
	body := abs.UpdateCollectionJSONRequestBody{Name: a.Name, Description: a.Description}
	u := orderedlist.Update{ID: a.CollectionID, Name: c.Name, Description: c.Description, NewName: a.Name, NewDescription: a.Description,
		Read: readOf(c), Show: orderedlist.Shows(collectionDetail),
		Send: func(ctx context.Context) (*http.Response, error) {
			return d.API.UpdateCollection(ctx, a.CollectionID, body)
		}}
	if a.LibraryItemIDs != nil {
		missing, extra := result.SameMembers(c.BookIDs(), a.LibraryItemIDs)
		if len(missing) > 0 || len(extra) > 0 {
			var why []string
			if len(missing) > 0 {
				why = append(why, "it leaves out "+result.ListIDs(missing)+" (to take books out use remove_books_from_collection)")
			}
			if len(extra) > 0 {
				why = append(why, result.ListIDs(extra)+result.PluralBe(len(extra))+" not in the collection (to add books use add_books_to_collection)")
			}
			return nil, kit.Errorf(kit.Unchanged, `argument "library_item_ids": must list each of the %d books of collection %s exactly once, in the new order; %s.`, len(c.Books), a.CollectionID, strings.Join(why, "; "))
		}
		books := a.LibraryItemIDs
		body.Books = &books
		u.Order = &orderedlist.Reorder{IDs: books, Moved: orderedlist.Moved(c.BookIDs(), books),
			Titles: naming.Titles(books, naming.ItemTitles(c.Books)), Old: c.BookIDs()}
	}
	return kind.PlanUpdate(d, u), nil
}

// AddBooksToCollection is add_books_to_collection.
func AddBooksToCollection(ctx context.Context, d *kit.Deps, a toolargs.AddBooksToCollection) (*mcp.CallToolResult, error) {
	// The collection is read first: the answer names the books this call
	// added (not those already in it) and the call that takes them out.
	before, _, err := getCollection(ctx, d, a.CollectionID)
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
	c, err := orderedlist.Change[absdata.Collection](ctx, d, "collection "+a.CollectionID, func(ctx context.Context) (*http.Response, error) {
		return d.API.AddBooksToCollection(ctx, a.CollectionID, abs.AddBooksToCollectionJSONRequestBody{Books: a.LibraryItemIDs})
	})
	if err != nil {
		return nil, err
	}
	out := map[string]any{"updated": true, "collection": collectionDetail(c)}
	if len(added) > 0 {
		out["put_back"] = &result.PutBack{Tool: "remove_books_from_collection", Arguments: map[string]any{"collection_id": a.CollectionID, "library_item_ids": added},
			Note: "Takes out only the books this call appended, which leaves the old order; it asks the person first, as every removal does."}
	}
	return result.JSONResult(out)
}

// PlanRemoveBooksFromCollection plans remove_books_from_collection.
func PlanRemoveBooksFromCollection(ctx context.Context, d *kit.Deps, a toolargs.RemoveBooksFromCollection) (*kit.Plan, error) {
	c, _, err := getCollection(ctx, d, a.CollectionID)
	if err != nil {
		return nil, err
	}
	_, extra := result.SameMembers(c.BookIDs(), a.LibraryItemIDs)
	if len(extra) > 0 {
		return nil, kit.Errorf(kit.Unchanged, `argument "library_item_ids": %s not in collection %s (get_collection lists its books).`, result.ListIDs(extra)+result.PluralBe(len(extra)), a.CollectionID)
	}
	stay := len(c.Books) - len(a.LibraryItemIDs)
	plan := &kit.Plan{
		Targets: append([]string{a.CollectionID}, a.LibraryItemIDs...),
		Action: fmt.Sprintf("This will remove %d book(s) (%s) from %s; %d stay.", len(a.LibraryItemIDs), naming.ListTitled(naming.Titles(a.LibraryItemIDs, naming.ItemTitles(c.Books))),
			naming.Named("collection", c.Name, a.CollectionID), stay),
		Read: readOf(c),
	}
	if stay == 0 {
		plan.Consequences = []string{"These are all of its books: the collection stays, empty."}
	}
	plan.Consequences = append(plan.Consequences, kind.Notes...)
	plan.Execute = func(ctx context.Context) (*mcp.CallToolResult, error) {
		after, err := orderedlist.Change[absdata.Collection](ctx, d, "collection "+a.CollectionID, func(ctx context.Context) (*http.Response, error) {
			return d.API.RemoveBooksFromCollection(ctx, a.CollectionID, abs.RemoveBooksFromCollectionJSONRequestBody{Books: a.LibraryItemIDs})
		})
		if err != nil {
			return nil, err
		}
		return result.JSONResult(map[string]any{"removed": len(a.LibraryItemIDs), "collection": collectionDetail(after)})
	}
	return plan, nil
}

// PlanDeleteCollection plans delete_collection.
func PlanDeleteCollection(ctx context.Context, d *kit.Deps, a toolargs.DeleteCollection) (*kit.Plan, error) {
	c, _, err := getCollection(ctx, d, a.CollectionID)
	if err != nil {
		return nil, err
	}
	return kind.PlanDelete(d, orderedlist.Delete{ID: a.CollectionID, Name: c.Name, Count: len(c.Books), Read: readOf(c),
		Send:   func(ctx context.Context) (*http.Response, error) { return d.API.DeleteCollection(ctx, a.CollectionID) },
		Answer: map[string]any{"books_kept_in_library": len(c.Books)}}), nil
}

package tools

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
)

type absCollection struct {
	ID          string    `json:"id"`
	LibraryID   string    `json:"libraryId"`
	UserID      string    `json:"userId"`
	Name        string    `json:"name"`
	Description *string   `json:"description"`
	Books       []absItem `json:"books"`
	LastUpdate  int64     `json:"lastUpdate"`
	CreatedAt   int64     `json:"createdAt"`
}

// collectionRead is what an approval about a collection is bound to: its
// books in their order and its updatedAt (lastUpdate), which Audiobookshelf
// moves on a rename or a reorder (CollectionController.update) but not on a
// batch add or remove.
type collectionRead struct {
	ID         string   `json:"id"`
	LastUpdate int64    `json:"lastUpdate"`
	Books      []string `json:"books"`
}

func (c *absCollection) read() collectionRead {
	return collectionRead{ID: c.ID, LastUpdate: c.LastUpdate, Books: c.bookIDs()}
}

func (c *absCollection) bookIDs() []string {
	ids := make([]string, 0, len(c.Books))
	for _, b := range c.Books {
		ids = append(ids, b.ID)
	}
	return ids
}

// CollectionBrief is a collection in a list.
type CollectionBrief struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	LibraryID string `json:"library_id"`
	Books     int    `json:"books"`
}

// CollectionDetail is one collection with its books in order.
type CollectionDetail struct {
	ID                string      `json:"id"`
	Name              string      `json:"name"`
	LibraryID         string      `json:"library_id"`
	Description       string      `json:"description,omitempty"`
	DescriptionLength int         `json:"description_length,omitempty"`
	DescriptionCut    string      `json:"description_cut,omitempty"`
	Updated           string      `json:"updated,omitempty"`
	Books             []ItemBrief `json:"books"`
	// Cut says how many books are left out of a write's answer.
	Cut map[string]Cut `json:"cut,omitempty"`
}

func (c *absCollection) description() string {
	if c.Description == nil {
		return ""
	}
	return *c.Description
}

// collectionDetail is the collection with its first ListCap books (a write's
// answer; get_collection pages them).
func collectionDetail(c *absCollection) CollectionDetail {
	out := collectionAll(c)
	cuts := map[string]Cut{}
	out.Books = firstOf(out.Books, ListCap, "get_collection with page and limit", cuts, "books")
	if len(cuts) > 0 {
		out.Cut = cuts
	}
	return out
}

func collectionAll(c *absCollection) CollectionDetail {
	out := CollectionDetail{ID: c.ID, Name: c.Name, LibraryID: c.LibraryID, Updated: date(c.LastUpdate), Books: []ItemBrief{}}
	out.Description, out.DescriptionLength, out.DescriptionCut = excerpt(c.description(), ListTextLimit,
		fmt.Sprintf(`get_collection {"collection_id": %q, "detail": "full"}`, c.ID))
	for i := range c.Books {
		b := brief(&c.Books[i], nil)
		b.Added = ""
		out.Books = append(out.Books, b)
	}
	return out
}

func (d *Deps) getCollection(ctx context.Context, id string) (*absCollection, *mcp.CallToolResult) {
	c, _, res := d.getCollectionRaw(ctx, id)
	return c, res
}

// getCollectionRaw reads a collection, and returns Audiobookshelf's JSON too.
func (d *Deps) getCollectionRaw(ctx context.Context, id string) (*absCollection, []byte, *mcp.CallToolResult) {
	body, res := d.get(ctx, "collection "+id, func(ctx context.Context) (*http.Response, error) {
		return d.API.GetCollection(ctx, id)
	})
	if res != nil {
		return nil, nil, res
	}
	var c absCollection
	if res := decode(body, &c); res != nil {
		return nil, nil, res
	}
	return &c, body, nil
}

// ListCollections is list_collections.
func ListCollections(ctx context.Context, d *Deps, a toolargs.ListCollections) (*mcp.CallToolResult, error) {
	body, res := d.get(ctx, "the collections", func(ctx context.Context) (*http.Response, error) {
		if a.LibraryID != nil {
			// One library's route pages (LibraryController): only the
			// page is sent; the server-wide route sends every one.
			return d.API.ListLibraryCollections(ctx, *a.LibraryID, &abs.ListLibraryCollectionsParams{Limit: ptrOf(int(a.Limit)), Page: ptrOf(int(a.Page))})
		}
		return d.API.ListCollections(ctx)
	})
	if res != nil {
		if a.LibraryID == nil {
			res = everyOneTooLarge(res, "collection", "list_collections")
		}
		return res, nil
	}
	var v struct {
		Collections []absCollection `json:"collections"`
		Results     []absCollection `json:"results"`
		Total       *int            `json:"total"`
	}
	if res := decode(body, &v); res != nil {
		return res, nil
	}
	cs := pageOf(v.Collections, int(a.Page), int(a.Limit))
	total := len(v.Collections)
	if a.LibraryID != nil {
		// Audiobookshelf sent the page.
		cs = v.Results
		total = len(cs)
		if v.Total != nil {
			total = *v.Total
		}
	}
	out := make([]CollectionBrief, 0, len(cs))
	for _, c := range cs {
		out = append(out, CollectionBrief{ID: c.ID, Name: c.Name, LibraryID: c.LibraryID, Books: len(c.Books)})
	}
	return pageResult(d, "collections", out, total, int(a.Page), int(a.Limit)), nil
}

// GetCollection is get_collection.
func GetCollection(ctx context.Context, d *Deps, a toolargs.GetCollection) (*mcp.CallToolResult, error) {
	c, body, res := d.getCollectionRaw(ctx, a.CollectionID)
	if res != nil {
		return res, nil
	}
	if full(a.Detail) {
		return rawResult(body), nil
	}
	all := collectionAll(c)
	return pageResult(d, "books", pageOf(all.Books, int(a.Page), int(a.Limit)), len(all.Books), int(a.Page), int(a.Limit),
		field{"id", all.ID}, field{"name", all.Name}, field{"library_id", all.LibraryID}, field{"description", all.Description},
		field{"description_length", all.DescriptionLength}, field{"description_cut", all.DescriptionCut}, field{"updated", all.Updated}), nil
}

// CreateCollection is create_collection.
func CreateCollection(ctx context.Context, d *Deps, a toolargs.CreateCollection) (*mcp.CallToolResult, error) {
	body, res := d.mutate(ctx, "a new collection in library "+a.LibraryID, func(ctx context.Context) (*http.Response, error) {
		return d.API.CreateCollection(ctx, abs.CreateCollectionJSONRequestBody{
			LibraryId: a.LibraryID, Name: a.Name, Description: a.Description, Books: a.LibraryItemIDs,
		})
	})
	if res != nil {
		return res, nil
	}
	var c absCollection
	if res := decode(body, &c); res != nil {
		return res, nil
	}
	return jsonResult(map[string]any{"created": true, "collection": collectionDetail(&c),
		"put_back": &PutBack{Tool: "delete_collection", Arguments: map[string]any{"collection_id": c.ID},
			Note: "Deleting it asks the person first, as every delete does."}}), nil
}

// sameMembers reports how want differs from have as sets.
func sameMembers(have, want []string) (missing, extra []string) {
	in := make(map[string]bool, len(have))
	for _, h := range have {
		in[h] = true
	}
	wanted := make(map[string]bool, len(want))
	for _, w := range want {
		wanted[w] = true
		if !in[w] {
			extra = append(extra, w)
		}
	}
	for _, h := range have {
		if !wanted[h] {
			missing = append(missing, h)
		}
	}
	return missing, extra
}

func listIDs(ids []string) string {
	if len(ids) > 10 {
		return strings.Join(ids[:10], ", ") + fmt.Sprintf(" and %d more", len(ids)-10)
	}
	return strings.Join(ids, ", ")
}

// PlanUpdateCollection plans update_collection. A new order must list the
// collection's current books exactly: Audiobookshelf uses it as a sort key,
// moving omitted books to the front and ignoring unknown ones, so anything
// else would not do what was asked.
func PlanUpdateCollection(ctx context.Context, d *Deps, a toolargs.UpdateCollection) (*Plan, *mcp.CallToolResult) {
	body := abs.UpdateCollectionJSONRequestBody{Name: a.Name, Description: a.Description}
	plan := &Plan{Targets: []string{a.CollectionID}}
	// The collection is read first in every case: the answer carries what
	// the call replaces, and the call that puts it back.
	c, res := d.getCollection(ctx, a.CollectionID)
	if res != nil {
		return nil, res
	}
	prev, putBack, lost := collectionPutBack(c, a)
	if lost != "" {
		plan.Effects = append(plan.Effects, EffectUnrestorableText)
		plan.Read = c.read()
		plan.Action = fmt.Sprintf("This will replace the %s of collection %s.", lost, a.CollectionID)
		plan.Consequences = []string{"The text it holds now could not be given back with update_collection: " + unrestorableWhy(lost, c.Description == nil, false) + "."}
		plan.Consequences = append(plan.Consequences, sharedNote()...)
	}
	if a.LibraryItemIDs != nil {
		missing, extra := sameMembers(c.bookIDs(), a.LibraryItemIDs)
		if len(missing) > 0 || len(extra) > 0 {
			var why []string
			if len(missing) > 0 {
				why = append(why, "it leaves out "+listIDs(missing)+" (to take books out use remove_books_from_collection)")
			}
			if len(extra) > 0 {
				why = append(why, listIDs(extra)+pluralBe(len(extra))+" not in the collection (to add books use add_books_to_collection)")
			}
			return nil, errorResult(`argument "library_item_ids": must list each of the %d books of collection %s exactly once, in the new order; %s. Nothing was changed.`, len(c.Books), a.CollectionID, strings.Join(why, "; "))
		}
		books := a.LibraryItemIDs
		body.Books = &books
		moved := 0
		for i, id := range c.bookIDs() {
			if books[i] != id {
				moved++
			}
		}
		plan.Targets = append(plan.Targets, books...)
		plan.Read = c.read()
		plan.Action = fmt.Sprintf("This will reorder the %d book(s) of collection %s; %d of them change place.", len(books), a.CollectionID, moved)
		plan.Consequences = []string{"New order: " + listIDs(books) + "."}
		if lost != "" {
			plan.Consequences = append(plan.Consequences, "The text it holds now could not be given back with update_collection: "+unrestorableWhy(lost, c.Description == nil, false)+".")
		} else if a.Name != nil || a.Description != nil {
			plan.Consequences = append(plan.Consequences, "The name or description changes too.")
		}
		plan.Consequences = append(plan.Consequences, sharedNote()...)
	}
	plan.Execute = func(ctx context.Context) (*mcp.CallToolResult, error) {
		rb, res := d.mutate(ctx, "collection "+a.CollectionID, func(ctx context.Context) (*http.Response, error) {
			return d.API.UpdateCollection(ctx, a.CollectionID, body)
		})
		if res != nil {
			return res, nil
		}
		var c absCollection
		if res := decode(rb, &c); res != nil {
			return res, nil
		}
		out := map[string]any{"updated": true, "collection": collectionDetail(&c), "previous": prev}
		if putBack != nil {
			out["put_back"] = putBack
		}
		return jsonResult(out), nil
	}
	return plan, nil
}

// EffectUnrestorableText is the effect of update_collection and
// update_playlist that makes them ask (tools.yaml): the call replaces a
// name or description that the put-back could not give back exactly.
const EffectUnrestorableText = "replaces_unrestorable_text"

// unrestorableWhy says why the text named by lost ("description", "name",
// "name and description") could not be given back.
func unrestorableWhy(lost string, nullDescription, playlist bool) string {
	switch {
	case lost == "name":
		return fmt.Sprintf("the name is longer than the %d characters the tool takes", maxNameLen)
	case playlist:
		return fmt.Sprintf("the playlist has no description now, or one longer than the %d characters the tool takes, and Audiobookshelf ignores an empty description on a playlist, so none could be given back", maxDescriptionLen)
	case nullDescription:
		return "the collection has no description at all now (Audiobookshelf holds null), and the tool can give back only text, not null"
	}
	return fmt.Sprintf("the text is longer than the %d characters the tool takes", maxDescriptionLen)
}

// collectionPutBack is what update_collection replaces and the call that
// gives it back. lost names what could not be given back exactly ("" when
// all can): then the tool asks first.
func collectionPutBack(c *absCollection, a toolargs.UpdateCollection) (prev map[string]any, pb *PutBack, lost string) {
	prev = map[string]any{}
	args := map[string]any{"collection_id": c.ID}
	var lostParts []string
	if a.Name != nil {
		prev["name"] = c.Name
		args["name"] = c.Name
		if utf8.RuneCountInString(c.Name) > maxNameLen || c.Name == "" {
			lostParts = append(lostParts, "name")
		}
	}
	if a.Description != nil {
		prev["description"] = c.Description // whole; null when none
		args["description"] = c.description()
		if c.Description == nil || utf8.RuneCountInString(*c.Description) > maxDescriptionLen {
			lostParts = append(lostParts, "description")
		}
	}
	note := ""
	if a.LibraryItemIDs != nil {
		prev["library_item_ids"] = c.bookIDs()
		args["library_item_ids"] = c.bookIDs()
		note = "Giving the old order back asks the person first, as every reorder does."
	}
	return prev, &PutBack{Tool: "update_collection", Arguments: args, Note: note}, strings.Join(lostParts, " and ")
}

// AddBooksToCollection is add_books_to_collection.
func AddBooksToCollection(ctx context.Context, d *Deps, a toolargs.AddBooksToCollection) (*mcp.CallToolResult, error) {
	// The collection is read first: the answer names the books this call
	// added (not those already in it) and the call that takes them out.
	before, res := d.getCollection(ctx, a.CollectionID)
	if res != nil {
		return res, nil
	}
	had := map[string]bool{}
	for _, id := range before.bookIDs() {
		had[id] = true
	}
	var added []string
	for _, id := range a.LibraryItemIDs {
		if !had[id] {
			had[id] = true
			added = append(added, id)
		}
	}
	rb, res := d.mutate(ctx, "collection "+a.CollectionID, func(ctx context.Context) (*http.Response, error) {
		return d.API.AddBooksToCollection(ctx, a.CollectionID, abs.AddBooksToCollectionJSONRequestBody{Books: a.LibraryItemIDs})
	})
	if res != nil {
		return res, nil
	}
	var c absCollection
	if res := decode(rb, &c); res != nil {
		return res, nil
	}
	out := map[string]any{"updated": true, "collection": collectionDetail(&c)}
	if len(added) > 0 {
		out["put_back"] = &PutBack{Tool: "remove_books_from_collection", Arguments: map[string]any{"collection_id": a.CollectionID, "library_item_ids": added},
			Note: "Takes out only the books this call appended, which leaves the old order; it asks the person first, as every removal does."}
	}
	return jsonResult(out), nil
}

// PlanRemoveBooksFromCollection plans remove_books_from_collection.
func PlanRemoveBooksFromCollection(ctx context.Context, d *Deps, a toolargs.RemoveBooksFromCollection) (*Plan, *mcp.CallToolResult) {
	c, res := d.getCollection(ctx, a.CollectionID)
	if res != nil {
		return nil, res
	}
	_, extra := sameMembers(c.bookIDs(), a.LibraryItemIDs)
	if len(extra) > 0 {
		return nil, errorResult(`argument "library_item_ids": %s not in collection %s (get_collection lists its books). Nothing was changed.`, listIDs(extra)+pluralBe(len(extra)), a.CollectionID)
	}
	stay := len(c.Books) - len(a.LibraryItemIDs)
	plan := &Plan{
		Targets: append([]string{a.CollectionID}, a.LibraryItemIDs...),
		Action:  fmt.Sprintf("This will remove %d book(s) from collection %s; %d stay.", len(a.LibraryItemIDs), a.CollectionID, stay),
		Read:    c.read(),
	}
	if stay == 0 {
		plan.Consequences = []string{"These are all of its books: the collection stays, empty."}
	}
	plan.Consequences = append(plan.Consequences, sharedNote()...)
	plan.Execute = func(ctx context.Context) (*mcp.CallToolResult, error) {
		rb, res := d.mutate(ctx, "collection "+a.CollectionID, func(ctx context.Context) (*http.Response, error) {
			return d.API.RemoveBooksFromCollection(ctx, a.CollectionID, abs.RemoveBooksFromCollectionJSONRequestBody{Books: a.LibraryItemIDs})
		})
		if res != nil {
			return res, nil
		}
		var c absCollection
		if res := decode(rb, &c); res != nil {
			return res, nil
		}
		return jsonResult(map[string]any{"removed": len(a.LibraryItemIDs), "collection": collectionDetail(&c)}), nil
	}
	return plan, nil
}

// sharedNote is what every question about a collection adds: collections
// belong to the whole Audiobookshelf server (CollectionController lets
// every user with the permission change any of them, and Audiobookshelf
// 2.36 keeps no record of who made one), so the change reaches everyone
// who sees the library. Fixed wording: no name, no id.
func sharedNote() []string {
	return []string{"Collections are shared by everyone on this Audiobookshelf server (it keeps no owner for them): the change reaches every user who sees this library."}
}

func pluralBe(n int) string {
	if n == 1 {
		return " is"
	}
	return " are"
}

// PlanDeleteCollection plans delete_collection.
func PlanDeleteCollection(ctx context.Context, d *Deps, a toolargs.DeleteCollection) (*Plan, *mcp.CallToolResult) {
	c, res := d.getCollection(ctx, a.CollectionID)
	if res != nil {
		return nil, res
	}
	return &Plan{
		Targets:      []string{a.CollectionID},
		Action:       fmt.Sprintf("This will delete collection %s with its %d book(s) in their order.", a.CollectionID, len(c.Books)),
		Consequences: sharedNote(),
		Read:         c.read(),
		Execute: func(ctx context.Context) (*mcp.CallToolResult, error) {
			_, res := d.mutate(ctx, "collection "+a.CollectionID, func(ctx context.Context) (*http.Response, error) {
				return d.API.DeleteCollection(ctx, a.CollectionID)
			})
			if res != nil {
				return res, nil
			}
			return jsonResult(map[string]any{"deleted": true, "collection_id": a.CollectionID, "books_kept_in_library": len(c.Books)}), nil
		},
	}, nil
}

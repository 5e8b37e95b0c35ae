package collections

import (
	"context"
	"net/http"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/compact"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/orderedlist"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// collectionRead is what an approval about a collection is bound to: its
// books in their order and its updatedAt (lastUpdate), which Audiobookshelf
// moves on a rename or a reorder (CollectionController.update) but not on a
// batch add or remove.
type collectionRead struct {
	ID         string   `json:"id"`
	LastUpdate int64    `json:"lastUpdate"`
	Books      []string `json:"books"`
}

func readOf(c *absdata.Collection) collectionRead {
	return collectionRead{ID: c.ID, LastUpdate: c.LastUpdate, Books: c.BookIDs()}
}

// kind is a collection as the tools it shares with playlists see it.
// Collections belong to the whole Audiobookshelf server
// (CollectionController lets every user with the permission change any of
// them, and Audiobookshelf 2.36 keeps no record of who made one), so the
// change reaches everyone who sees the library: every question says so, in
// fixed wording (no name, no id).
var kind = orderedlist.Kind{Noun: "collection", Entries: "books", Counted: "book(s)", IDParam: "collection_id", OrderParam: "library_item_ids",
	Notes: []string{"Collections are shared by everyone on this Audiobookshelf server (it keeps no owner for them): the change reaches every user who sees this library."}}

// CollectionBrief is a collection in a list.
type CollectionBrief struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	LibraryID string `json:"library_id"`
	Books     int    `json:"books"`
}

// CollectionDetail is one collection with its books in order.
type CollectionDetail struct {
	orderedlist.Head
	Books []compact.ItemBrief `json:"books"`
	// Cut says how many books are left out of a write's answer.
	Cut map[string]result.Cut `json:"cut,omitempty"`
}

// collectionDetail is the collection with its first ListCap books, each
// by id and title alone (a write's answer; get_collection pages them, in
// compact form).
func collectionDetail(c *absdata.Collection) CollectionDetail {
	out := collectionAll(c)
	for i, b := range out.Books {
		out.Books[i] = compact.ItemBrief{ID: b.ID, Title: b.Title}
	}
	out.Books, out.Cut = orderedlist.First(kind, out.Books)
	return out
}

func collectionAll(c *absdata.Collection) CollectionDetail {
	out := CollectionDetail{Head: kind.HeadOf(c.ID, c.Name, c.LibraryID, c.Description, compact.Date(c.LastUpdate)), Books: []compact.ItemBrief{}}
	for i := range c.Books {
		b := compact.Brief(&c.Books[i], nil)
		b.Added = ""
		out.Books = append(out.Books, b)
	}
	return out
}

// getCollection reads a collection, and returns Audiobookshelf's JSON too.
func getCollection(ctx context.Context, d *kit.Deps, id string) (*absdata.Collection, []byte, error) {
	return orderedlist.Read[absdata.Collection](ctx, d, "collection "+id, func(ctx context.Context) (*http.Response, error) {
		return d.API.GetCollection(ctx, id)
	})
}

// ListCollections is list_collections.
func ListCollections(ctx context.Context, d *kit.Deps, a toolargs.ListCollections) (*mcp.CallToolResult, error) {
	return result.ListLibraryOrServer(ctx, d, result.ListRoutes{Noun: "collection", Tool: "list_collections",
		Library: func(ctx context.Context, id string, p result.Paging) (*http.Response, error) {
			return d.API.ListLibraryCollections(ctx, id, &abs.ListLibraryCollectionsParams{Limit: &p.Limit, Page: &p.Page})
		},
		Server: func(ctx context.Context) (*http.Response, error) { return d.API.ListCollections(ctx) },
	}, a.LibraryID, result.PagingOf(a.Page, a.Limit), briefOf)
}

// briefOf is a collection in a list.
func briefOf(c *absdata.Collection) CollectionBrief {
	return CollectionBrief{ID: c.ID, Name: c.Name, LibraryID: c.LibraryID, Books: len(c.Books)}
}

// GetCollection is get_collection.
func GetCollection(ctx context.Context, d *kit.Deps, a toolargs.GetCollection) (*mcp.CallToolResult, error) {
	read := func() (*absdata.Collection, []byte, error) { return getCollection(ctx, d, a.CollectionID) }
	return orderedlist.Get(d, kind, read, a.Detail, a.Page, a.Limit, func(c *absdata.Collection) (orderedlist.Head, []compact.ItemBrief) {
		all := collectionAll(c)
		return all.Head, all.Books
	})
}

// CreateCollection is create_collection.
func CreateCollection(ctx context.Context, d *kit.Deps, a toolargs.CreateCollection) (*mcp.CallToolResult, error) {
	c, err := orderedlist.Change[absdata.Collection](ctx, d, "a new collection in library "+a.LibraryID, func(ctx context.Context) (*http.Response, error) {
		return d.API.CreateCollection(ctx, abs.CreateCollectionJSONRequestBody{
			LibraryId: a.LibraryID, Name: a.Name, Description: a.Description, Books: a.LibraryItemIDs,
		})
	})
	if err != nil {
		return nil, err
	}
	return result.JSONResult(map[string]any{"created": true, "collection": collectionDetail(c),
		"put_back": &result.PutBack{Tool: "delete_collection", Arguments: map[string]any{"collection_id": c.ID},
			Note: "Deleting it asks the person first."}})
}

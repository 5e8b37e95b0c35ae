package collections

import (
	"context"
	"fmt"
	"net/http"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/compact"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
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

// CollectionBrief is a collection in a list.
type CollectionBrief struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	LibraryID string `json:"library_id"`
	Books     int    `json:"books"`
}

// CollectionDetail is one collection with its books in order.
type CollectionDetail struct {
	ID                string              `json:"id"`
	Name              string              `json:"name"`
	LibraryID         string              `json:"library_id"`
	Description       string              `json:"description,omitempty"`
	DescriptionLength int                 `json:"description_length,omitempty"`
	DescriptionCut    string              `json:"description_cut,omitempty"`
	Updated           string              `json:"updated,omitempty"`
	Books             []compact.ItemBrief `json:"books"`
	// Cut says how many books are left out of a write's answer.
	Cut map[string]kit.Cut `json:"cut,omitempty"`
}

// collectionDetail is the collection with its first ListCap books, each
// by id and title alone (a write's answer; get_collection pages them, in
// compact form).
func collectionDetail(c *absdata.Collection) CollectionDetail {
	out := collectionAll(c)
	for i, b := range out.Books {
		out.Books[i] = compact.ItemBrief{ID: b.ID, Title: b.Title}
	}
	cuts := map[string]kit.Cut{}
	out.Books = kit.FirstOf(out.Books, compact.ListCap, "get_collection with page and limit", cuts, "books")
	if len(cuts) > 0 {
		out.Cut = cuts
	}
	return out
}

func collectionAll(c *absdata.Collection) CollectionDetail {
	out := CollectionDetail{ID: c.ID, Name: c.Name, LibraryID: c.LibraryID, Updated: compact.Date(c.LastUpdate), Books: []compact.ItemBrief{}}
	out.Description, out.DescriptionLength, out.DescriptionCut = kit.Excerpt(absdata.Str(c.Description), kit.ListTextLimit,
		fmt.Sprintf(`get_collection {"collection_id": %q, "detail": "full"}`, c.ID))
	for i := range c.Books {
		b := compact.Brief(&c.Books[i], nil)
		b.Added = ""
		out.Books = append(out.Books, b)
	}
	return out
}

func getCollection(ctx context.Context, d *kit.Deps, id string) (*absdata.Collection, error) {
	c, _, err := getCollectionRaw(ctx, d, id)
	return c, err
}

// getCollectionRaw reads a collection, and returns Audiobookshelf's JSON too.
func getCollectionRaw(ctx context.Context, d *kit.Deps, id string) (*absdata.Collection, []byte, error) {
	body, err := d.Get(ctx, "collection "+id, func(ctx context.Context) (*http.Response, error) {
		return d.API.GetCollection(ctx, id)
	})
	if err != nil {
		return nil, nil, err
	}
	var c absdata.Collection
	if err := kit.Decode(body, &c); err != nil {
		return nil, nil, err
	}
	return &c, body, nil
}

// sharedNote is what every question about a collection adds: collections
// belong to the whole Audiobookshelf server (CollectionController lets
// every user with the permission change any of them, and Audiobookshelf
// 2.36 keeps no record of who made one), so the change reaches everyone
// who sees the library. Fixed wording: no name, no id.
func sharedNote() []string {
	return []string{"Collections are shared by everyone on this Audiobookshelf server (it keeps no owner for them): the change reaches every user who sees this library."}
}

// ListCollections is list_collections.
func ListCollections(ctx context.Context, d *kit.Deps, a toolargs.ListCollections) (*mcp.CallToolResult, error) {
	return kit.ListLibraryOrServer(ctx, d, kit.ListRoutes{Noun: "collection", Tool: "list_collections",
		Library: func(ctx context.Context, id string, p kit.Paging) (*http.Response, error) {
			return d.API.ListLibraryCollections(ctx, id, &abs.ListLibraryCollectionsParams{Limit: &p.Limit, Page: &p.Page})
		},
		Server: func(ctx context.Context) (*http.Response, error) { return d.API.ListCollections(ctx) },
	}, a.LibraryID, kit.PagingOf(a.Page, a.Limit), briefOf)
}

// briefOf is a collection in a list.
func briefOf(c *absdata.Collection) CollectionBrief {
	return CollectionBrief{ID: c.ID, Name: c.Name, LibraryID: c.LibraryID, Books: len(c.Books)}
}

// GetCollection is get_collection.
func GetCollection(ctx context.Context, d *kit.Deps, a toolargs.GetCollection) (*mcp.CallToolResult, error) {
	c, body, err := getCollectionRaw(ctx, d, a.CollectionID)
	if err != nil {
		return nil, err
	}
	if kit.Full(a.Detail) {
		return kit.RawResult(body)
	}
	all := collectionAll(c)
	return kit.Page(d, "books", kit.PagingOf(a.Page, a.Limit), all.Books, nil, kit.AsIs,
		kit.Extra("id", all.ID), kit.Extra("name", all.Name), kit.Extra("library_id", all.LibraryID), kit.Extra("description", all.Description),
		kit.Extra("description_length", all.DescriptionLength), kit.Extra("description_cut", all.DescriptionCut), kit.Extra("updated", all.Updated))
}

// CreateCollection is create_collection.
func CreateCollection(ctx context.Context, d *kit.Deps, a toolargs.CreateCollection) (*mcp.CallToolResult, error) {
	body, err := d.Mutate(ctx, "a new collection in library "+a.LibraryID, func(ctx context.Context) (*http.Response, error) {
		return d.API.CreateCollection(ctx, abs.CreateCollectionJSONRequestBody{
			LibraryId: a.LibraryID, Name: a.Name, Description: a.Description, Books: a.LibraryItemIDs,
		})
	})
	if err != nil {
		return nil, err
	}
	var c absdata.Collection
	if err := kit.Decode(body, &c); err != nil {
		return nil, err
	}
	return kit.JSONResult(map[string]any{"created": true, "collection": collectionDetail(&c),
		"put_back": &kit.PutBack{Tool: "delete_collection", Arguments: map[string]any{"collection_id": c.ID},
			Note: "Deleting it asks the person first."}})
}

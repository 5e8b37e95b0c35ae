package upkeep

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/guard"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/naming"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxCoverBytes bounds the image get_item_cover returns.
const MaxCoverBytes = 2 << 20

// GetItemCover is get_item_cover.
func GetItemCover(ctx context.Context, d *kit.Deps, a toolargs.GetItemCover) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(ctx, d.Timeout)
	defer cancel()
	format := abs.GetLibraryItemCoverParamsFormat("jpeg")
	width := int(a.Width)
	resp, err := d.API.GetLibraryItemCover(ctx, a.LibraryItemID, &abs.GetLibraryItemCoverParams{Width: &width, Format: &format})
	if err != nil {
		return nil, d.TransportError(ctx, false, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return nil, kit.Errorf(kit.Unchanged, "Audiobookshelf has no cover for library item %s (404): the item has none, its cover file is gone, or the id is wrong (get_library_item tells which).", a.LibraryItemID)
	case resp.StatusCode == http.StatusNoContent:
		return nil, kit.Errorf(kit.Unchanged, "Audiobookshelf handed the cover of library item %s to a reverse proxy (X-Accel, 204 without the image); this server cannot read it through the API.", a.LibraryItemID)
	case resp.StatusCode/100 != 2:
		body, _ := kit.ReadLimited(resp.Body, -1, 64<<10)
		body = d.Redact(ctx, body)
		return nil, kit.StatusError(&kit.Response{Status: resp.StatusCode, Body: body, ContentType: resp.Header.Get("Content-Type")}, "the cover of library item "+a.LibraryItemID, false)
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt != "image/jpeg" {
		return nil, kit.Errorf(kit.Unchanged, "Audiobookshelf at %s answered the cover of library item %s with %q, not a JPEG image. Is AUDIOBOOKSHELF_URL the Audiobookshelf server itself?", d.BaseURL, a.LibraryItemID, kit.Clip(kit.CleanText(mt), 60))
	}
	img, err := kit.ReadLimited(resp.Body, resp.ContentLength, MaxCoverBytes)
	if errors.Is(err, kit.ErrTooLarge) {
		return nil, kit.Errorf(kit.Unchanged, `argument "width": the cover of library item %s at width %d is larger than %d MB, the most this tool returns. Ask for a smaller width (400 is plenty to look at).`, a.LibraryItemID, width, MaxCoverBytes>>20)
	}
	if err != nil {
		return nil, d.TransportError(ctx, false, err)
	}
	if len(img) < 3 || img[0] != 0xFF || img[1] != 0xD8 || img[2] != 0xFF {
		return nil, kit.Errorf(kit.Unchanged, "Audiobookshelf's answer for the cover of library item %s is labelled JPEG but is not one (%d bytes).", a.LibraryItemID, len(img))
	}
	info, _ := result.Marshal(map[string]any{"library_item_id": a.LibraryItemID, "width": width, "mime_type": "image/jpeg", "bytes": len(img)})
	return &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.ImageContent{Data: img, MIMEType: "image/jpeg"},
		&mcp.TextContent{Text: string(info)},
	}}, nil
}

// coverRead is what an approval of remove_item_cover is bound to: whether
// the item has a cover, and its updatedAt (Audiobookshelf moves it when a
// cover is set, replaced or removed). The cover's path goes nowhere near a
// question.
type coverRead struct {
	ID        string `json:"id"`
	UpdatedAt int64  `json:"updatedAt"`
	HasCover  bool   `json:"hasCover"`
}

// PlanRemoveItemCover plans remove_item_cover: Audiobookshelf forgets which
// file is the item's cover (LibraryItemController.removeCover sets
// media.coverPath to null; the file stays). It always asks, for no tool
// here sets a cover again; an item without a cover is refused before
// anybody is asked or anything is sent.
func PlanRemoveItemCover(ctx context.Context, d *kit.Deps, a toolargs.RemoveItemCover) (*kit.Plan, error) {
	id := a.LibraryItemID
	it, err := d.ReadItemRecord(ctx, id)
	if err != nil {
		return nil, err
	}
	if !it.Media.CoverPath.Valid || it.Media.CoverPath.Value == "" {
		return nil, kit.Errorf(kit.NotAsked, `argument "library_item_id": library item %s has no cover (Audiobookshelf holds none for it), so there is nothing to remove.`, id)
	}
	file := it.Media.CoverPath.Value
	return &kit.Plan{
		Targets: []string{id},
		Action:  fmt.Sprintf("This will remove the cover of %s: Audiobookshelf forgets which image file is its cover.", naming.ItemNamed(it, id, nil)),
		Read:    coverRead{ID: it.ID, UpdatedAt: it.UpdatedAt, HasCover: true},
		Execute: func(ctx context.Context) (*mcp.CallToolResult, error) {
			if _, err := sendToItem(ctx, d, id, "the cover of library item "+id, "removing a cover needs the delete permission (Settings → Users → the user → Can Delete)", nil, func(ctx context.Context) (*http.Response, error) {
				return d.API.RemoveLibraryItemCover(ctx, id)
			}); err != nil {
				return nil, err
			}
			return result.JSONResult(map[string]any{"removed": true, "library_item_id": id,
				"file_kept": file,
				"note":      "Audiobookshelf no longer takes this file as the item's cover; the file itself was not deleted. A later scan that finds an image file in the item's own folder may take it as the cover again."})
		},
	}, nil
}

// CoverChoice is one cover search_covers offers.
type CoverChoice struct {
	N   int    `json:"n"`
	URL string `json:"url"`
}

// SearchCovers is search_covers.
func SearchCovers(ctx context.Context, d *kit.Deps, a toolargs.SearchCovers) (*mcp.CallToolResult, error) {
	b, title, author, err := searchBook(ctx, d, getBook, a.LibraryItemID, "search_covers", a.Title, a.Author)
	if err != nil {
		return nil, err
	}
	provider := a.Provider
	body, err := d.Get(ctx, "the "+provider+" cover search", func(ctx context.Context) (*http.Response, error) {
		p := abs.SearchCoversParams{Provider: &provider, Title: title}
		if author != "" {
			p.Author = &author
		}
		return d.API.SearchCovers(ctx, &p)
	})
	if err != nil {
		return nil, err
	}
	var v absdata.CoverSearch
	if err := kit.Decode(body, &v); err != nil {
		return nil, err
	}
	out := make([]CoverChoice, 0, len(v.Results))
	for i, u := range v.Results {
		out = append(out, CoverChoice{N: i + 1, URL: u})
	}
	extra := []result.Field{result.Extra("library_item_id", a.LibraryItemID), result.Extra("has_cover", b.Media.CoverPath.Valid && b.Media.CoverPath.Value != ""),
		result.Extra("provider", provider), result.Extra("searched", map[string]string{"title": title, "author": author})}
	if len(out) == 0 {
		extra = append(extra, result.Extra("note", "No cover found (Audiobookshelf answers none too when it cannot reach the provider). Try another provider, or all."))
	} else {
		extra = append(extra, result.Extra("note", "Look with the person; set_item_cover takes the one chosen (it asks first when the book has a cover)."))
	}
	return result.Page(d, "covers", result.PagingOf(a.Page, a.Limit), out, nil, result.AsIs, extra...)
}

// EffectReplacesCover is set_item_cover's effect that makes it ask
// (tools.yaml): the item has a cover, whose file Audiobookshelf overwrites
// or deletes (CoverManager.downloadCoverFromUrlNew writes cover.<ext> and
// removes the other cover images of its folder).
const EffectReplacesCover = "replaces_cover"

// PlanSetItemCover plans set_item_cover: an item without a cover gets one
// and the answer's put-back is remove_item_cover; an item with one asks,
// for its old image is gone once the new one is written.
func PlanSetItemCover(ctx context.Context, d *kit.Deps, a toolargs.SetItemCover) (*kit.Plan, error) {
	id := a.LibraryItemID
	it, err := d.ReadItemRecord(ctx, id)
	if err != nil {
		return nil, err
	}
	had := it.Media.CoverPath.Valid && it.Media.CoverPath.Value != ""
	plan := &kit.Plan{Targets: []string{id}, Read: coverRead{ID: it.ID, UpdatedAt: it.UpdatedAt, HasCover: had}}
	if had {
		plan.Effects = []string{EffectReplacesCover}
		plan.Action = fmt.Sprintf("This will replace the cover of %s with the image at %s.", naming.ItemNamed(it, id, nil), guard.Quote(a.Url))
		plan.Consequences = []string{"Audiobookshelf writes the new image as the item's cover file, overwriting or deleting the present cover image on disk: it cannot be set back from here."}
	}
	plan.Execute = func(ctx context.Context) (*mcp.CallToolResult, error) {
		url := a.Url
		badImage := func(r *kit.Response) error {
			if r.Status == http.StatusBadRequest {
				return kit.Errorf(kit.Unchanged, `argument "url": Audiobookshelf could not take the image at %s as a cover (%q): it must be an image (JPEG, PNG or WebP) it can download. The cover was not changed.`, guard.Quote(url), kit.Clip(kit.CleanText(string(r.Body)), 200))
			}
			return nil
		}
		r, err := sendToItem(ctx, d, id, "the cover of library item "+id, "setting a cover needs the update and upload permissions (Settings → Users → the user → Can Update, Can Upload)", badImage, func(ctx context.Context) (*http.Response, error) {
			return d.API.SetLibraryItemCover(ctx, id, abs.SetLibraryItemCoverJSONRequestBody{Url: url})
		})
		if err != nil {
			return nil, err
		}
		var v struct {
			Cover string `json:"cover"`
		}
		if err := kit.Decode(r.Body, &v); err != nil {
			return nil, err
		}
		out := map[string]any{"set": true, "library_item_id": id, "url": url, "cover_file": v.Cover}
		if had {
			out["note"] = "The previous cover image was replaced on disk; it cannot be set back from here."
		} else {
			out["put_back"] = &result.PutBack{Tool: "remove_item_cover", Arguments: map[string]any{"library_item_id": id},
				Note: "The item had no cover: this takes the new one off again (it asks the person first). The image file stays on the server's disk."}
		}
		return result.JSONResult(out)
	}
	return plan, nil
}

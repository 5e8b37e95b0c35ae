package upkeep

import (
	"context"
	"fmt"
	"math"
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

// providerChapters reads Audnexus's chapters for asin (the book's when
// nil) in region, cut as Audiobookshelf's web client applies them: those
// that start before the book's end, each ending at the book's end at the
// latest. none says why there are none (Audnexus has none, or could not be
// reached), with nil chapters.
func providerChapters(ctx context.Context, d *kit.Deps, b *absdata.Item, asin *string, region string) (code string, out []absdata.Chapter, v *absdata.ProviderChapters, none string, err error) {
	code = strings.TrimSpace(b.Media.Metadata.ASIN.Value)
	if asin != nil {
		code = *asin
	}
	if code == "" {
		return "", nil, nil, "", kit.Errorf(kit.Unchanged, `argument "asin": book %s has no ASIN; give one (find_match_candidates shows the ASINs of audible's results).`, b.ID)
	}
	body, err := d.Get(ctx, "Audnexus's chapters for ASIN "+code, func(ctx context.Context) (*http.Response, error) {
		return d.API.SearchChapters(ctx, &abs.SearchChaptersParams{Asin: code, Region: &region})
	})
	if err != nil {
		return "", nil, nil, "", err
	}
	v = &absdata.ProviderChapters{}
	if err := kit.Decode(body, v); err != nil {
		return "", nil, nil, "", err
	}
	if v.Error != "" || len(v.Chapters) == 0 {
		why := "none"
		if v.Error != "" {
			why = fmt.Sprintf("%q", kit.Clip(kit.CleanText(v.Error), 100))
		}
		return code, nil, v, fmt.Sprintf("Audnexus has no chapters for ASIN %s in region %s (Audiobookshelf answered %s; it answers so too when it cannot reach Audnexus, which is on the internet). Check the ASIN, or try another region.", guard.Quote(code), region, why), nil
	}
	end := b.Media.Duration
	for _, c := range v.Chapters {
		start := c.StartOffsetMs / 1000
		if end > 0 && start >= end {
			continue
		}
		stop := (c.StartOffsetMs + c.LengthMs) / 1000
		if end > 0 {
			stop = math.Min(stop, end)
		}
		out = append(out, absdata.Chapter{ID: len(out), Start: start, End: stop, Title: c.Title})
	}
	return code, out, v, "", nil
}

// GetProviderChapters is get_provider_chapters.
func GetProviderChapters(ctx context.Context, d *kit.Deps, a toolargs.GetProviderChapters) (*mcp.CallToolResult, error) {
	b, err := readBookExpanded(ctx, d, a.LibraryItemID, "get_provider_chapters")
	if err != nil {
		return nil, err
	}
	code, chapters, v, none, err := providerChapters(ctx, d, b, a.Asin, a.Region)
	if err != nil {
		return nil, err
	}
	if none != "" {
		return result.Page(d, "chapters", result.PagingOf(a.Page, a.Limit), []absdata.Chapter{}, nil, result.AsIs,
			result.Extra("library_item_id", a.LibraryItemID), result.Extra("asin", code), result.Extra("region", a.Region),
			result.Extra("book_chapters", len(b.Media.Chapters)), result.Extra("note", none))
	}
	runtime := v.RuntimeLengthMs / 1000
	extra := []result.Field{result.Extra("library_item_id", a.LibraryItemID), result.Extra("asin", code), result.Extra("region", a.Region),
		result.Extra("book_chapters", len(b.Media.Chapters)), result.Extra("book_duration_seconds", math.Round(b.Media.Duration*10)/10),
		result.Extra("provider_runtime_seconds", math.Round(runtime*10)/10), result.Extra("provider_chapters", len(v.Chapters))}
	if v.IsAccurate != nil {
		// Audnexus's own word on whether its chapter times are exact.
		extra = append(extra, result.Extra("timing", map[bool]string{true: "accurate", false: "not accurate"}[*v.IsAccurate]))
	}
	off := math.Abs(runtime - b.Media.Duration)
	fits := off <= math.Max(60, b.Media.Duration*0.01)
	extra = append(extra, result.Extra("runtimes", map[bool]string{true: "agree", false: "differ"}[fits]))
	note := fmt.Sprintf("The book's duration and Audnexus's runtime differ by %s s: ", trimFloat(math.Round(off*10)/10))
	if fits {
		note += "the same recording, most likely. "
	} else {
		note += "probably another edition or recording; chapters would not fall where they should. "
	}
	if len(chapters) < len(v.Chapters) {
		note += fmt.Sprintf("%d chapter(s) start after the book's end and are left out. ", len(v.Chapters)-len(chapters))
	}
	note += "set_item_chapters applies them (it asks when the book has chapters)."
	extra = append(extra, result.Extra("note", note))
	return result.Page(d, "chapters", result.PagingOf(a.Page, a.Limit), chapters, nil, result.AsIs, extra...)
}

// CheckSetItemChapters refuses clear beside an ASIN.
func CheckSetItemChapters(a toolargs.SetItemChapters) error {
	if a.Clear && a.Asin != nil {
		return kit.Errorf(kit.NotSent, `argument "clear": clear takes the chapters off; give it without asin.`)
	}
	return nil
}

// EffectReplacesChapters is set_item_chapters' effect that makes it ask
// (tools.yaml): the book has chapters, and no tool here takes a list of
// chapters to set them back.
const EffectReplacesChapters = "replaces_chapters"

// chaptersRead is what an approval of set_item_chapters is bound to: the
// book's chapters and those it would be given (Audiobookshelf leaves the
// library item's updatedAt as it is when the chapters change).
type chaptersRead struct {
	ID     string            `json:"id"`
	Before []absdata.Chapter `json:"before"`
	After  []absdata.Chapter `json:"after"`
}

// PlanSetItemChapters plans set_item_chapters.
func PlanSetItemChapters(ctx context.Context, d *kit.Deps, a toolargs.SetItemChapters) (*kit.Plan, error) {
	id := a.LibraryItemID
	b, err := readBookExpanded(ctx, d, id, "set_item_chapters")
	if err != nil {
		return nil, err
	}
	had := b.Media.Chapters
	if len(b.Media.Chapters) == 0 && b.Media.NumTracks == 0 && len(b.Media.AudioFiles) == 0 {
		return nil, kit.Errorf(kit.Unchanged, `argument "library_item_id": book %s has no audio, so it can have no chapters (Audiobookshelf refuses them).`, id)
	}
	var code string
	chapters := []absdata.Chapter{}
	if a.Clear {
		if len(had) == 0 {
			return nil, kit.Errorf(kit.NotAsked, `argument "clear": book %s has no chapters; there is nothing to clear.`, id)
		}
	} else {
		var none string
		code, chapters, _, none, err = providerChapters(ctx, d, b, a.Asin, a.Region)
		if err != nil {
			return nil, err
		}
		if none != "" {
			return nil, kit.Errorf(kit.Unchanged, `argument "asin": %s`, none)
		}
	}
	named := naming.Named("book", b.Media.Metadata.Title.Value, id)
	plan := &kit.Plan{Targets: []string{id}, Read: chaptersRead{ID: b.ID, Before: had, After: chapters}}
	if len(had) > 0 {
		plan.Effects = []string{EffectReplacesChapters}
		if a.Clear {
			plan.Action = fmt.Sprintf("This will clear the %d chapter(s) of %s.", len(had), named)
		} else {
			plan.Action = fmt.Sprintf("This will replace the %d chapter(s) of %s with Audnexus's %d for ASIN %s.", len(had), named, len(chapters), guard.Quote(code))
		}
		plan.Consequences = []string{"No tool here takes a list of chapters, so the present ones cannot be set back from here."}
	}
	plan.Execute = func(ctx context.Context) (*mcp.CallToolResult, error) {
		type entry = struct {
			End   float64 `json:"end"`
			Start float64 `json:"start"`
			Title string  `json:"title"`
		}
		body := abs.UpdateLibraryItemChaptersJSONRequestBody{}
		list := make([]entry, 0, len(chapters))
		for _, c := range chapters {
			list = append(list, entry{Start: c.Start, End: c.End, Title: c.Title})
		}
		body.Chapters = list
		r, err := sendToItem(ctx, d, id, "the chapters of library item "+id, "setting chapters needs the update permission (Settings → Users → the user → Can Update)", nil, func(ctx context.Context) (*http.Response, error) {
			return d.API.UpdateLibraryItemChapters(ctx, id, body)
		})
		if err != nil {
			return nil, err
		}
		var v struct {
			Updated bool `json:"updated"`
		}
		if err := kit.Decode(r.Body, &v); err != nil {
			return nil, err
		}
		out := map[string]any{"updated": v.Updated, "library_item_id": id, "chapters": len(chapters), "previous_chapters": len(had)}
		if code != "" {
			out["asin"] = code
		}
		if len(had) == 0 && len(chapters) > 0 {
			out["put_back"] = &result.PutBack{Tool: "set_item_chapters", Arguments: map[string]any{"library_item_id": id, "clear": true},
				Note: "The book had no chapters: this clears them again (it asks the person first, as the book then has chapters)."}
		}
		if len(had) > 0 {
			out["note"] = "The previous chapters were replaced; they cannot be set back from here."
		}
		return result.JSONResult(out)
	}
	return plan, nil
}

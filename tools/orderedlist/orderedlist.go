package orderedlist

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/argdec"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/compact"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/naming"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Kind is one kind of list: the words its tools use for it and how
// Audiobookshelf treats it.
type Kind struct {
	// Noun is the list's kind ("collection"): its tools are VERB_NOUN, a
	// write's answer shows it under this key, and the requests name it.
	Noun string
	// Entries is the key of its entries in a detail ("books").
	Entries string
	// Counted is how a question counts them ("book(s)").
	Counted string
	// IDParam is the tools' argument with its id ("collection_id"), and
	// OrderParam the update tool's with the new order ("library_item_ids").
	IDParam, OrderParam string
	// IgnoresEmpty: Audiobookshelf ignores an empty name or description on
	// this kind (PlaylistController.update), so a list without a
	// description cannot be given "none" back.
	IgnoresEmpty bool
	// Notes are the sentences every question about this kind adds.
	Notes []string
}

// Tool is this kind's tool of verb: Tool("update") is update_collection.
func (k Kind) Tool(verb string) string { return verb + "_" + k.Noun }

// Read reads one list (GET through get) and decodes it as T, with
// Audiobookshelf's JSON.
func Read[T any](ctx context.Context, d *kit.Deps, what string, get kit.Sender) (*T, []byte, error) {
	body, err := d.Get(ctx, what, get)
	if err != nil {
		return nil, nil, err
	}
	var v T
	if err := kit.Decode(body, &v); err != nil {
		return nil, nil, err
	}
	return &v, body, nil
}

// Change sends a change (what names its target in a failure) and decodes
// Audiobookshelf's answer, the list as it is after it, as T.
func Change[T any](ctx context.Context, d *kit.Deps, what string, send kit.Sender) (*T, error) {
	body, err := d.Mutate(ctx, what, send)
	if err != nil {
		return nil, err
	}
	var v T
	if err := kit.Decode(body, &v); err != nil {
		return nil, err
	}
	return &v, nil
}

// Head is what a list's detail shows before its entries.
type Head struct {
	ID                string `json:"id"`
	Name              string `json:"name"`
	LibraryID         string `json:"library_id"`
	Description       string `json:"description,omitempty"`
	DescriptionLength int    `json:"description_length,omitempty"`
	DescriptionCut    string `json:"description_cut,omitempty"`
	Updated           string `json:"updated,omitempty"`
}

// HeadOf is a list's head: its description cut to result.ListTextLimit,
// saying how to read it whole, and updated the date it last changed (""
// for none).
func (k Kind) HeadOf(id, name, libraryID string, description *string, updated string) Head {
	h := Head{ID: id, Name: name, LibraryID: libraryID, Updated: updated}
	h.Description, h.DescriptionLength, h.DescriptionCut = result.Excerpt(absdata.Str(description), result.ListTextLimit,
		fmt.Sprintf(`%s {"%s": %q, "detail": "full"}`, k.Tool("get"), k.IDParam, id))
	return h
}

// First is a write's answer's entries: the first compact.ListCap, and the
// cut that says how many were left out (nil when none was).
func First[E any](k Kind, entries []E) ([]E, map[string]result.Cut) {
	cuts := map[string]result.Cut{}
	entries = result.FirstOf(entries, compact.ListCap, k.Tool("get")+" with page and limit", cuts, k.Entries)
	if len(cuts) == 0 {
		return entries, nil
	}
	return entries, cuts
}

// Get answers get_NOUN with the list read: Audiobookshelf's JSON with
// detail "full", else the head and one page of the entries (all makes
// them).
func Get[T, E any](d *kit.Deps, k Kind, read func() (*T, []byte, error), detail string, page, limit int64, all func(*T) (Head, []E)) (*mcp.CallToolResult, error) {
	v, body, err := read()
	if err != nil {
		return nil, err
	}
	if result.Full(detail) {
		return result.RawResult(body)
	}
	h, entries := all(v)
	return result.Page(d, k.Entries, result.PagingOf(page, limit), entries, nil, result.AsIs,
		result.Extra("id", h.ID), result.Extra("name", h.Name), result.Extra("library_id", h.LibraryID), result.Extra("description", h.Description),
		result.Extra("description_length", h.DescriptionLength), result.Extra("description_cut", h.DescriptionCut), result.Extra("updated", h.Updated))
}

// Update is a call of update_NOUN: the list as read, what the call gives,
// and how the change is sent and shown.
type Update struct {
	// ID, Name and Description are the list's now.
	ID, Name    string
	Description *string
	// NewName and NewDescription are the call's (nil: not given).
	NewName, NewDescription *string
	// Order is the call's new order, checked; nil when it gives none.
	Order *Reorder
	// Read is what an approval is bound to: the list as read.
	Read any
	// Send sends the change; Show reads Audiobookshelf's answer as the
	// list's detail (Shows makes it).
	Send kit.Sender
	Show func(body []byte) (any, error)
}

// Shows is an Update's Show for a list decoded as T and shown as project
// makes it.
func Shows[T, D any](project func(*T) D) func(body []byte) (any, error) {
	return func(body []byte) (any, error) {
		var v T
		if err := kit.Decode(body, &v); err != nil {
			return nil, err
		}
		return project(&v), nil
	}
}

// Reorder is a new order that checked out: the entries' ids in it, how
// many of them change place, their titles for the question, and the order
// now as the update tool's argument gives it.
type Reorder struct {
	IDs    []string
	Moved  int
	Titles []naming.Titled
	Old    any
}

// Moved counts the places where order differs from now, both of one length.
func Moved[E comparable](now, order []E) int {
	n := 0
	for i := range now {
		if order[i] != now[i] {
			n++
		}
	}
	return n
}

// PlanUpdate plans update_NOUN. It asks when the order changes (that is
// the curated order taken out) or when a text it replaces could not be
// given back by the tool; its answer carries what it replaced and the call
// that puts it back.
func (k Kind) PlanUpdate(d *kit.Deps, u Update) *kit.Plan {
	plan := &kit.Plan{Targets: []string{u.ID}}
	prev, putBack, lost, lostWhy := k.putBack(u)
	notBack := "The text it holds now could not be given back with " + k.Tool("update") + ": " + lostWhy + "."
	if lost != "" {
		plan.Effects = append(plan.Effects, result.EffectUnrestorableText)
		plan.Read = u.Read
		plan.Action = fmt.Sprintf("This will replace the %s of %s%s.", lost, naming.Named(k.Noun, u.Name, u.ID), naming.NewName(u.NewName))
		plan.Consequences = append([]string{notBack}, k.Notes...)
	}
	if o := u.Order; o != nil {
		plan.Targets = append(plan.Targets, o.IDs...)
		plan.Read = u.Read
		plan.Action = fmt.Sprintf("This will reorder the %d %s of %s; %d of them change place.", len(o.IDs), k.Counted, naming.Named(k.Noun, u.Name, u.ID), o.Moved)
		plan.Consequences = []string{"New order: " + naming.ListTitled(o.Titles) + "."}
		if lost != "" {
			plan.Consequences = append(plan.Consequences, notBack)
		} else if u.NewName != nil || u.NewDescription != nil {
			plan.Consequences = append(plan.Consequences, "The name or description changes too.")
		}
		plan.Consequences = append(plan.Consequences, k.Notes...)
	}
	plan.Execute = func(ctx context.Context) (*mcp.CallToolResult, error) {
		body, err := d.Mutate(ctx, k.Noun+" "+u.ID, u.Send)
		if err != nil {
			return nil, err
		}
		shown, err := u.Show(body)
		if err != nil {
			return nil, err
		}
		out := map[string]any{"updated": true, k.Noun: shown, "previous": prev}
		if lost != "" {
			out["not_put_back"] = "The old " + lost + " could not be given back with " + k.Tool("update") + " (" + lostWhy + "); it is in previous, whole."
		} else if putBack != nil {
			out["put_back"] = putBack
		}
		return result.JSONResult(out)
	}
	return plan
}

// putBack is what an update replaces and the call that gives it back. lost
// names what could not be given back exactly ("" when all can), and why
// says why: then the tool asks first.
func (k Kind) putBack(u Update) (prev map[string]any, pb *result.PutBack, lost, why string) {
	prev = map[string]any{}
	args := map[string]any{k.IDParam: u.ID}
	var lostParts, whys []string
	if u.NewName != nil {
		prev["name"] = u.Name
		args["name"] = u.Name
		if n := argdec.RefusedControls(u.Name); n > 0 {
			lostParts = append(lostParts, "name")
			whys = append(whys, result.ControlWhy("name", n))
		} else if utf8.RuneCountInString(u.Name) > result.MaxNameLen || u.Name == "" {
			lostParts = append(lostParts, "name")
			whys = append(whys, result.UnrestorableWhy("name", false, k.IgnoresEmpty))
		}
	}
	if u.NewDescription != nil {
		prev["description"] = u.Description // whole; null when none
		text, null := absdata.Str(u.Description), u.Description == nil
		args["description"] = text
		if n := argdec.RefusedControls(text); n > 0 {
			lostParts = append(lostParts, "description")
			whys = append(whys, result.ControlWhy("description", n))
		} else if utf8.RuneCountInString(text) > result.MaxDescriptionLen || (k.IgnoresEmpty && text == "") || (!k.IgnoresEmpty && null) {
			lostParts = append(lostParts, "description")
			whys = append(whys, result.UnrestorableWhy("description", null && !k.IgnoresEmpty, k.IgnoresEmpty))
		}
	}
	note := ""
	if u.Order != nil {
		prev[k.OrderParam] = u.Order.Old
		args[k.OrderParam] = u.Order.Old
		note = "Giving the old order back asks the person first, as every reorder does."
	}
	return prev, &result.PutBack{Tool: k.Tool("update"), Arguments: args, Note: note}, strings.Join(lostParts, " and "), strings.Join(whys, "; ")
}

// Delete is a call of delete_NOUN: the list as read, and how it is
// deleted.
type Delete struct {
	ID, Name string
	// Count is how many entries it holds.
	Count int
	Read  any
	Send  kit.Sender
	// Answer is added to the answer's fields.
	Answer map[string]any
}

// PlanDelete plans delete_NOUN: it always asks, naming the list and how
// many entries it holds.
func (k Kind) PlanDelete(d *kit.Deps, x Delete) *kit.Plan {
	return &kit.Plan{
		Targets:      []string{x.ID},
		Action:       fmt.Sprintf("This will delete %s with its %d %s in their order.", naming.Named(k.Noun, x.Name, x.ID), x.Count, k.Counted),
		Consequences: k.Notes,
		Read:         x.Read,
		Execute: func(ctx context.Context) (*mcp.CallToolResult, error) {
			if _, err := d.Mutate(ctx, k.Noun+" "+x.ID, x.Send); err != nil {
				return nil, err
			}
			out := map[string]any{"deleted": true, k.IDParam: x.ID}
			for key, v := range x.Answer {
				out[key] = v
			}
			return result.JSONResult(out)
		},
	}
}

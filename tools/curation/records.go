package curation

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/argdec"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/naming"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxASINLen is the longest ASIN update_author takes (tools.yaml).
const maxASINLen = 20

// textField is one text update_author or update_series replaces: its
// argument, the value it holds now (null when Audiobookshelf holds
// none), and the value sent.
type textField struct {
	arg  string
	old  *string
	max  int
	null bool // the tool can give null back (an author's description or ASIN)
}

// unrestorable says why the old text could not be given back exactly by
// the tool, or "".
func (f textField) unrestorable(what string) string {
	if f.old == nil {
		if f.null {
			return ""
		}
		return fmt.Sprintf("the %s has no %s at all now (Audiobookshelf holds null), and Audiobookshelf's series update takes only text, not null", what, f.arg)
	}
	if n := argdec.RefusedControls(*f.old); n > 0 {
		return result.ControlWhy(f.arg, n)
	}
	if utf8.RuneCountInString(*f.old) > f.max {
		return fmt.Sprintf("the %s is longer than the %d characters the tool takes", f.arg, f.max)
	}
	if f.arg == "name" && *f.old == "" {
		return "the name is empty, which the tool does not take"
	}
	return ""
}

// putBackValue is the argument that gives old back: "" for an author's
// null (the tool sends an empty text as null).
func (f textField) putBackValue() string {
	if f.old == nil {
		return ""
	}
	return *f.old
}

// strOrNil is p's text, or nil for JSON null.
func strOrNil(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

// textsPlan fills what the texts of a plan replace: the previous values,
// the put-back's arguments, and the texts (with why) that could not be
// given back, which make the tool ask.
func textsPlan(fields []textField, what string, args map[string]any) (prev map[string]any, lost []string, whys []string) {
	prev = map[string]any{}
	for _, f := range fields {
		prev[f.arg] = strOrNil(f.old)
		args[f.arg] = f.putBackValue()
		if why := f.unrestorable(what); why != "" {
			lost = append(lost, f.arg)
			whys = append(whys, why)
		}
	}
	return prev, lost, whys
}

// authorRecordRead is what update_author binds the approval to.
type authorRecordRead struct {
	ID          string `json:"id"`
	UpdatedAt   int64  `json:"updatedAt"`
	Name        string `json:"name"`
	Description string `json:"description"`
	ASIN        string `json:"asin"`
	ImagePath   string `json:"imagePath"`
}

// PlanUpdateAuthor plans update_author: PATCH /api/authors/:id with the
// texts given (an empty description or ASIN is sent as null, as
// Audiobookshelf holds one never set), then POST /api/authors/:id/image
// when image_url is given. A name another author of the library has is
// refused: Audiobookshelf would merge the two (AuthorController.update).
func PlanUpdateAuthor(ctx context.Context, d *kit.Deps, a toolargs.UpdateAuthor) (*kit.Plan, error) {
	libs := d.SeenLibraries(ctx)
	au, err := readAuthorRecord(ctx, d, a.AuthorID)
	if err != nil {
		libs.Abandon()
		return nil, err
	}
	if err := libs.Wait().Check("author_id", "author", au.ID, au.LibraryID); err != nil {
		return nil, err
	}
	body := map[string]any{}
	var fields []textField
	if a.Name != nil && *a.Name != au.Name {
		other, err := authorNamed(ctx, d, au.LibraryID, au.ID, *a.Name)
		if err != nil {
			return nil, err
		}
		if other != nil {
			return nil, kit.Errorf(kit.Unchanged, `argument "name": author %s of the same library is called exactly that, and Audiobookshelf would merge the two, removing author %q; merge_authors does that and asks first (its keep argument carries this author's fields over).`,
				naming.NamedID(other.Name, other.ID), au.ID)
		}
		body["name"] = *a.Name
		fields = append(fields, textField{arg: "name", old: kit.Ptr(au.Name), max: result.MaxNameLen})
	}
	for _, t := range []struct {
		arg string
		v   *string
		old string
		max int
	}{{"description", a.Description, au.Description, result.MaxDescriptionLen}, {"asin", a.Asin, au.ASIN, maxASINLen}} {
		if t.v == nil || *t.v == t.old {
			continue
		}
		if *t.v == "" {
			body[t.arg] = nil
		} else {
			body[t.arg] = *t.v
		}
		var old *string
		if t.old != "" {
			old = kit.Ptr(t.old)
		}
		fields = append(fields, textField{arg: t.arg, old: old, max: t.max, null: true})
	}
	args := map[string]any{"author_id": au.ID}
	prev, lost, whys := textsPlan(fields, "author", args)
	named := naming.Named("author", au.Name, au.ID)
	plan := &kit.Plan{
		Targets: []string{au.ID},
		Read:    authorRecordRead{au.ID, au.UpdatedAt, au.Name, au.Description, au.ASIN, au.ImagePath},
	}
	var parts []string
	if len(fields) > 0 {
		parts = append(parts, "set the "+strings.Join(argNames(fields), ", ")+" of "+named+naming.NewName(a.Name))
	}
	if a.ImageUrl != nil {
		if au.ImagePath != "" {
			parts = append(parts, "replace the image of "+named+" with one Audiobookshelf downloads from the URL given")
			plan.Consequences = append(plan.Consequences, "The author's image now cannot be had back from here: Audiobookshelf writes the new one over its file (or leaves the old file unused on disk when the new one is of another type).")
		} else {
			parts = append(parts, "give "+named+" an image that Audiobookshelf downloads from the URL given (it has none now)")
			plan.Consequences = append(plan.Consequences, "No tool takes an author's image away again, so the image cannot be taken back from here.")
		}
	}
	if len(lost) > 0 {
		plan.Effects = append(plan.Effects, result.EffectUnrestorableText)
		plan.Consequences = append(plan.Consequences, "The "+strings.Join(lost, " and ")+" it holds now could not be given back with update_author: "+strings.Join(whys, "; ")+".")
	}
	if len(parts) == 0 {
		parts = append(parts, "change nothing of "+named+": it holds those values already")
	}
	plan.Action = "This will " + strings.Join(parts, ", and ") + "."
	plan.Execute = func(ctx context.Context) (*mcp.CallToolResult, error) {
		cur := au
		// The image first: a download Audiobookshelf refuses or fails (no
		// upload permission, a URL it cannot fetch) then changes nothing.
		imageSet := false
		if a.ImageUrl != nil {
			rb, err := d.Mutate(ctx, "the image of author "+au.ID, func(ctx context.Context) (*http.Response, error) {
				return d.API.UploadAuthorImage(ctx, au.ID, abs.AuthorImageURL{Url: *a.ImageUrl})
			})
			if err != nil {
				return nil, err
			}
			imageSet = true
			var ans struct {
				Author absdata.Author `json:"author"`
			}
			if err := kit.Decode(rb, &ans); err != nil {
				return nil, err
			}
			cur = &ans.Author
		}
		if len(body) > 0 {
			raw, err := json.Marshal(body)
			if err != nil {
				return nil, err
			}
			rb, err := d.Mutate(ctx, "author "+au.ID, func(ctx context.Context) (*http.Response, error) {
				return d.API.UpdateAuthorWithBody(ctx, au.ID, "application/json", bytes.NewReader(raw))
			})
			if err != nil {
				if imageSet {
					return nil, kit.Errorf(kit.Made, "the image of author %q was set, but its %s were not: %v.", au.ID, strings.Join(argNames(fields), ", "), err)
				}
				return nil, err
			}
			var ans struct {
				Author absdata.Author `json:"author"`
				Merged bool           `json:"merged"`
			}
			if err := kit.Decode(rb, &ans); err != nil {
				return nil, err
			}
			if ans.Merged {
				return nil, kit.Errorf(kit.Made, "Audiobookshelf merged author %q into author %q, which took the name %s in between; author %q is gone with its biography, ASIN and image (get_author shows author %q).",
					au.ID, ans.Author.ID, kit.Quote(*a.Name), au.ID, ans.Author.ID)
			}
			cur = &ans.Author
		}
		out := map[string]any{
			"updated": true,
			"author": map[string]any{"id": cur.ID, "name": cur.Name, "description": cur.Description, "asin": cur.ASIN,
				"has_image": cur.ImagePath != "", "library_id": cur.LibraryID},
			"previous": prev,
		}
		if a.ImageUrl != nil {
			prev["has_image"] = au.ImagePath != ""
		}
		switch {
		case len(lost) > 0:
			out["not_put_back"] = "The old " + strings.Join(lost, " and ") + " could not be given back with update_author (" + strings.Join(whys, "; ") + "); it is in previous, whole."
		case a.ImageUrl != nil:
			out["not_put_back"] = "The person approved a new image: the old one cannot be had back from here."
			if len(fields) > 0 {
				out["put_back_texts"] = &result.PutBack{Tool: "update_author", Arguments: args}
			}
		case len(fields) > 0:
			out["put_back"] = &result.PutBack{Tool: "update_author", Arguments: args}
		default:
			out["updated"] = false
			out["note"] = "The author holds those values already; nothing was sent."
		}
		return result.JSONResult(out)
	}
	return plan, nil
}

func argNames(fields []textField) []string {
	var out []string
	for _, f := range fields {
		out = append(out, f.arg)
	}
	return out
}

func putBackJSON(args map[string]any) string {
	b, _ := json.Marshal(args)
	return string(b)
}

// readAuthorRecord reads an author alone (GET /api/authors/:id).
func readAuthorRecord(ctx context.Context, d *kit.Deps, id string) (*absdata.Author, error) {
	return kit.GetAs[absdata.Author](ctx, d, fmt.Sprintf("argument %q (author %q)", "author_id", id), func(ctx context.Context) (*http.Response, error) {
		return d.API.GetAuthor(ctx, id, nil)
	})
}

// authorNamed is the author of the library other than except whose name
// is exactly name (as Audiobookshelf compares it for a merge: case and
// spaces count), or nil.
func authorNamed(ctx context.Context, d *kit.Deps, libraryID, except, name string) (*absdata.Author, error) {
	ans, err := kit.GetAs[struct {
		Authors []absdata.Author `json:"authors"`
	}](ctx, d, "the authors of library "+libraryID, func(ctx context.Context) (*http.Response, error) {
		return d.API.ListLibraryAuthors(ctx, libraryID, nil)
	})
	if err != nil {
		return nil, err
	}
	for i := range ans.Authors {
		if ans.Authors[i].ID != except && ans.Authors[i].Name == name {
			return &ans.Authors[i], nil
		}
	}
	return nil, nil
}

// seriesRecordRead is what update_series binds the approval to.
type seriesRecordRead struct {
	ID          string  `json:"id"`
	UpdatedAt   int64   `json:"updatedAt"`
	Name        string  `json:"name"`
	Description *string `json:"description"`
}

// PlanUpdateSeries plans update_series: PATCH /api/series/:id with the
// texts given. Audiobookshelf's series update takes text only, so a
// description held as null cannot be given back: then it asks.
func PlanUpdateSeries(ctx context.Context, d *kit.Deps, a toolargs.UpdateSeries) (*kit.Plan, error) {
	libs := d.SeenLibraries(ctx)
	se, err := readOneSeries(ctx, d, "series_id", a.SeriesID)
	if err != nil {
		libs.Abandon()
		return nil, err
	}
	if err := libs.Wait().Check("series_id", "series", se.ID, se.LibraryID); err != nil {
		return nil, err
	}
	var oldDesc *string
	if !se.Description.Null() {
		oldDesc = kit.Ptr(se.Description.String())
	}
	body := abs.SeriesUpdate{}
	var fields []textField
	if a.Name != nil && *a.Name != se.Name {
		body.Name = a.Name
		fields = append(fields, textField{arg: "name", old: kit.Ptr(se.Name), max: result.MaxNameLen})
	}
	if a.Description != nil && (oldDesc == nil || *oldDesc != *a.Description) && !(oldDesc == nil && *a.Description == "") {
		body.Description = a.Description
		fields = append(fields, textField{arg: "description", old: oldDesc, max: result.MaxDescriptionLen})
	}
	args := map[string]any{"series_id": se.ID}
	prev, lost, whys := textsPlan(fields, "series", args)
	named := naming.Named("series", se.Name, se.ID)
	plan := &kit.Plan{
		Targets: []string{se.ID},
		Read:    seriesRecordRead{se.ID, se.UpdatedAt, se.Name, oldDesc},
	}
	if len(lost) > 0 {
		plan.Effects = append(plan.Effects, result.EffectUnrestorableText)
		plan.Action = fmt.Sprintf("This will set the %s of %s%s.", strings.Join(argNames(fields), " and "), named, naming.NewName(a.Name))
		plan.Consequences = []string{"The " + strings.Join(lost, " and ") + " it holds now could not be given back with update_series: " + strings.Join(whys, "; ") + "."}
	}
	plan.Execute = func(ctx context.Context) (*mcp.CallToolResult, error) {
		if len(fields) == 0 {
			return result.JSONResult(map[string]any{"updated": false, "series": map[string]any{"id": se.ID, "name": se.Name},
				"note": "The series holds those values already; nothing was sent."})
		}
		rb, err := d.Mutate(ctx, "series "+se.ID, func(ctx context.Context) (*http.Response, error) {
			return d.API.UpdateSeries(ctx, se.ID, body)
		})
		if err != nil {
			return nil, err
		}
		var now absdata.Series
		if err := kit.Decode(rb, &now); err != nil {
			return nil, err
		}
		out := map[string]any{
			"updated":  true,
			"series":   map[string]any{"id": now.ID, "name": now.Name, "description": now.Description.String(), "library_id": now.LibraryID},
			"previous": prev,
		}
		if len(lost) > 0 {
			out["not_put_back"] = "The old " + strings.Join(lost, " and ") + " could not be given back with update_series (" + strings.Join(whys, "; ") + "); it is in previous, whole."
		} else {
			out["put_back"] = &result.PutBack{Tool: "update_series", Arguments: args}
		}
		return result.JSONResult(out)
	}
	return plan, nil
}

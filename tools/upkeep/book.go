package upkeep

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/argdec"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
)

// editable are the fields update_item_metadata sets, by its names; match
// fields are the others quick match sets.
var (
	editableFields  = argdec.MetadataFieldNames
	matchOnlyFields = []string{"cover"}
)

// orNil and lazyOrNil are a text as the tool shows it: nil for null.
func orNil(t absdata.Text) any {
	if !t.Valid {
		return nil
	}
	return t.Value
}

func lazyOrNil(t absdata.LazyText) any {
	if t.Null() {
		return nil
	}
	return t.String()
}

func listOf(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

// valueOf is a field of book b as the tool names it: a string or null, a
// list of names, a list of {name, sequence}, or a boolean. It is read from
// the book as Audiobookshelf keeps it (kit.Deps.ReadItemRecord), where a
// null text is kept apart from "".
func valueOf(b *absdata.Item, field string) any {
	m := &b.Media.Metadata
	switch field {
	case "title":
		return orNil(m.Title)
	case "subtitle":
		return orNil(m.Subtitle)
	case "description":
		return lazyOrNil(m.Description)
	case "publish_year":
		return orNil(m.PublishedYear)
	case "authors":
		out := []string{}
		for _, a := range m.Authors {
			out = append(out, a.Name)
		}
		return out
	case "narrators":
		return listOf(m.Narrators)
	case "genres":
		return listOf(m.Genres)
	case "tags":
		return listOf(b.Media.Tags)
	case "series":
		out := []argdec.SeriesEntry{}
		for _, s := range m.Series {
			e := argdec.SeriesEntry{Name: s.Name}
			e.Sequence = s.Sequence.Value
			out = append(out, e)
		}
		return out
	case "publisher":
		return orNil(m.Publisher)
	case "language":
		return orNil(m.Language)
	case "isbn":
		return orNil(m.ISBN)
	case "asin":
		return orNil(m.ASIN)
	case "explicit":
		return m.Explicit
	case "abridged":
		return m.Abridged
	case "cover":
		return orNil(b.Media.CoverPath)
	}
	return nil
}

// holdsValue reports whether a field of book b holds a value (quick match
// fills only fields that do not, unless told to override).
func holdsValue(b *absdata.Item, field string) bool {
	switch v := valueOf(b, field).(type) {
	case nil:
		return false
	case string:
		return v != ""
	case bool:
		return v
	case []string:
		return len(v) > 0
	case []argdec.SeriesEntry:
		return len(v) > 0
	}
	return false
}

func sameValue(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

func getBook(ctx context.Context, d *kit.Deps, id, tool string) (*absdata.Item, error) {
	b, err := d.ReadItemRecord(ctx, id)
	if err != nil {
		return nil, err
	}
	if b.MediaType != "book" {
		return nil, kit.Errorf(kit.Unchanged, `argument "library_item_id": %s is a %s; %s works on books only.`, id, b.MediaType, tool)
	}
	return b, nil
}

// changeItem sends a write to one item; a 403 names the permission.
func changeItem(ctx context.Context, d *kit.Deps, id string, s kit.Sender) ([]byte, error) {
	r, err := sendToItem(ctx, d, id, "library item "+id, "changing an item needs the update permission (Settings → Users → the user → Can Update)", nil, s)
	if err != nil {
		return nil, err
	}
	return r.Body, nil
}

// sendToItem sends a write to library item id, what in its errors: a 403
// says the user of the key lacks a permission (denied: what needs which),
// refused (when given) turns another status into an error first, and any
// other failure is Audiobookshelf's own.
func sendToItem(ctx context.Context, d *kit.Deps, id, what, denied string, refused func(*kit.Response) error, s kit.Sender) (*kit.Response, error) {
	r, err := d.Send(kit.ForItem(ctx, id), true, s)
	if err != nil {
		return nil, err
	}
	if r.Status == http.StatusForbidden {
		return nil, kit.Errorf(kit.Unchanged, "Audiobookshelf answered 403 Forbidden for library item %s: %s, which the user of this API key lacks.", id, denied)
	}
	if refused != nil {
		if err := refused(r); err != nil {
			return nil, err
		}
	}
	if r.Status/100 != 2 {
		return nil, kit.StatusError(r, what, true)
	}
	if err := d.CheckWrite(r, what); err != nil {
		return nil, err
	}
	return r, nil
}

// putBackArgs turns previous values into update_item_metadata's fields:
// null texts become "" (Audiobookshelf stores "" as null). ok is false
// when the result would not be accepted by update_item_metadata (a value
// longer than it takes, a null title).
func putBackArgs(id string, prev map[string]any) (*result.PutBack, string) {
	fields := map[string]any{}
	for k, v := range prev {
		if v == nil {
			if k == "title" {
				return nil, "the title was null, and a title cannot be set to nothing"
			}
			v = ""
		}
		fields[k] = v
	}
	args := map[string]any{"library_item_id": id, "fields": fields}
	raw, _ := json.Marshal(args)
	if _, err := toolargs.DecodeUpdateItemMetadata(raw); err != nil {
		return nil, kit.Clip(err.Error(), 300)
	}
	return &result.PutBack{Tool: "update_item_metadata", Arguments: args}, ""
}

// descriptionShown is how much of a new description an answer repeats.
const descriptionShown = 300

// nowValues are the values after a change, for an answer: a description is
// shown by its start and length (the caller sent it, or the provider did).
func nowValues(b *absdata.Item, fields []string, id string) map[string]any {
	now := map[string]any{}
	for _, k := range fields {
		v := valueOf(b, k)
		if s, ok := v.(string); ok && k == "description" {
			shown, total, cut := result.Excerpt(s, descriptionShown, fmt.Sprintf(`get_library_item {"library_item_id": %q}`, id))
			if cut != "" {
				now[k] = map[string]any{"start": shown, "length": total}
				continue
			}
		}
		now[k] = v
	}
	return now
}

package e2e

import (
	"strings"
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/guard"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/toolgen"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// named is a target as a question names it: its noun, its quoted name and
// its id.
func named(noun, name, id string) string {
	if noun == "" {
		return `"` + name + `" (id ` + id + `)`
	}
	return noun + ` "` + name + `" (id ` + id + `)`
}

// bookmarkCRTime is the time of a bookmark whose title holds a CR, which
// update_bookmark's put-back could not carry: renaming it asks.
const bookmarkCRTime = 2345.0

func addCRBookmark(s *sd.Server) {
	s.Update(func(d *sd.Data) {
		d.Users[0].Bookmarks = append(d.Users[0].Bookmarks, sd.Bookmark{LibraryItemID: sd.ItemColourOfMagic, Time: bookmarkCRTime,
			Title: "Rincewind\r\nmeets the Luggage", CreatedAt: 1780000000000})
	})
}

// questionNames is what each guarded tool's question must hold for the
// call of guardedCases (and update_bookmark's below): each target by its
// quoted name beside its id, the books it removes or reorders by title, and
// a merge's or rename's direction in words.
var questionNames = map[string][]string{
	"set_media_progress":    {named("book", "Leviathan Wakes", sd.ItemLeviathanWakes)},
	"delete_media_progress": {"progress record " + sd.ProgressColourOfMagic, named("book", "The Colour of Magic", sd.ItemColourOfMagic)},
	"delete_bookmark":       {`bookmark "The Luggage appears" at 1234.5 s in ` + named("book", "The Colour of Magic", sd.ItemColourOfMagic)},
	"update_bookmark":       {`title "Rincewind meets the Luggage" of the bookmark at 2345 s in ` + named("book", "The Colour of Magic", sd.ItemColourOfMagic) + ` with "Rincewind"`},
	"update_collection": {named("collection", "Discworld in order", sd.CollectionDiscworldInOrder),
		"New order: " + named("", "Mort", sd.ItemMort) + ", " + named("", "The Colour of Magic", sd.ItemColourOfMagic)},
	"remove_books_from_collection": {"remove 1 book(s) (" + named("", "Mort", sd.ItemMort) + ") from " + named("collection", "Discworld in order", sd.CollectionDiscworldInOrder)},
	"delete_collection":            {"delete " + named("collection", "Space Opera Picks", sd.CollectionSpaceOpera)},
	"update_playlist": {named("playlist", "Commute", sd.PlaylistCommute),
		"New order: " + named("", "Project Hail Mary", sd.ItemProjectHailMary) + ", " + named("", "Mort", sd.ItemMort)},
	"remove_items_from_playlist": {"(" + named("", "Mort", sd.ItemMort) + ") of " + named("playlist", "Commute", sd.PlaylistCommute)},
	"delete_playlist":            {"delete " + named("playlist", "Commute", sd.PlaylistCommute)},
	"add_items_to_playlist":      {"to " + named("playlist", "Later", emptyPlaylist) + ", which holds 0 entries"},
	"match_library_item":         {named("book", "Mort", sd.ItemMort) + ` with the first result of provider "openlibrary"`},
	"remove_item_cover":          {"cover of " + named("book", "Mort", sd.ItemMort)},
	"set_item_chapters":          {"replace the 40 chapter(s) of " + named("book", "Leviathan Wakes", sd.ItemLeviathanWakes) + ` with Audnexus's 6 for ASIN "B004YE8ZYA"`},
	"set_item_cover":             {"replace the cover of " + named("book", "Mort", sd.ItemMort) + ` with the image at "https://covers.example/mort.png"`},
	"update_item_metadata": {named("book", "Project Hail Mary", sd.ItemProjectHailMary),
		"delete 1 author (" + named("", "Andy Weir", sd.AuthorWeir) + ")"},
	"rename_tag": {`rename tag "witches" to "discworld"`,
		named("", "Equal Rites", sd.ItemEqualRites), named("", "Wyrd Sisters", sd.ItemWyrdSisters)},
	"rename_genre":    {`rename genre "Humor" to "Fantasy"`, named("", "Mort", sd.ItemMort)},
	"rename_narrator": {`rename narrator "Celia Imrie" to "Nigel Planer"`, named("", "Equal Rites", sd.ItemEqualRites)},
	"merge_authors": {"merge " + named("author", "Neil Gaiman", sd.AuthorGaiman) + " into " + named("", "Terry Pratchett", sd.AuthorPratchett),
		"removes " + named("author", "Neil Gaiman", sd.AuthorGaiman),
		named("", "Neverwhere", sd.ItemNeverwhere), named("", "Good Omens", sd.ItemGoodOmens),
		"a biography: no; an ASIN: no; an image: no"},
	"merge_series": {"merge " + named("series", "Earthsea", sd.SeriesEarthsea) + " into " + named("", "The Expanse", sd.SeriesExpanse),
		"removes " + named("series", "Earthsea", sd.SeriesEarthsea),
		named("", "A Wizard of Earthsea", sd.ItemWizardOfEarthsea), named("", "The Tombs of Atuan", sd.ItemTombsOfAtuan),
		"goes with its summary: no"},
	"batch_update_books": {`take "discworld" out of the tags on 2 book(s): ` + named("", "Mort", sd.ItemMort) + ", " + named("", "Equal Rites", sd.ItemEqualRites)},
	"batch_quick_match":  {named("", "Mort", sd.ItemMort) + ", " + named("", "Sourcery", sd.ItemSourcery)},
	"merge_tags": {`merge the 2 tags "witches", "no such tag" into the one tag "discworld"`,
		named("", "Equal Rites", sd.ItemEqualRites), named("", "Wyrd Sisters", sd.ItemWyrdSisters)},
	"merge_genres": {`merge the 2 genres "No Such Genre", "Humor" into the one genre "Fantasy"`, named("", "Mort", sd.ItemMort)},
	"merge_narrators": {`merge the 2 narrators "Celia Imrie", "Nobody Here" into the one narrator "Nigel Planer"`,
		named("", "Equal Rites", sd.ItemEqualRites)},
	"delete_podcast_episode": {"remove " + named("episode", "The Screw", sd.EpisodeTinyThings1) + " from " + named("podcast", "The History of Tiny Things", sd.ItemPodcastTinyThings)},
	"delete_podcast": {"delete " + named("podcast", "Orbital Mechanics Weekly", sd.ItemPodcastOrbital),
		named("", "Catch-up Episodes", sd.PlaylistCatchUp)},
}

// TestEveryQuestionNamesItsTargets: every guarded tool of tools.yaml, those
// that always ask and those that ask on an effect, is run into its
// question on the stand-in, and the question must name each target by its
// quoted name beside its id (the books it removes or reorders by title),
// and say a merge's or rename's direction in words: a person reading it
// without the conversation can tell what will change. The token path's
// text must say the same.
func TestEveryQuestionNamesItsTargets(t *testing.T) {
	t.Parallel()
	m, err := toolgen.Load("../../tools.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cases := append(guardedCases(), guardedCase{tool: "update_bookmark", setup: addCRBookmark,
		args: map[string]any{"library_item_id": sd.ItemColourOfMagic, "time": bookmarkCRTime, "title": "Rincewind"}})
	seen := map[string]bool{}
	for _, c := range cases {
		seen[c.tool] = true
	}
	for i := range m.Tools {
		if tl := &m.Tools[i]; tl.Guarded() && (!seen[tl.Name] || questionNames[tl.Name] == nil) {
			t.Errorf("guarded tool %s has no case here: add one to questionNames", tl.Name)
		}
	}
	for _, c := range cases {
		t.Run(c.tool, func(t *testing.T) {
			t.Parallel()
			rec := &recorder{answer: func(*mcp.ElicitRequest) *mcp.ElicitResult { return &mcp.ElicitResult{Action: "decline"} }}
			e := start(t, apptest.Options{Elicit: rec.handle})
			c.prepare(e.Standin)
			res := e.Call(t, c.tool, c.args)
			asked := rec.asked()
			if len(asked) != 1 {
				t.Fatalf("asked %d times, want once: %s", len(asked), apptest.Text(res))
			}
			for _, w := range questionNames[c.tool] {
				if !strings.Contains(asked[0], w) {
					t.Errorf("the question lacks %s:\n%s", w, asked[0])
				}
			}
			tok := start(t, apptest.Options{})
			c.prepare(tok.Standin)
			text := apptest.Text(tok.Call(t, c.tool, c.args))
			if !strings.Contains(text, "What the call would do:\n\n"+asked[0]+"\n\n") {
				t.Errorf("the token path does not say what the question says:\n%s\n--- question:\n%s", text, asked[0])
			}
		})
	}
}

// quotedParts splits a question into what stands outside quoted names and
// the quoted names themselves.
func quotedParts(q string) (outside string, quoted []string) { return apptest.Unquoted(q) }

// hostileChars are characters no question may carry: bidi overrides and
// isolates, zero-width characters, a BOM, a soft hyphen, a tag character,
// line breaks inside a paragraph and the C0 and C1 controls that name them.
var hostileChars = []string{"\u202e", "\u202d", "\u2066", "\u2067", "\u2068", "\u2069", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\U000E0041", "\r", "\x1b", "\x7f", "\u009b", "\u0085", "\u2028", "\u2029", "\t", "\v", "\f", "\x00"}

// onlyQuoted checks a question against hostile words: each may appear only
// inside a quoted name, never in the question's own sentences; no quoted
// name is longer than guard.MaxQuoted characters; the question carries
// none of hostileChars, and no line break but the ones between its
// paragraphs.
func onlyQuoted(t *testing.T, where, q string, words ...string) {
	t.Helper()
	outside, quoted := quotedParts(q)
	for _, w := range words {
		if strings.Contains(outside, w) {
			t.Errorf("%s: %q stands outside a quoted name:\n%s", where, w, q)
		}
	}
	for _, n := range quoted {
		if len([]rune(n)) > guard.MaxQuoted {
			t.Errorf("%s: a quoted name of %d characters, longer than %d:\n%s", where, len([]rune(n)), guard.MaxQuoted, q)
		}
	}
	for _, c := range hostileChars {
		if strings.Contains(q, c) {
			t.Errorf("%s: the question carries %q:\n%s", where, c, q)
		}
	}
	for _, p := range strings.Split(q, "\n\n") {
		if strings.Contains(p, "\n") {
			t.Errorf("%s: a line break inside a paragraph:\n%s", where, q)
		}
	}
}

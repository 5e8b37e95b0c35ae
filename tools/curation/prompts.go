package curation

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/naming"
)

// PromptTidyALibrary is the text of the tidy_a_library prompt: run the
// audits named (tools.yaml's enum of its audits argument: this toolset's
// audit_NAME tools), show what they found, propose fixes with the tools
// there are, and change nothing before the person agrees. On a read-only
// server it names no write tool.
func PromptTidyALibrary(ctx context.Context, d *kit.Deps, a naming.PromptArgs) (string, error) {
	audits, err := auditsOf(a.Enum("audits"), a.String("audits"))
	if err != nil {
		return "", err
	}
	id, name := a.ID("library"), a.Named("library")
	if name == id {
		// Given by its id: the book library's name, and its kind, from
		// Audiobookshelf.
		_, l, err := d.ReadLibrary(ctx, id)
		if err != nil {
			return "", err
		}
		if l.MediaType != "book" {
			return "", fmt.Errorf(`argument "library": %q is a %s library; the audits read book libraries`, l.Name, l.MediaType)
		}
		name = l.Name
	}
	var tools []string
	for _, au := range audits {
		tools = append(tools, "audit_"+au)
	}
	call, _ := json.Marshal(map[string]any{"library_id": id})
	var b strings.Builder
	fmt.Fprintf(&b, "Help me tidy my library %q. Run %s, each with %s; ", name, strings.Join(tools, ", "), call)
	b.WriteString("when an answer has \"next\", call again with that page until there is none. " +
		"Change nothing while auditing: the audits only read.\n\n" +
		"Then show me what was found: first the count of findings per kind of each audit (its counts), " +
		"then the findings, audit by audit, each with the titles and names it concerns (keep the ids for the fixes).\n\n")
	if a.ReadOnly {
		b.WriteString("Then propose fixes, one finding at a time, as changes I make in Audiobookshelf myself: this server is " +
			"read-only, so no fix can be applied from here. Say how many books each fix touches. If these tools are not in your tool list: enable_toolset {\"toolset\": \"curation\"}, " +
			"or run them with call_tool.")
		return b.String(), nil
	}
	b.WriteString("Then propose fixes, one finding at a time, with the tools that exist: update_item_metadata (toolset upkeep) " +
		"sets one book's series and sequence, authors, narrators, genres, tags and other fields " +
		"(a list replaces the whole list, so give the book's other entries too), and match_library_item fills in a book's " +
		"missing metadata from a provider. rename_tag and rename_genre (toolset curation) rename a tag or a genre on every " +
		"book and podcast of the server in one call, and merge it into another when the new name is one in use; " +
		"rename_narrator does the same for a narrator on every book. merge_tags, merge_genres and merge_narrators (toolset " +
		"curation) merge several spellings into one in one call. merge_authors and " +
		"merge_series (toolset curation) merge one author or series into another of the same library, moving every book. " +
		"batch_update_books (toolset curation) adds, removes or sets tags, genres or narrators, sets the publisher or language, " +
		"or puts books into or out of a series, on up to 100 chosen books in one call; batch_quick_match (toolset curation) " +
		"matches up to 100 books against a provider in the background. Renaming an author or a series record, and changing many " +
		"books' authors at once, do not exist yet: such a fix is one update_item_metadata per book, so say " +
		"how many books it touches. No tool here deletes a book: for a duplicate, say which copy to keep and that removing the other is done " +
		"in Audiobookshelf itself.\n\n" +
		"Apply a fix only after I agree to that fix, and only what I agreed to; show me what each answer says it " +
		"replaced and the call that puts it back. Some changes ask for approval themselves (taking an author or " +
		"series off the last book that has it, a rename that merges two tags, or any merge of authors or series, for example): tell me what the question says and let me answer it; " +
		"never approve for me.")
	b.WriteString(" If these tools are not in your tool list: enable_toolset {\"toolset\": \"curation\"} for the audits, renames and batch fixes " +
		"and enable_toolset {\"toolset\": \"upkeep\"} for the fixes of one book, or run them with call_tool.")
	return b.String(), nil
}

// auditsOf is the audits named in value (comma-separated, "audit_" before
// a name allowed), in the order of all; all of them when value is blank.
func auditsOf(all []string, value string) ([]string, error) {
	if strings.TrimSpace(value) == "" {
		return all, nil
	}
	want := map[string]bool{}
	for part := range strings.SplitSeq(value, ",") {
		n := strings.ToLower(strings.TrimSpace(part))
		n = strings.TrimPrefix(n, "audit_")
		n = strings.ReplaceAll(n, " ", "_")
		if n == "" {
			continue
		}
		if !slices.Contains(all, n) {
			return nil, fmt.Errorf(`argument "audits": %q is not an audit; the audits are %s, separated by commas`, strings.TrimSpace(part), strings.Join(all, ", "))
		}
		want[n] = true
	}
	if len(want) == 0 {
		return all, nil
	}
	var out []string
	for _, n := range all {
		if want[n] {
			out = append(out, n)
		}
	}
	return out, nil
}

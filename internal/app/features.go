package app

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/registry"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/listening"
)

// Prompts, resources and completions come with the listening toolset,
// whose tools are always reachable (in the list when
// AUDIOBOOKSHELF_TOOLSETS names it, else one enable_toolset or call_tool
// away), so they are always offered.
//
// A prompt is text that asks the model to call the listening tools; a
// resource is a read tool's answer (or a cover), got through the same
// wrap as a tool call, so per-person mode, the result budget and the
// error edge hold as they do for tools. Completions look libraries,
// series, authors and items up with the key of the person asking.

// Resource URIs.
const (
	uriListeningNow = "audiobookshelf://me/listening-now"
	uriItem         = "audiobookshelf://items/{id}"
	uriItemCover    = "audiobookshelf://items/{id}/cover"
	itemPrefix      = "audiobookshelf://items/"
)

// The read tools whose answers the resources are.
const (
	toolNow   = "list_items_in_progress"
	toolItem  = "get_library_item"
	toolCover = "get_item_cover"
)

// Prompt names and their arguments.
const (
	promptNext    = "what_to_listen_to_next"
	promptPeriod  = "my_listening_in_a_year_or_month"
	promptSeries  = "where_am_i_in_a_series"
	promptTidy    = "tidy_a_library"
	argLibrary    = "library"
	argAuthor     = "author"
	argSeries     = "series"
	argYear       = "year"
	argMonth      = "month"
	argMaxHours   = "max_hours"
	argAudits     = "audits"
	argResourceID = "id"
)

// features serves prompts, resources and completions.
type features struct {
	deps   *kit.Deps
	logger *slog.Logger
	tools  map[string]mcp.ToolHandler
	// readOnly: the server serves no write tool (AUDIOBOOKSHELF_READ_ONLY),
	// so the tidy prompt proposes fixes without applying them.
	readOnly bool
}

func newFeatures(deps *kit.Deps, logger *slog.Logger, readOnly bool) *features {
	f := &features{deps: deps, logger: logger, tools: map[string]mcp.ToolHandler{}, readOnly: readOnly}
	for _, t := range registry.All {
		if slices.Contains([]string{toolNow, toolItem, toolCover}, t.Name) {
			f.tools[t.Name] = wrap(t, deps, logger)
		}
	}
	return f
}

// personCtx is ctx for the person of the request in per-person mode; ok
// false when a per-person request came without one.
func (f *features) personCtx(ctx context.Context, extra *mcp.RequestExtra) (context.Context, bool) {
	if !f.deps.PerPerson {
		return ctx, true
	}
	p := personOf(extra)
	if p == nil {
		return ctx, false
	}
	return forPerson(ctx, p), true
}

// add registers the prompts and resources with s.
func (f *features) add(s *mcp.Server) {
	s.AddPrompt(&mcp.Prompt{Name: promptNext, Title: "What should I listen to next?",
		Description: "Suggest what to listen to next: what I am in the middle of, the next book of each series I have started (and where a series has a gap), and what fits the time I have.",
		Arguments: []*mcp.PromptArgument{
			{Name: argLibrary, Title: "Library", Description: "Only this library, by name."},
			{Name: argAuthor, Title: "Author", Description: "Prefer books by this author, by name."},
			{Name: argMaxHours, Title: "Hours at most", Description: "Only what takes at most this many hours, a number."},
		}}, f.getPrompt)
	s.AddPrompt(&mcp.Prompt{Name: promptPeriod, Title: "My listening in a year or month",
		Description: "Summarize my listening in one year, or one month of it: time listened, books finished and how long each took, top authors, narrators and genres.",
		Arguments: []*mcp.PromptArgument{
			{Name: argYear, Title: "Year", Description: "The year, for example 2025.", Required: true},
			{Name: argMonth, Title: "Month", Description: "A month of the year, 1 to 12; the whole year when left out."},
			{Name: argLibrary, Title: "Library", Description: "Only this library, by name."},
		}}, f.getPrompt)
	s.AddPrompt(&mcp.Prompt{Name: promptSeries, Title: "Where am I in a series?",
		Description: "Where I am in one series: the books I finished, the one I am in, what comes next, and any gap or doubled number in the series.",
		Arguments: []*mcp.PromptArgument{
			{Name: argSeries, Title: "Series", Description: "The series, by name.", Required: true},
			{Name: argLibrary, Title: "Library", Description: "Only this library, by name."},
		}}, f.getPrompt)

	s.AddPrompt(&mcp.Prompt{Name: promptTidy, Title: "Tidy a library",
		Description: "Audit a book library (series, authors and narrators, duplicates, missing metadata, tags and genres), show what was found, and propose fixes, applying each only once I agree.",
		Arguments: []*mcp.PromptArgument{
			{Name: argLibrary, Title: "Library", Description: "The book library, by name.", Required: true},
			{Name: argAudits, Title: "Audits", Description: "Only these audits, separated by commas: " + strings.Join(auditNames, ", ") + "; all of them when left out."},
		}}, f.getPrompt)

	s.AddResource(&mcp.Resource{URI: uriListeningNow, Name: "listening-now", Title: "What I am listening to now",
		Description: "The books and episodes the person is in the middle of, most recent first, with where they are (list_items_in_progress).",
		MIMEType:    "application/json"}, f.readResource)
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: uriItem, Name: "library-item", Title: "A library item",
		Description: "One book or podcast by its library item id: metadata, chapters, episodes and the person's progress (get_library_item).",
		MIMEType:    "application/json"}, f.readResource)
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: uriItemCover, Name: "library-item-cover", Title: "A library item's cover",
		Description: "The cover image of a book or podcast by its library item id, as a blob (JPEG)."}, f.readResource)
}

// promptError is the error of prompts/get for bad arguments.
func promptError(format string, a ...any) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, a...)}
}

func (f *features) getPrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	ctx, ok := f.personCtx(ctx, req.Extra)
	if !ok {
		return nil, promptError("this server serves each person with their own Audiobookshelf API key, and this request came without one")
	}
	args := req.Params.Arguments
	var text string
	switch req.Params.Name {
	case promptNext:
		call := map[string]any{}
		if lib := strings.TrimSpace(args[argLibrary]); lib != "" {
			l, err := listening.LibraryNamed(ctx, f.deps, lib)
			if err != nil {
				return nil, promptError("%v", err)
			}
			call["library_id"] = l.ID
		}
		if h := strings.TrimSpace(args[argMaxHours]); h != "" {
			n, err := strconv.ParseFloat(h, 64)
			if err != nil || n < 0.1 || n > 10000 {
				return nil, promptError(`argument "max_hours": %q is not a number of hours from 0.1 to 10000`, h)
			}
			call["max_hours"] = n
		}
		text = "What should I listen to next? Call what_next with " + jsonOf(call) + ". " +
			"Start with what I am in the middle of (how much is left), then the next book of each series I have started, " +
			"saying where a series has a gap before it; then what I finished lately, if it points somewhere. " +
			"Give each suggestion with its library_item_id."
		if a := strings.TrimSpace(args[argAuthor]); a != "" {
			text += fmt.Sprintf(" Prefer books by the author I named: %q (search_library finds their other books).", a)
		}
	case promptPeriod:
		y, err := strconv.Atoi(strings.TrimSpace(args[argYear]))
		if err != nil || y < 2000 || y > 2100 {
			return nil, promptError(`argument "year": %q is not a year from 2000 to 2100`, args[argYear])
		}
		call := map[string]any{"from": fmt.Sprintf("%04d-01-01", y), "to": fmt.Sprintf("%04d-12-31", y), "by": "month"}
		what := fmt.Sprintf("in %d", y)
		if m := strings.TrimSpace(args[argMonth]); m != "" {
			n, err := strconv.Atoi(m)
			if err != nil || n < 1 || n > 12 {
				return nil, promptError(`argument "month": %q is not a month from 1 to 12`, m)
			}
			last := [13]int{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[n]
			if n == 2 && (y%4 == 0 && (y%100 != 0 || y%400 == 0)) {
				last = 29
			}
			call = map[string]any{"from": fmt.Sprintf("%04d-%02d-01", y, n), "to": fmt.Sprintf("%04d-%02d-%02d", y, n, last), "by": "day", "limit": 31}
			what = fmt.Sprintf("in %04d-%02d", y, n)
		}
		if lib := strings.TrimSpace(args[argLibrary]); lib != "" {
			l, err := listening.LibraryNamed(ctx, f.deps, lib)
			if err != nil {
				return nil, promptError("%v", err)
			}
			call["library_id"] = l.ID
		}
		text = fmt.Sprintf("Summarize my listening %s. Call get_listening_by_period with %s", what, jsonOf(call))
		if _, ok := call["library_id"]; !ok && call["by"] == "month" {
			text += fmt.Sprintf(", and get_year_stats with {\"year\":%d} for Audiobookshelf's own year in review", y)
		}
		text += ". Say how much I listened in all and when most, which books and episodes I finished and how many days each took, " +
			"and my top authors, narrators and genres. Times are in seconds: give them in hours and minutes."
	case promptSeries:
		name := strings.TrimSpace(args[argSeries])
		if name == "" {
			return nil, promptError(`argument "series": required, the series' name (completion/complete lists them)`)
		}
		s, err := listening.SeriesNamed(ctx, f.deps, strings.TrimSpace(args[argLibrary]), name)
		if err != nil {
			return nil, promptError("%v", err)
		}
		text = fmt.Sprintf("Where am I in the series I named (%q)? Call get_series_progress with %s. "+
			"Say which books I finished, which one I am in and how far, and which comes next; name any gap in the numbering "+
			"and any number two books share.", name, jsonOf(map[string]any{"series_id": s.ID}))
	case promptTidy:
		t, err := f.tidyText(ctx, args)
		if err != nil {
			return nil, err
		}
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: t}}}}, nil
	default:
		return nil, promptError("unknown prompt %q: prompts/list names them", req.Params.Name)
	}
	// The listening tools may not be in the session's tool list (the toolset
	// is not among the default tools): the way to them is one step.
	text += " If these tools are not in your tool list: enable_toolset {\"toolset\": \"listening\"}, or run them with call_tool."
	return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}}}, nil
}

// auditNames are the audits the tidy prompt can ask for: the curation
// toolset's audit_NAME tools.
var auditNames = []string{"series", "people", "duplicates", "missing", "tags_and_genres"}

// auditsOf is the audits named in value (comma-separated, "audit_" before a
// name allowed), in the order of auditNames; all of them when value is
// blank.
func auditsOf(value string) ([]string, error) {
	if strings.TrimSpace(value) == "" {
		return auditNames, nil
	}
	want := map[string]bool{}
	for part := range strings.SplitSeq(value, ",") {
		n := strings.ToLower(strings.TrimSpace(part))
		n = strings.TrimPrefix(n, "audit_")
		n = strings.ReplaceAll(n, " ", "_")
		if n == "" {
			continue
		}
		if !slices.Contains(auditNames, n) {
			return nil, promptError(`argument "audits": %q is not an audit; the audits are %s, separated by commas`, strings.TrimSpace(part), strings.Join(auditNames, ", "))
		}
		want[n] = true
	}
	if len(want) == 0 {
		return auditNames, nil
	}
	var out []string
	for _, n := range auditNames {
		if want[n] {
			out = append(out, n)
		}
	}
	return out, nil
}

// tidyText is the text of the tidy prompt: run the audits, show what they
// found, propose fixes with the tools there are, and change nothing before
// the person agrees.
func (f *features) tidyText(ctx context.Context, args map[string]string) (string, error) {
	name := strings.TrimSpace(args[argLibrary])
	if name == "" {
		return "", promptError(`argument "library": required, the book library's name (completion/complete lists them)`)
	}
	audits, err := auditsOf(args[argAudits])
	if err != nil {
		return "", err
	}
	l, err := listening.LibraryNamed(ctx, f.deps, name)
	if err != nil {
		return "", promptError("%v", err)
	}
	if l.MediaType != "book" {
		return "", promptError(`argument "library": %q is a %s library; the audits read book libraries`, l.Name, l.MediaType)
	}
	var tools []string
	for _, a := range audits {
		tools = append(tools, "audit_"+a)
	}
	call := jsonOf(map[string]any{"library_id": l.ID})
	var b strings.Builder
	fmt.Fprintf(&b, "Help me tidy my library %q. Run %s, each with %s; ", l.Name, strings.Join(tools, ", "), call)
	b.WriteString("when an answer has \"next\", call again with that page until there is none. " +
		"Change nothing while auditing: the audits only read.\n\n" +
		"Then show me what was found: first the count of findings per kind of each audit (its counts), " +
		"then the findings, audit by audit, each with the titles and names it concerns (keep the ids for the fixes).\n\n")
	if f.readOnly {
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

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// itemID is the id of an item resource URI and whether it is the cover.
func itemID(uri string) (id string, cover, ok bool) {
	rest, found := strings.CutPrefix(uri, itemPrefix)
	if !found {
		return "", false, false
	}
	if r, c := strings.CutSuffix(rest, "/cover"); c {
		rest, cover = r, true
	}
	if rest == "" || strings.ContainsAny(rest, "/?#") {
		return "", false, false
	}
	return rest, cover, true
}

func (f *features) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	tool, args := "", map[string]any{}
	var cover bool
	switch {
	case uri == uriListeningNow:
		tool = toolNow
	default:
		id, c, ok := itemID(uri)
		if !ok {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		cover = c
		tool, args = toolItem, map[string]any{"library_item_id": id}
		if cover {
			tool = toolCover
		}
	}
	raw, _ := json.Marshal(args)
	res, err := f.tools[tool](ctx, &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: tool, Arguments: raw}, Extra: req.Extra})
	if err != nil {
		return nil, err
	}
	var text string
	var img *mcp.ImageContent
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			text += c.Text
		case *mcp.ImageContent:
			img = c
		}
	}
	if res.IsError {
		// An id Audiobookshelf does not have, or an item without a cover.
		if strings.Contains(text, "404") || (cover && img == nil && strings.Contains(text, "no cover")) {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: text}
	}
	if cover {
		if img == nil {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: img.MIMEType, Blob: img.Data}}}, nil
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: text}}}, nil
}

// complete answers completion/complete for the prompts' arguments and the
// item templates' id; anything else gets no values.
func (f *features) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	none := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}
	ctx, ok := f.personCtx(ctx, req.Extra)
	if !ok || req.Params == nil || req.Params.Ref == nil {
		return none, nil
	}
	p := req.Params
	library := ""
	if p.Context != nil {
		library = strings.TrimSpace(p.Context.Arguments[argLibrary])
	}
	var (
		values []string
		total  int
		err    error
	)
	switch {
	case p.Ref.Type == "ref/prompt" && (p.Ref.Name == promptNext || p.Ref.Name == promptPeriod || p.Ref.Name == promptSeries) && p.Argument.Name == argLibrary:
		values, total, err = listening.LibraryNames(ctx, f.deps, p.Argument.Value)
	case p.Ref.Type == "ref/prompt" && p.Ref.Name == promptTidy && p.Argument.Name == argLibrary:
		values, total, err = listening.BookLibraryNames(ctx, f.deps, p.Argument.Value)
	case p.Ref.Type == "ref/prompt" && p.Ref.Name == promptTidy && p.Argument.Name == argAudits:
		// The last of the names separated by commas.
		done, last := "", p.Argument.Value
		if i := strings.LastIndex(last, ","); i >= 0 {
			done, last = last[:i+1], last[i+1:]
		}
		for _, n := range auditNames {
			if strings.HasPrefix(n, strings.ToLower(strings.TrimSpace(last))) {
				values = append(values, done+n)
			}
		}
		total = len(values)
	case p.Ref.Type == "ref/prompt" && p.Ref.Name == promptSeries && p.Argument.Name == argSeries:
		values, total, err = listening.SeriesNames(ctx, f.deps, library, p.Argument.Value)
	case p.Ref.Type == "ref/prompt" && p.Ref.Name == promptNext && p.Argument.Name == argAuthor:
		values, total, err = listening.AuthorNames(ctx, f.deps, library, p.Argument.Value)
	case p.Ref.Type == "ref/prompt" && p.Ref.Name == promptPeriod && p.Argument.Name == argMonth:
		for m := 1; m <= 12; m++ {
			if s := strconv.Itoa(m); strings.HasPrefix(s, strings.TrimSpace(p.Argument.Value)) {
				values = append(values, s)
			}
		}
		total = len(values)
	case p.Ref.Type == "ref/resource" && (p.Ref.URI == uriItem || p.Ref.URI == uriItemCover) && p.Argument.Name == argResourceID:
		values, total, err = listening.ItemIDs(ctx, f.deps, p.Argument.Value)
	default:
		return none, nil
	}
	if err != nil {
		// A name that is not there (the library of the context) or a
		// failed read: no values, and the log says why.
		f.logger.Info("completion found nothing", "ref", p.Ref.Name+p.Ref.URI, "argument", p.Argument.Name, "error", err.Error())
		return none, nil
	}
	if values == nil {
		values = []string{}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: total, HasMore: total > len(values)}}, nil
}

package listening

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/naming"
)

// The listening toolset's prompts (tools.yaml's prompts:): each writes
// the text that asks the model to call this toolset's tools, with the ids
// of what the person named (the arguments with names: come as ids,
// resolved as a tool's are). A bad argument is an error naming it.

// reachListening ends each text: the listening tools may not be in the
// session's tool list (the toolset is not among the default tools), and
// the way to them is one step.
const reachListening = " If these tools are not in your tool list: enable_toolset {\"toolset\": \"listening\"}, or run them with call_tool."

// PromptWhatToListenToNext asks for what_next, in the library named, for
// what fits the hours given, preferring the author named.
func PromptWhatToListenToNext(_ context.Context, _ *kit.Deps, a naming.PromptArgs) (string, error) {
	call := map[string]any{}
	if id := a.ID("library"); id != "" {
		call["library_id"] = id
	}
	if h := a.String("max_hours"); h != "" {
		n, err := strconv.ParseFloat(h, 64)
		if err != nil || n < 0.1 || n > 10000 {
			return "", fmt.Errorf(`argument "max_hours": %q is not a number of hours from 0.1 to 10000`, h)
		}
		call["max_hours"] = n
	}
	text := "What should I listen to next? Call what_next with " + jsonOf(call) + ". " +
		"Start with what I am in the middle of (how much is left), then the next book of each series I have started, " +
		"saying where a series has a gap before it; then what I finished lately, if it points somewhere. " +
		"Give each suggestion with its library_item_id."
	if au := a.Named("author"); au != "" {
		text += fmt.Sprintf(" Prefer books by the author I named: %q (search_library finds their other books).", au)
	}
	return text + reachListening, nil
}

// PromptMyListeningInAYearOrMonth asks for get_listening_by_period over
// the year (by month) or one month of it (by day), and for the whole year
// of every library Audiobookshelf's own year in review.
func PromptMyListeningInAYearOrMonth(_ context.Context, _ *kit.Deps, a naming.PromptArgs) (string, error) {
	y, err := strconv.Atoi(a.String("year"))
	if err != nil || y < 2000 || y > 2100 {
		return "", fmt.Errorf(`argument "year": %q is not a year from 2000 to 2100`, a.String("year"))
	}
	call := map[string]any{"from": fmt.Sprintf("%04d-01-01", y), "to": fmt.Sprintf("%04d-12-31", y), "by": "month"}
	what := fmt.Sprintf("in %d", y)
	if m := a.String("month"); m != "" {
		n, err := strconv.Atoi(m)
		if err != nil || n < 1 || n > 12 {
			return "", fmt.Errorf(`argument "month": %q is not a month from 1 to 12`, m)
		}
		last := [13]int{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[n]
		if n == 2 && (y%4 == 0 && (y%100 != 0 || y%400 == 0)) {
			last = 29
		}
		call = map[string]any{"from": fmt.Sprintf("%04d-%02d-01", y, n), "to": fmt.Sprintf("%04d-%02d-%02d", y, n, last), "by": "day", "limit": 31}
		what = fmt.Sprintf("in %04d-%02d", y, n)
	}
	if id := a.ID("library"); id != "" {
		call["library_id"] = id
	}
	text := fmt.Sprintf("Summarize my listening %s. Call get_listening_by_period with %s", what, jsonOf(call))
	if _, ok := call["library_id"]; !ok && call["by"] == "month" {
		text += fmt.Sprintf(", and get_year_stats with {\"year\":%d} for Audiobookshelf's own year in review", y)
	}
	text += ". Say how much I listened in all and when most, which books and episodes I finished and how many days each took, " +
		"and my top authors, narrators and genres. Times are in seconds: give them in hours and minutes."
	return text + reachListening, nil
}

// PromptWhereAmIInASeries asks for get_series_progress of the series
// named (in the library named, when one is).
func PromptWhereAmIInASeries(_ context.Context, _ *kit.Deps, a naming.PromptArgs) (string, error) {
	text := fmt.Sprintf("Where am I in the series I named (%q)? Call get_series_progress with %s. "+
		"Say which books I finished, which one I am in and how far, and which comes next; name any gap in the numbering "+
		"and any number two books share.", a.Given("series"), jsonOf(map[string]any{"series_id": a.ID("series")}))
	return text + reachListening, nil
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// maxOwnedLines is how many lines check_owned takes in one call.
const maxOwnedLines = 100

// PromptDoIOwnThese asks for check_owned with the lines given, in the
// library named.
func PromptDoIOwnThese(_ context.Context, _ *kit.Deps, a naming.PromptArgs) (string, error) {
	var lines []string
	for _, l := range strings.Split(a.String("titles"), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	switch {
	case len(lines) == 0:
		return "", fmt.Errorf(`argument "titles": give at least one title, one a line`)
	case len(lines) > maxOwnedLines:
		return "", fmt.Errorf(`argument "titles": %d lines; at most %d, one title a line`, len(lines), maxOwnedLines)
	}
	call := map[string]any{"text": strings.Join(lines, "\n")}
	if id := a.ID("library"); id != "" {
		call["library_id"] = id
	}
	text := "Do I already own these? Call check_owned with " + jsonOf(call) + ". " +
		"Answer line by line in my order: what I own (title, author, and whether I have not started it, how far I am, or when I finished it), " +
		"where several books could be meant (ask me which), and what is missing from my library. Do not guess a book the answer does not name."
	return text + reachListening, nil
}

// PromptWhatDidIAbandon asks for list_abandoned, books idle for the days
// given.
func PromptWhatDidIAbandon(_ context.Context, _ *kit.Deps, a naming.PromptArgs) (string, error) {
	call := map[string]any{}
	if v := a.String("idle_days"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 36500 {
			return "", fmt.Errorf(`argument "idle_days": %q is not a whole number of days from 1 to 36500`, v)
		}
		call["idle_days"] = n
	}
	text := "What did I start and never finish? Call list_abandoned with " + jsonOf(call) + ". " +
		"For each book say how far I got and how much is left, when I last listened, and whether I went on with its series without it; " +
		"then ask whether I want to pick one up again or mark one finished. Change nothing unless I say so."
	return text + reachListening, nil
}

// PromptRecommendFromMyLibrary asks for get_taste_profile in the library
// named, and for suggestions among the unstarted books it gives.
func PromptRecommendFromMyLibrary(_ context.Context, _ *kit.Deps, a naming.PromptArgs) (string, error) {
	call := map[string]any{}
	if id := a.ID("library"); id != "" {
		call["library_id"] = id
	}
	text := "Recommend what I should listen to next from books I own and have not started. Call get_taste_profile with " + jsonOf(call) + ". " +
		"Use the authors, narrators, genres and series I listen to and finish most, and how long the books I finish are; " +
		"suggest three to five of the unstarted books it gives, each with its library_item_id and one line on why it fits."
	if w := a.String("wish"); w != "" {
		text += fmt.Sprintf(" I am in the mood for: %q; weigh that first.", w)
	}
	return text + reachListening, nil
}

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
)

// calibansWarOutOfTheExpanse takes The Expanse's book 2 out of the series:
// root, who finished book 1, is midway through a series with a gap.
func calibansWarOutOfTheExpanse(s *sd.Server) {
	s.Update(func(d *sd.Data) {
		for i := range d.Items {
			if d.Items[i].ID == sd.ItemCalibansWar {
				d.Items[i].Book.Series = nil
			}
		}
	})
}

// setSequence gives a book another place in its series.
func setSequence(item, seq string) func(s *sd.Server) {
	return func(s *sd.Server) {
		s.Update(func(d *sd.Data) {
			for i := range d.Items {
				if d.Items[i].ID == item {
					d.Items[i].Book.Series[0].Sequence = seq
				}
			}
		})
	}
}

// manySessions adds n sessions of root in 2024, each of 60 s, one an hour,
// older than the sample's.
func manySessions(n int) func(s *sd.Server) {
	return func(s *sd.Server) {
		s.Update(func(d *sd.Data) {
			start := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
			for i := range n {
				at := start.Add(time.Duration(i) * time.Hour)
				d.Sessions = append(d.Sessions, sd.Session{ID: fmt.Sprintf("many-%d", i), UserID: sd.UserRootID, LibraryID: sd.LibraryBooksID,
					LibraryItemID: sd.ItemMort, MediaType: "book", DisplayTitle: "Mort", Date: at.Format("2006-01-02"), DayOfWeek: at.Weekday().String(),
					TimeListening: 60, StartedAt: at.UnixMilli(), UpdatedAt: at.Add(time.Minute).UnixMilli()})
			}
		})
	}
}

// nextOf is what_next's entry for a series.
func nextOf(t *testing.T, v any, series string) any {
	t.Helper()
	for _, n := range at(t, v, "next_in_series").([]any) {
		if str(at(t, n, "series_id")) == series {
			return n
		}
	}
	t.Fatalf("series %s is not in %v", series, v)
	return nil
}

// TestWhatNextNamesTheGap: root finished The Expanse's book 1, and book 2 is
// not in the library: the next book is book 3, with the gap named; in
// Discworld, book 1 in progress and book 2 finished, the next is book 3.
func TestWhatNextNamesTheGap(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{})
	calibansWarOutOfTheExpanse(e.Standin)
	if res := e.Call(t, "set_media_progress", map[string]any{"library_item_id": sd.ItemLightFantastic, "is_finished": true}); res.IsError {
		t.Fatal(apptest.Text(res))
	}
	v := decode(t, e.Call(t, "what_next", map[string]any{}))
	ex := nextOf(t, v, sd.SeriesExpanse)
	if str(at(t, ex, "next", "library_item_id")) != sd.ItemAbaddonsGate || fmt.Sprint(at(t, ex, "gap_before")) != "[2]" {
		t.Errorf("The Expanse: want Abaddon's Gate after a gap at 2: %v", ex)
	}
	dw := nextOf(t, v, sd.SeriesDiscworld)
	if str(at(t, dw, "next", "library_item_id")) != sd.ItemEqualRites || at(t, dw, "gap_before") != nil {
		t.Errorf("Discworld: want Equal Rites, no gap: %v", dw)
	}
	// Filters: books only in the podcast library leave nothing; a short
	// maximum leaves only what fits.
	v = decode(t, e.Call(t, "what_next", map[string]any{"library_id": sd.LibraryPodcastsID}))
	if n := len(at(t, v, "next_in_series").([]any)); n != 0 {
		t.Errorf("podcast library: %d series", n)
	}
	v = decode(t, e.Call(t, "what_next", map[string]any{"media_type": "podcast"}))
	for _, ip := range at(t, v, "in_progress").([]any) {
		if at(t, ip, "episode_id") == nil {
			t.Errorf("media_type podcast lists a book: %v", ip)
		}
	}
	v = decode(t, e.Call(t, "what_next", map[string]any{"max_hours": 1}))
	for _, ip := range at(t, v, "in_progress").([]any) {
		if at(t, ip, "left_s").(float64) > 3600 {
			t.Errorf("max_hours 1 lists %v", ip)
		}
	}
}

// TestSeriesProgressNamesGapsAndDuplicates: Sourcery moved to 4 (Mort's
// number) leaves 5 missing in Discworld; The Expanse without its book 2
// misses 2.
func TestSeriesProgressNamesGapsAndDuplicates(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{})
	calibansWarOutOfTheExpanse(e.Standin)
	setSequence(sd.ItemSourcery, "4")(e.Standin)
	v := decode(t, e.Call(t, "get_series_progress", map[string]any{"series_id": sd.SeriesDiscworld}))
	if fmt.Sprint(at(t, v, "gaps")) != "[5]" {
		t.Errorf("gaps %v", at(t, v, "gaps"))
	}
	dups := at(t, v, "duplicate_sequences").([]any)
	ids := fmt.Sprint(at(t, dups[0], "library_item_ids"))
	if len(dups) != 1 || str(at(t, dups[0], "sequence")) != "4" || !(ids == fmt.Sprint([]string{sd.ItemMort, sd.ItemSourcery}) || ids == fmt.Sprint([]string{sd.ItemSourcery, sd.ItemMort})) {
		t.Errorf("duplicates %v", dups)
	}
	if titles := fmt.Sprint(at(t, dups[0], "titles")); titles != "[Mort Sourcery]" && titles != "[Sourcery Mort]" {
		t.Errorf("the books sharing a number are not named: %v", dups)
	}
	if str(at(t, v, "books", 0, "state")) != "in_progress" || at(t, v, "in_progress").(float64) != 1 || at(t, v, "not_started").(float64) != 5 {
		t.Errorf("states %v", v)
	}
	// Every started series: both, each with its gaps.
	v = decode(t, e.Call(t, "get_series_progress", map[string]any{}))
	gaps := map[string]string{}
	for _, s := range at(t, v, "series").([]any) {
		gaps[str(at(t, s, "series_id"))] = fmt.Sprint(at(t, s, "gaps"))
	}
	if gaps[sd.SeriesExpanse] != "[2]" || gaps[sd.SeriesDiscworld] != "[5]" || len(gaps) != 2 {
		t.Errorf("gaps of the started series %v", gaps)
	}
	// Paged: one series a page.
	v = decode(t, e.Call(t, "get_series_progress", map[string]any{"limit": 1, "page": 1}))
	if len(at(t, v, "series").([]any)) != 1 || at(t, v, "total").(float64) != 2 {
		t.Errorf("page 1 of 1: %v", v)
	}
}

// absDays is Audiobookshelf's own listening per day (GET
// /api/me/listening-stats, as the stand-in answers it).
func absDays(t *testing.T, e *apptest.Env) map[string]float64 {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.Standin.URL()+"/api/me/listening-stats", nil)
	req.Header.Set("Authorization", "Bearer "+sd.DefaultAPIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v struct {
		Days map[string]float64 `json:"days"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v.Days
}

// TestListeningByPeriodMatchesAudiobookshelf: the totals per month, week
// and day are Audiobookshelf's own days summed over the range.
func TestListeningByPeriodMatchesAudiobookshelf(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{})
	days := absDays(t, e)
	from, to := "2025-10-01", "2025-12-31"
	want := map[string]map[string]float64{"month": {}, "week": {}, "day": {}}
	sum := 0.0
	for k, s := range days {
		if k < from || k > to {
			continue
		}
		d, _ := time.Parse("2006-01-02", k)
		y, w := d.ISOWeek()
		want["month"][k[:7]] += s
		want["week"][fmt.Sprintf("%04d-W%02d", y, w)] += s
		want["day"][k] += s
		sum += s
	}
	if sum == 0 {
		t.Fatal("the sample has no listening in the range")
	}
	for by, per := range want {
		v := decode(t, e.Call(t, "get_listening_by_period", map[string]any{"from": from, "to": to, "by": by, "limit": 400}))
		if got := at(t, v, "total_s").(float64); got != float64(int64(sum+0.5)) {
			t.Errorf("by %s: total %v, Audiobookshelf's %v", by, got, sum)
		}
		seen := 0
		for _, p := range at(t, v, "periods").([]any) {
			k := str(at(t, p, "period"))
			if got, want := at(t, p, "time_s").(float64), float64(int64(per[k]+0.5)); got != want {
				t.Errorf("by %s: %s is %v, Audiobookshelf's %v", by, k, got, want)
			}
			seen++
		}
		if by == "month" && seen != 3 {
			t.Errorf("by month: %d periods, want 3", seen)
		}
	}
	// Per library, the same rule over the sessions: the libraries add up to
	// the total, and one library's periods are its own.
	v := decode(t, e.Call(t, "get_listening_by_period", map[string]any{"from": from, "to": to}))
	libSum := 0.0
	for _, l := range at(t, v, "by_library").([]any) {
		libSum += at(t, l, "time_s").(float64)
	}
	if d := libSum - at(t, v, "total_s").(float64); d > 1 || d < -1 {
		t.Errorf("libraries add up to %v, total %v", libSum, at(t, v, "total_s"))
	}
	book := decode(t, e.Call(t, "get_listening_by_period", map[string]any{"from": from, "to": to, "library_id": sd.LibraryBooksID}))
	for _, l := range at(t, v, "by_library").([]any) {
		if str(at(t, l, "library_id")) == sd.LibraryBooksID && at(t, l, "time_s") != at(t, book, "total_s") {
			t.Errorf("books library: %v in by_library, %v alone", at(t, l, "time_s"), at(t, book, "total_s"))
		}
	}
	if len(at(t, v, "top_authors").([]any)) == 0 || len(at(t, v, "finished").([]any)) != 1 {
		t.Errorf("top authors or finished: %v", v)
	}
	// Bad dates are refused before anything is sent.
	for _, args := range []map[string]any{{"from": "2025-13-01", "to": to}, {"from": to, "to": from}, {"from": from, "to": "yesterday"}} {
		e.Standin.ResetRequests()
		res := e.Call(t, "get_listening_by_period", args)
		if !res.IsError || len(e.Standin.Requests()) != 0 {
			t.Errorf("%v: error %v, %d requests: %s", args, res.IsError, len(e.Standin.Requests()), apptest.Text(res))
		}
	}
}

// continueSeries is the ids of the series on root's Continue Series shelf.
func continueSeries(t *testing.T, e *apptest.Env) []string {
	t.Helper()
	v := decode(t, e.Call(t, "get_personalized_shelves", map[string]any{"library_id": sd.LibraryBooksID}))
	for _, sh := range at(t, v, "shelves").([]any) {
		if str(at(t, sh, "id")) != "continue-series" {
			continue
		}
		var out []string
		for _, en := range at(t, sh, "entities").([]any) {
			ss, _ := en.(map[string]any)["series"].([]any)
			for _, s := range ss {
				out = append(out, str(at(t, s, "id")))
			}
		}
		return out
	}
	return nil
}

// TestContinueSeriesPutBack: a series taken off Continue Series comes back
// with the put-back of the answer.
func TestContinueSeriesPutBack(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{})
	if !slices.Contains(continueSeries(t, e), sd.SeriesExpanse) {
		t.Fatalf("The Expanse is not on Continue Series to begin with: %v", continueSeries(t, e))
	}
	v := decode(t, e.Call(t, "hide_series_from_continue_series", map[string]any{"series_id": sd.SeriesExpanse}))
	if slices.Contains(continueSeries(t, e), sd.SeriesExpanse) {
		t.Errorf("The Expanse is still on Continue Series: %v", v)
	}
	pb := at(t, v, "put_back").(map[string]any)
	res := e.Call(t, str(pb["tool"]), pb["arguments"])
	if res.IsError {
		t.Fatal(apptest.Text(res))
	}
	if !slices.Contains(continueSeries(t, e), sd.SeriesExpanse) {
		t.Errorf("the put-back did not bring The Expanse back: %s", apptest.Text(res))
	}
	// Again: nothing to put back, nothing changed.
	v = decode(t, e.Call(t, "readd_series_to_continue_series", map[string]any{"series_id": sd.SeriesExpanse}))
	if at(t, v, "put_back") != nil || str(at(t, v, "note")) == "" {
		t.Errorf("a readd of a shown series: %v", v)
	}
	res = e.Call(t, "hide_series_from_continue_series", map[string]any{"series_id": unknownID})
	if !res.IsError {
		t.Errorf("an unknown series was hidden: %s", apptest.Text(res))
	}
}

// TestContinueSeriesAbsentInReadOnlyMode: read-only leaves the reads of the
// toolset and takes its writes away.
func TestContinueSeriesAbsentInReadOnlyMode(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{Config: func(c *config.Config) { c.ReadOnly = true }})
	for _, tool := range []string{"hide_series_from_continue_series", "readd_series_to_continue_series"} {
		e.Standin.ResetRequests()
		res, err := e.CallErr(tool, map[string]any{"series_id": sd.SeriesExpanse})
		if err == nil && !res.IsError {
			t.Errorf("%s ran in read-only mode: %s", tool, apptest.Text(res))
		}
		if n := len(e.Standin.Mutations()); n != 0 {
			t.Errorf("%s sent %d change(s) in read-only mode", tool, n)
		}
	}
	if res := e.Call(t, "what_next", map[string]any{}); res.IsError {
		t.Errorf("what_next in read-only mode: %s", apptest.Text(res))
	}
}

// TestPromptsResourcesAndCompletions: with the listening toolset the server
// declares prompts, resources and completions; the prompts turn names into
// ids (and refuse one that is not there, naming what is), the completions
// answer libraries, series, authors and item ids, and the resources are
// the read tools' answers and a cover as a blob.
func TestPromptsResourcesAndCompletions(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{})
	ctx := context.Background()
	caps := e.Session.InitializeResult().Capabilities
	if caps.Prompts == nil || caps.Resources == nil || caps.Completions == nil || caps.Resources.Subscribe {
		t.Fatalf("capabilities %+v", caps)
	}
	pl, err := e.Session.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range pl.Prompts {
		names = append(names, p.Name)
		if p.Description == "" || len(p.Arguments) == 0 {
			t.Errorf("prompt %s: no description or arguments", p.Name)
		}
	}
	slices.Sort(names)
	if fmt.Sprint(names) != "[do_i_own_these my_listening_in_a_year_or_month recommend_from_my_library tidy_a_library what_did_i_abandon what_to_listen_to_next where_am_i_in_a_series]" {
		t.Errorf("prompts %v", names)
	}
	get := func(name string, args map[string]string) (string, error) {
		r, err := e.Session.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
		if err != nil {
			return "", err
		}
		return r.Messages[0].Content.(*mcp.TextContent).Text, nil
	}
	for _, c := range []struct {
		name string
		args map[string]string
		want []string
	}{
		{"what_to_listen_to_next", map[string]string{"library": "books", "max_hours": "2"}, []string{"what_next", sd.LibraryBooksID, `"max_hours":2`}},
		{"my_listening_in_a_year_or_month", map[string]string{"year": "2024", "month": "2"}, []string{"get_listening_by_period", `"from":"2024-02-01"`, `"to":"2024-02-29"`, `"by":"day"`}},
		{"my_listening_in_a_year_or_month", map[string]string{"year": "2025"}, []string{`"to":"2025-12-31"`, "get_year_stats"}},
		{"where_am_i_in_a_series", map[string]string{"series": "the expanse"}, []string{"get_series_progress", sd.SeriesExpanse}},
		{"do_i_own_these", map[string]string{"titles": "Mort\n\n  Guards! Guards! by Terry Pratchett\n", "library": "books"}, []string{"check_owned", `"text":"Mort\nGuards! Guards! by Terry Pratchett"`, sd.LibraryBooksID}},
		{"what_did_i_abandon", map[string]string{"idle_days": "90"}, []string{"list_abandoned", `{"idle_days":90}`}},
		{"what_did_i_abandon", map[string]string{}, []string{"list_abandoned with {}"}},
		{"recommend_from_my_library", map[string]string{"library": "books", "wish": "something short"}, []string{"get_taste_profile", sd.LibraryBooksID, `"something short"`}},
	} {
		text, err := get(c.name, c.args)
		if err != nil {
			t.Errorf("%s %v: %v", c.name, c.args, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s %v: %q lacks %q", c.name, c.args, text, w)
			}
		}
	}
	for _, c := range []struct {
		name string
		args map[string]string
		want string
	}{
		{"what_to_listen_to_next", map[string]string{"library": "Audiobooks"}, `"Books", "Podcasts"`},
		{"my_listening_in_a_year_or_month", map[string]string{"year": "2025", "month": "13"}, `argument "month"`},
		{"my_listening_in_a_year_or_month", map[string]string{}, `argument "year"`},
		{"where_am_i_in_a_series", map[string]string{"series": "Disc"}, `"Discworld"`},
		{"do_i_own_these", map[string]string{"titles": " \n "}, `argument "titles"`},
		{"do_i_own_these", map[string]string{"titles": strings.Repeat("Mort\n", 101)}, `argument "titles": 101 lines`},
		{"do_i_own_these", map[string]string{"titles": "Mort", "library": "Podcasts"}, `a book library is needed`},
		{"what_did_i_abandon", map[string]string{"idle_days": "soon"}, `argument "idle_days"`},
	} {
		if _, err := get(c.name, c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: error %v, want one with %s", c.name, c.args, err, c.want)
		}
	}

	complete := func(ref *mcp.CompleteReference, arg, value string, context map[string]string) []string {
		t.Helper()
		p := &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}}
		if context != nil {
			p.Context = &mcp.CompleteContext{Arguments: context}
		}
		r, err := e.Session.Complete(ctx, p)
		if err != nil {
			t.Fatalf("complete %s %q: %v", arg, value, err)
		}
		return r.Completion.Values
	}
	prompt := func(n string) *mcp.CompleteReference { return &mcp.CompleteReference{Type: "ref/prompt", Name: n} }
	if v := complete(prompt("what_to_listen_to_next"), "library", "po", nil); fmt.Sprint(v) != "[Podcasts]" {
		t.Errorf("library po: %v", v)
	}
	if v := complete(prompt("do_i_own_these"), "library", "bo", nil); fmt.Sprint(v) != "[Books]" {
		t.Errorf("do_i_own_these library bo: %v", v)
	}
	if v := complete(prompt("recommend_from_my_library"), "library", "", nil); slices.Contains(v, "Podcasts") || !slices.Contains(v, "Books") {
		t.Errorf("recommend_from_my_library libraries (books only): %v", v)
	}
	if v := complete(prompt("where_am_i_in_a_series"), "series", "disc", nil); fmt.Sprint(v) != "[Discworld]" {
		t.Errorf("series disc: %v", v)
	}
	if v := complete(prompt("where_am_i_in_a_series"), "series", "", map[string]string{"library": "Books"}); len(v) != 3 {
		t.Errorf("every series of Books: %v", v)
	}
	if v := complete(prompt("what_to_listen_to_next"), "author", "prat", nil); !slices.Contains(v, "Terry Pratchett") {
		t.Errorf("author prat: %v", v)
	}
	item := &mcp.CompleteReference{Type: "ref/resource", URI: "audiobookshelf://items/{id}"}
	if v := complete(item, "id", "", nil); !slices.Contains(v, sd.ItemColourOfMagic) {
		t.Errorf("item ids in progress: %v", v)
	}
	if v := complete(item, "id", "Mort", nil); !slices.Contains(v, sd.ItemMort) {
		t.Errorf("item ids for Mort: %v", v)
	}
	if v := complete(prompt("no_such_prompt"), "x", "y", nil); v == nil || len(v) != 0 {
		t.Errorf("an unknown prompt: %v", v)
	}

	rl, err := e.Session.ListResources(ctx, nil)
	if err != nil || len(rl.Resources) != 1 || rl.Resources[0].URI != "audiobookshelf://me/listening-now" {
		t.Fatalf("resources %v %v", rl, err)
	}
	tl, err := e.Session.ListResourceTemplates(ctx, nil)
	if err != nil || len(tl.ResourceTemplates) != 2 {
		t.Fatalf("templates %v %v", tl, err)
	}
	read := func(uri string) (*mcp.ReadResourceResult, error) {
		return e.Session.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	}
	r, err := read("audiobookshelf://me/listening-now")
	if err != nil || !strings.Contains(r.Contents[0].Text, sd.ItemColourOfMagic) || r.Contents[0].MIMEType != "application/json" {
		t.Errorf("listening now: %v %v", r, err)
	}
	r, err = read("audiobookshelf://items/" + sd.ItemMort)
	if err != nil || !strings.Contains(r.Contents[0].Text, `"title":"Mort"`) {
		t.Errorf("item: %v %v", r, err)
	}
	r, err = read("audiobookshelf://items/" + sd.ItemMort + "/cover")
	if err != nil || r.Contents[0].MIMEType != "image/jpeg" || len(r.Contents[0].Blob) < 100 || r.Contents[0].Blob[0] != 0xFF {
		t.Errorf("cover: %v", err)
	}
	for _, uri := range []string{"audiobookshelf://items/" + unknownID, "audiobookshelf://elsewhere"} {
		_, err = read(uri)
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("%s: %v, want resource not found", uri, err)
		}
	}
}

// TestTidyPrompt: the "tidy a library" prompt turns the library's name
// into its id, asks for the audits named (every one when none is), names
// only tools there are for the fixes (the tag and genre renames among
// them), says that the other batch renames and merges do not exist and that nothing changes before the person agrees; a library
// that is not there, a podcast library or an unknown audit is refused
// naming the argument; its library argument completes book libraries and
// its audits argument the audits. In read-only mode it names no write tool.
func TestTidyPrompt(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{})
	ctx := context.Background()
	get := func(args map[string]string) (string, error) {
		r, err := e.Session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "tidy_a_library", Arguments: args})
		if err != nil {
			return "", err
		}
		return r.Messages[0].Content.(*mcp.TextContent).Text, nil
	}
	all := []string{"audit_series", "audit_people", "audit_duplicates", "audit_missing", "audit_tags_and_genres"}
	text, err := get(map[string]string{"library": "books"})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range append(slices.Clone(all), `{"library_id":"`+sd.LibraryBooksID+`"}`, "update_item_metadata", "rename_tag", "rename_genre", "merge_authors", "merge_series",
		"rename_narrator", "merge_tags", "merge_genres", "merge_narrators", "batch_update_books", "batch_quick_match",
		"do not exist yet", "only after I agree", "never approve for me", `"toolset": "curation"`, `"toolset": "upkeep"`, "call_tool") {
		if !strings.Contains(text, w) {
			t.Errorf("tidy prompt: %q lacks %q", text, w)
		}
	}
	// Every tool the text names is one there is, in the toolset it says.
	for _, w := range regexp.MustCompile(`\b[a-z]+(?:_[a-z]+)+\b`).FindAllString(text, -1) {
		if w == "library_id" || w == "call_tool" || w == "enable_toolset" {
			continue
		}
		tool := registryTool(t, w)
		if want := map[bool]string{true: "curation", false: "upkeep"}[strings.HasPrefix(w, "audit_") || strings.HasPrefix(w, "rename_") || strings.HasPrefix(w, "merge_") || strings.HasPrefix(w, "batch_")]; tool.Toolset != want {
			t.Errorf("tidy prompt names %s of toolset %s, and says %s", w, tool.Toolset, want)
		}
	}
	text, err = get(map[string]string{"library": "Books", "audits": "series, audit_people"})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range all {
		if want := a == "audit_series" || a == "audit_people"; strings.Contains(text, a) != want {
			t.Errorf("audits series and people: %s in the text: %v, want %v", a, !want, want)
		}
	}
	for _, c := range []struct {
		args map[string]string
		want []string
	}{
		{map[string]string{"library": "Audiobooks"}, []string{`argument "library"`, `"Books", "Podcasts"`}},
		{map[string]string{"library": "Podcasts"}, []string{`argument "library"`, "podcast library"}},
		{map[string]string{}, []string{`argument "library"`, "required"}},
		{map[string]string{"library": "Books", "audits": "series,spelling"}, []string{`argument "audits"`, `"spelling"`, "tags_and_genres"}},
	} {
		_, err := get(c.args)
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("%v: %v, want invalid params", c.args, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: %v lacks %s", c.args, err, w)
			}
		}
	}
	// Read-only: the audits, and fixes proposed for the person to make, no
	// write tool named.
	ro := start(t, apptest.Options{Config: func(c *config.Config) { c.ReadOnly = true }})
	r, err := ro.Session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "tidy_a_library", Arguments: map[string]string{"library": "Books"}})
	if err != nil {
		t.Fatal(err)
	}
	text = r.Messages[0].Content.(*mcp.TextContent).Text
	if !strings.Contains(text, "audit_series") || !strings.Contains(text, "read-only") ||
		strings.Contains(text, "update_item_metadata") || strings.Contains(text, "upkeep") {
		t.Errorf("tidy prompt in read-only mode: %q", text)
	}
	complete := func(arg, value string) []string {
		t.Helper()
		r, err := e.Session.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "tidy_a_library"},
			Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}})
		if err != nil {
			t.Fatalf("complete %s %q: %v", arg, value, err)
		}
		return r.Completion.Values
	}
	if v := complete("library", ""); fmt.Sprint(v) != "[Books]" {
		t.Errorf("book libraries: %v", v)
	}
	if v := complete("library", "bo"); fmt.Sprint(v) != "[Books]" {
		t.Errorf("library bo: %v", v)
	}
	if v := complete("audits", "series,p"); fmt.Sprint(v) != "[series,people]" {
		t.Errorf("audits series,p: %v", v)
	}
	if v := complete("audits", ""); len(v) != len(all) {
		t.Errorf("every audit: %v", v)
	}
}

// TestResourcesHoldToTheBudget: a resource is held to the result budget
// as the tool whose answer it is: a book of 3,000 tags read as a resource
// stays within a budget of 10,000 characters.
func TestResourcesHoldToTheBudget(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{Config: func(c *config.Config) { c.MaxResultChars = result.MinMaxResultChars }})
	e.Standin.Update(func(d *sd.Data) {
		for i := range d.Items {
			if d.Items[i].ID == sd.ItemMort {
				d.Items[i].Book.Tags = nil
				for k := range 3000 {
					d.Items[i].Book.Tags = append(d.Items[i].Book.Tags, fmt.Sprintf("tag %d of a much tagged book", k+1))
				}
			}
		}
	})
	uri := "audiobookshelf://items/" + sd.ItemMort
	r, err := e.Session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		if !strings.Contains(err.Error(), "AUDIOBOOKSHELF_MAX_RESULT_CHARS") {
			t.Errorf("an error that does not say how to get less: %v", err)
		}
		return
	}
	if n := len([]rune(r.Contents[0].Text)); n > result.MinMaxResultChars || !strings.Contains(r.Contents[0].Text, "tag 1 of") {
		t.Errorf("%s: %d characters over a budget of %d", uri, n, result.MinMaxResultChars)
	}
}

// TestListenerPromptsCallsRun: the call each of the listener's prompts asks
// for (do_i_own_these, what_did_i_abandon, recommend_from_my_library) is
// one the tool takes: made as written, it answers, and do_i_own_these's
// finds the books its lines name.
func TestListenerPromptsCallsRun(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{})
	ctx := context.Background()
	for _, c := range []struct {
		prompt, tool string
		args         map[string]string
		want         []string
	}{
		{"do_i_own_these", "check_owned", map[string]string{"titles": "Mort\nGuards! Guards! by Terry Pratchett\nA Book Nobody Wrote", "library": "Books"}, []string{sd.ItemMort, `"Mort"`, "A Book Nobody Wrote"}},
		{"what_did_i_abandon", "list_abandoned", map[string]string{"idle_days": "1"}, nil},
		{"recommend_from_my_library", "get_taste_profile", map[string]string{"library": "Books"}, nil},
	} {
		r, err := e.Session.GetPrompt(ctx, &mcp.GetPromptParams{Name: c.prompt, Arguments: c.args})
		if err != nil {
			t.Errorf("%s: %v", c.prompt, err)
			continue
		}
		text := r.Messages[0].Content.(*mcp.TextContent).Text
		_, after, ok := strings.Cut(text, "Call "+c.tool+" with ")
		if !ok {
			t.Errorf("%s: no call of %s in %q", c.prompt, c.tool, text)
			continue
		}
		var args map[string]any
		if err := json.NewDecoder(strings.NewReader(after)).Decode(&args); err != nil {
			t.Errorf("%s: the call's arguments are no JSON object: %v in %q", c.prompt, err, after)
			continue
		}
		res := e.Call(t, c.tool, args)
		if res.IsError {
			t.Errorf("%s: %s %v: %s", c.prompt, c.tool, args, apptest.Text(res))
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(apptest.Text(res), w) {
				t.Errorf("%s: %s %v answers without %s: %s", c.prompt, c.tool, args, w, apptest.Text(res))
			}
		}
	}
}

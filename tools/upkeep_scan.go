package tools

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
)

// The upkeep toolset's writes, as the spec answers them.
func init() {
	writeAnswers = append(writeAnswers,
		writeAnswer{"scanLibrary", http.MethodPost, regexp.MustCompile(`/api/libraries/[^/]+/scan$`), true, nil, "get_library_stats"},
		writeAnswer{"updateLibraryItemMedia", http.MethodPatch, regexp.MustCompile(`/api/items/[^/]+/media$`), false, []string{"updated", "libraryItem"}, "get_library_item"},
		writeAnswer{"matchLibraryItem", http.MethodPost, regexp.MustCompile(`/api/items/[^/]+/match$`), false, nil, "get_library_item"},
		writeAnswer{"removeLibraryItemCover", http.MethodDelete, regexp.MustCompile(`/api/items/[^/]+/cover$`), true, nil, "get_library_item"},
	)
}

// Defaults of how scan_library waits for a scan.
const (
	DefaultScanPoll = time.Second
	DefaultScanWait = 2 * time.Minute
	// scanListCap is how many ids of added or missing items an answer lists.
	scanListCap = 25
)

func (d *Deps) scanTiming() (poll, wait time.Duration) {
	poll, wait = d.ScanPoll, d.ScanWait
	if poll <= 0 {
		poll = DefaultScanPoll
	}
	if wait <= 0 {
		wait = DefaultScanWait
	}
	return poll, wait
}

type absTask struct {
	ID     string `json:"id"`
	Action string `json:"action"`
	Data   struct {
		LibraryID   string `json:"libraryId"`
		ScanResults *struct {
			Added   int `json:"added"`
			Updated int `json:"updated"`
			Missing int `json:"missing"`
		} `json:"scanResults"`
	} `json:"data"`
	IsFinished bool  `json:"isFinished"`
	IsFailed   bool  `json:"isFailed"`
	StartedAt  int64 `json:"startedAt"`
}

type scanLibraryInfo struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	MediaType string `json:"mediaType"`
	Folders   []struct {
		ID string `json:"id"`
	} `json:"folders"`
	LastScan *int64 `json:"lastScan"`
}

func (d *Deps) listTasks(ctx context.Context) ([]absTask, *mcp.CallToolResult) {
	body, res := d.get(ctx, "the task list", func(ctx context.Context) (*http.Response, error) {
		return d.API.ListTasks(ctx, nil)
	})
	if res != nil {
		return nil, res
	}
	var v struct {
		Tasks []absTask `json:"tasks"`
	}
	if res := decode(body, &v); res != nil {
		return nil, res
	}
	return v.Tasks, nil
}

func (d *Deps) scanLibraryInfo(ctx context.Context, id string) (*scanLibraryInfo, *mcp.CallToolResult) {
	body, res := d.get(ctx, "library "+id, func(ctx context.Context) (*http.Response, error) {
		return d.API.GetLibrary(ctx, id)
	})
	if res != nil {
		return nil, res
	}
	var l scanLibraryInfo
	if res := decode(body, &l); res != nil {
		return nil, res
	}
	return &l, nil
}

// scanTask is the running scan task of library id, or nil.
func scanTask(tasks []absTask, id string) *absTask {
	for i := range tasks {
		if t := &tasks[i]; t.Action == "library-scan" && t.Data.LibraryID == id && !t.IsFinished {
			return t
		}
	}
	return nil
}

// ScanResult is scan_library's answer.
type ScanResult struct {
	LibraryID string `json:"library_id"`
	// Finished is false when the scan was still running when the call
	// stopped waiting.
	Finished   bool      `json:"finished"`
	Outcome    string    `json:"outcome"` // completed, canceled, failed, running
	WaitedS    float64   `json:"waited_s"`
	Added      *int      `json:"added,omitempty"`
	Updated    *int      `json:"updated,omitempty"`
	Missing    *int      `json:"missing,omitempty"`
	AddedIDs   []ItemRef `json:"added_items,omitempty"`
	MissingIDs []ItemRef `json:"missing_items,omitempty"`
	Note       string    `json:"note,omitempty"`
}

// ItemRef is an item named by id and title.
type ItemRef struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

// ScanLibrary is scan_library.
func ScanLibrary(ctx context.Context, d *Deps, a toolargs.ScanLibrary) (*mcp.CallToolResult, error) {
	poll, wait := d.scanTiming()
	// The library and the task list at once.
	tasks := alongside(ctx, func(ctx context.Context) tasksAnswer {
		t, res := d.listTasks(ctx)
		return tasksAnswer{t, res}
	})
	lib, res := d.scanLibraryInfo(ctx, a.LibraryID)
	t := tasks.wait()
	if res != nil {
		return res, nil
	}
	if t.res != nil {
		return t.res, nil
	}
	if len(lib.Folders) == 0 {
		return errorResult("Library %s has no folders, so Audiobookshelf has nothing to scan (it would answer OK and do nothing). Add a folder to the library in Audiobookshelf first. Nothing was changed.", a.LibraryID), nil
	}
	if running := scanTask(t.tasks, a.LibraryID); running != nil {
		return errorResult("A scan of library %s is already running (its task %s started %s); Audiobookshelf would ignore a second one, so none was started. Call scan_library again once it is done to scan anew, or get_library_stats to see the library now.", a.LibraryID, running.ID, date(running.StartedAt)), nil
	}
	var lastScan int64
	if lib.LastScan != nil {
		lastScan = *lib.LastScan
	}
	if _, res := d.mutate(ctx, "a scan of library "+a.LibraryID, func(ctx context.Context) (*http.Response, error) {
		return d.API.ScanLibrary(ctx, a.LibraryID, nil)
	}); res != nil {
		return res, nil
	}
	start := time.Now()
	reportProgress(ctx, 0, 0, fmt.Sprintf("scan of library %s started", a.LibraryID))
	// Audiobookshelf adds the scan's task before it answers; once the task
	// is gone the scan has ended.
	out := ScanResult{LibraryID: a.LibraryID}
	n := 0
	for {
		n++
		tl, res := d.listTasks(ctx)
		if res != nil {
			return appendNote(res, fmt.Sprintf(" The scan of library %s was started; it runs on in Audiobookshelf.", a.LibraryID)), nil
		}
		if scanTask(tl, a.LibraryID) == nil {
			break
		}
		elapsed := time.Since(start)
		if elapsed >= wait {
			out.Outcome = "running"
			out.WaitedS = round1(elapsed.Seconds())
			out.Note = fmt.Sprintf("The scan was still running after %s; it goes on in Audiobookshelf. get_library_stats shows the library as it is; call scan_library again after it has ended for a new scan.", wait)
			return jsonResult(out), nil
		}
		reportProgress(ctx, float64(n), 0, fmt.Sprintf("scanning library %s: %ds", a.LibraryID, int(elapsed.Seconds())))
		select {
		case <-ctx.Done():
			return errorResult("The call was cancelled while library %s was being scanned; the scan goes on in Audiobookshelf.", a.LibraryID), nil
		case <-time.After(poll):
		}
	}
	out.Finished = true
	out.WaitedS = round1(time.Since(start).Seconds())
	// The library (a completed scan moves lastScan) and the log (the
	// scan's counts) at once.
	logs := alongside(ctx, func(ctx context.Context) logAnswer {
		c, why := d.scanCounts(ctx, lib.Name)
		return logAnswer{c, why}
	})
	after, res := d.scanLibraryInfo(ctx, a.LibraryID)
	counts := logs.wait()
	if res != nil {
		return appendNote(res, fmt.Sprintf(" The scan of library %s has ended.", a.LibraryID)), nil
	}
	moved := after.LastScan != nil && *after.LastScan != lastScan
	switch {
	case counts.c != nil:
		out.Outcome = counts.c.outcome
		out.Added, out.Updated, out.Missing = &counts.c.added, &counts.c.updated, &counts.c.missing
	case moved:
		out.Outcome = "completed"
		out.Note = "Audiobookshelf's counts of added, updated and missing items could not be read: " + counts.why + "."
	default:
		out.Outcome = "ended"
		out.Note = "The scan's task is gone but the library's lastScan did not move (a canceled or failed scan leaves it), and the counts could not be read: " + counts.why + "."
	}
	reportProgress(ctx, float64(n+1), float64(n+1), fmt.Sprintf("scan of library %s %s", a.LibraryID, out.Outcome))
	if out.Added != nil && *out.Added > 0 {
		refs, res := d.itemRefs(ctx, a.LibraryID, "addedAt", "", min(*out.Added, scanListCap))
		if res != nil {
			return res, nil
		}
		out.AddedIDs = refs
	}
	if out.Missing != nil && *out.Missing > 0 {
		refs, res := d.itemRefs(ctx, a.LibraryID, "", "issues", scanListCap)
		if res != nil {
			return res, nil
		}
		out.MissingIDs = refs
	}
	if (out.Added != nil && *out.Added > scanListCap) || (out.Missing != nil && *out.Missing > scanListCap) {
		out.Note = strings.TrimSpace(out.Note + fmt.Sprintf(" At most %d ids of each are listed: list_library_items with sort added_at descending shows the newest, and filter_group issues the missing ones.", scanListCap))
	}
	return jsonResult(out), nil
}

type tasksAnswer struct {
	tasks []absTask
	res   *mcp.CallToolResult
}

type scanCounts struct {
	outcome                 string
	added, updated, missing int
}

type logAnswer struct {
	c   *scanCounts
	why string
}

var (
	scanStartRE = regexp.MustCompile(`^\[LibraryScanner\] Starting(?: \(forced\))? library scan (\S+) for (.*)$`)
	scanEndRE   = regexp.MustCompile(`^\[LibraryScanner\] Library scan "([^"]+)" (completed in|canceled after|failed after) .*\| (\d+) Added \| (\d+) Updated \| (\d+) Missing`)
)

// scanCounts reads the counts of the newest finished scan of the library
// named name from Audiobookshelf's log: LibraryScanner logs them, and
// outside a socket connection it is the only place they are kept. why says
// why they could not be read.
func (d *Deps) scanCounts(ctx context.Context, name string) (*scanCounts, string) {
	body, res := d.get(ctx, "the server log", func(ctx context.Context) (*http.Response, error) {
		return d.API.GetLoggerData(ctx)
	})
	if res != nil {
		return nil, "the server log could not be read (" + clip(textOf(res), 200) + ")"
	}
	var v struct {
		Logs []struct {
			Message string `json:"message"`
		} `json:"currentDailyLogs"`
	}
	if res := decode(body, &v); res != nil {
		return nil, "the server log was not the JSON expected"
	}
	scans := map[string]bool{} // scan ids of this library
	var found *scanCounts
	for _, l := range v.Logs {
		if m := scanStartRE.FindStringSubmatch(l.Message); m != nil && m[2] == name {
			scans[m[1]] = true
			continue
		}
		if m := scanEndRE.FindStringSubmatch(l.Message); m != nil && scans[m[1]] {
			c := &scanCounts{outcome: map[string]string{"completed in": "completed", "canceled after": "canceled", "failed after": "failed"}[m[2]]}
			c.added, _ = strconv.Atoi(m[3])
			c.updated, _ = strconv.Atoi(m[4])
			c.missing, _ = strconv.Atoi(m[5])
			found = c
		}
	}
	if found == nil {
		return nil, "the server log of today holds no result line of this scan (Audiobookshelf logs it at level INFO; a higher log level leaves it out)"
	}
	return found, ""
}

// itemRefs lists up to n items of a library, sorted by sort descending or
// filtered by a bare filter group.
func (d *Deps) itemRefs(ctx context.Context, libraryID, sort, filter string, n int) ([]ItemRef, *mcp.CallToolResult) {
	p := &abs.ListLibraryItemsParams{Limit: ptrOf(n), Page: ptrOf(0)}
	if sort != "" {
		p.Sort = ptrOf(sort)
		p.Desc = ptrOf(abs.ListLibraryItemsParamsDescN1)
	}
	if filter != "" {
		p.Filter = ptrOf(filter)
	}
	body, res := d.get(ctx, "the items of library "+libraryID, func(ctx context.Context) (*http.Response, error) {
		return d.API.ListLibraryItems(ctx, libraryID, p)
	})
	if res != nil {
		return nil, res
	}
	var v struct {
		Results []absItem `json:"results"`
	}
	if res := decode(body, &v); res != nil {
		return nil, res
	}
	out := make([]ItemRef, 0, len(v.Results))
	for i := range v.Results {
		// The issues filter holds invalid items too: only missing ones here.
		if filter == "issues" && !v.Results[i].IsMissing {
			continue
		}
		out = append(out, ItemRef{ID: v.Results[i].ID, Title: v.Results[i].Media.Metadata.Title})
	}
	return out, nil
}

// textOf is the text of a result.
func textOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// appendNote adds a sentence to an error result's text.
func appendNote(res *mcp.CallToolResult, note string) *mcp.CallToolResult {
	return errorResult("%s%s", textOf(res), note)
}

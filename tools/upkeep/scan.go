package upkeep

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/toolargs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/compact"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults of how scan_library waits for a scan.
const (
	DefaultScanPoll = time.Second
	DefaultScanWait = 2 * time.Minute
	// scanListCap is how many ids of added or missing items an answer lists.
	scanListCap = 25
)

func scanTiming(d *kit.Deps) (poll, wait time.Duration) {
	poll, wait = d.ScanPoll, d.ScanWait
	if poll <= 0 {
		poll = DefaultScanPoll
	}
	if wait <= 0 {
		wait = DefaultScanWait
	}
	return poll, wait
}

func listTasks(ctx context.Context, d *kit.Deps) ([]absdata.Task, error) {
	body, err := d.Get(ctx, "the task list", func(ctx context.Context) (*http.Response, error) {
		return d.API.ListTasks(ctx, nil)
	})
	if err != nil {
		return nil, err
	}
	var v struct {
		Tasks []absdata.Task `json:"tasks"`
	}
	if err := kit.Decode(body, &v); err != nil {
		return nil, err
	}
	return v.Tasks, nil
}

// scanTask is the running scan task of library id, or nil.
func scanTask(tasks []absdata.Task, id string) *absdata.Task {
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
func ScanLibrary(ctx context.Context, d *kit.Deps, a toolargs.ScanLibrary) (*mcp.CallToolResult, error) {
	poll, wait := scanTiming(d)
	// The library and the task list at once.
	tasks := kit.Alongside(ctx, func(ctx context.Context) tasksAnswer {
		t, err := listTasks(ctx, d)
		return tasksAnswer{t, err}
	})
	_, lib, err := d.ReadLibrary(ctx, a.LibraryID)
	t := tasks.Wait()
	if err != nil {
		return nil, err
	}
	if t.err != nil {
		return nil, t.err
	}
	if len(lib.Folders) == 0 {
		return nil, kit.Errorf(kit.Unchanged, "Library %s has no folders, so Audiobookshelf has nothing to scan (it would answer OK and do nothing). Add a folder to the library in Audiobookshelf first.", a.LibraryID)
	}
	if running := scanTask(t.tasks, a.LibraryID); running != nil {
		return nil, kit.Errorf(kit.Unchanged, "A scan of library %s is already running (its task %s started %s); Audiobookshelf would ignore a second one, so none was started. Call scan_library again once it is done to scan anew, or get_library_stats to see the library now.", a.LibraryID, running.ID, compact.Date(running.StartedAt))
	}
	var lastScan int64
	if lib.LastScan != nil {
		lastScan = *lib.LastScan
	}
	if _, err := d.Mutate(ctx, "a scan of library "+a.LibraryID, func(ctx context.Context) (*http.Response, error) {
		return d.API.ScanLibrary(ctx, a.LibraryID, nil)
	}); err != nil {
		return nil, err
	}
	start := time.Now()
	kit.ReportProgress(ctx, 0, 0, fmt.Sprintf("scan of library %s started", a.LibraryID))
	// Audiobookshelf adds the scan's task before it answers; once the task
	// is gone the scan has ended.
	out := ScanResult{LibraryID: a.LibraryID}
	n := 0
	for {
		n++
		tl, err := listTasks(ctx, d)
		if err != nil {
			return nil, afterScan(err, fmt.Sprintf("The scan of library %s was started; it runs on in Audiobookshelf.", a.LibraryID))
		}
		if scanTask(tl, a.LibraryID) == nil {
			break
		}
		elapsed := time.Since(start)
		if elapsed >= wait {
			out.Outcome = "running"
			out.WaitedS = compact.Round1(elapsed.Seconds())
			out.Note = fmt.Sprintf("The scan was still running after %s; it goes on in Audiobookshelf. get_library_stats shows the library as it is; call scan_library again after it has ended for a new scan.", wait)
			return result.JSONResult(out)
		}
		kit.ReportProgress(ctx, float64(n), 0, fmt.Sprintf("scanning library %s: %ds", a.LibraryID, int(elapsed.Seconds())))
		select {
		case <-ctx.Done():
			return nil, kit.Errorf(kit.Stated, "The call was cancelled while library %s was being scanned; the scan goes on in Audiobookshelf.", a.LibraryID)
		case <-time.After(poll):
		}
	}
	out.Finished = true
	out.WaitedS = compact.Round1(time.Since(start).Seconds())
	// The library (a completed scan moves lastScan) and the log (the
	// scan's counts) at once.
	logs := kit.Alongside(ctx, func(ctx context.Context) logAnswer {
		c, why := readScanCounts(ctx, d, lib.Name)
		return logAnswer{c, why}
	})
	_, after, err := d.ReadLibrary(ctx, a.LibraryID)
	counts := logs.Wait()
	if err != nil {
		return nil, afterScan(err, fmt.Sprintf("The scan of library %s has ended.", a.LibraryID))
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
	kit.ReportProgress(ctx, float64(n+1), float64(n+1), fmt.Sprintf("scan of library %s %s", a.LibraryID, out.Outcome))
	if out.Added != nil && *out.Added > 0 {
		refs, err := itemRefs(ctx, d, a.LibraryID, "addedAt", "", min(*out.Added, scanListCap))
		if err != nil {
			return nil, err
		}
		out.AddedIDs = refs
	}
	if out.Missing != nil && *out.Missing > 0 {
		refs, err := itemRefs(ctx, d, a.LibraryID, "", "issues", scanListCap)
		if err != nil {
			return nil, err
		}
		out.MissingIDs = refs
	}
	if (out.Added != nil && *out.Added > scanListCap) || (out.Missing != nil && *out.Missing > scanListCap) {
		out.Note = strings.TrimSpace(out.Note + fmt.Sprintf(" At most %d ids of each are listed: list_library_items with sort added_at descending shows the newest, and filter_group issues the missing ones.", scanListCap))
	}
	return result.JSONResult(out)
}

type tasksAnswer struct {
	tasks []absdata.Task
	err   error
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

// readScanCounts reads the counts of the newest finished scan of the library
// named name from Audiobookshelf's log: LibraryScanner logs them, and
// outside a socket connection it is the only place they are kept. why says
// why they could not be read.
func readScanCounts(ctx context.Context, d *kit.Deps, name string) (*scanCounts, string) {
	body, err := d.Get(ctx, "the server log", func(ctx context.Context) (*http.Response, error) {
		return d.API.GetLoggerData(ctx)
	})
	if err != nil {
		return nil, "the server log could not be read (" + kit.Clip(err.Error(), 200) + ")"
	}
	var v struct {
		Logs []struct {
			Message string `json:"message"`
		} `json:"currentDailyLogs"`
	}
	if err := kit.Decode(body, &v); err != nil {
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
func itemRefs(ctx context.Context, d *kit.Deps, libraryID, sort, filter string, n int) ([]ItemRef, error) {
	p := &abs.ListLibraryItemsParams{Limit: kit.Ptr(n), Page: kit.Ptr(0)}
	if sort != "" {
		p.Sort = kit.Ptr(sort)
		p.Desc = kit.Ptr(abs.ListLibraryItemsParamsDescN1)
	}
	if filter != "" {
		p.Filter = kit.Ptr(filter)
	}
	body, err := d.Get(ctx, "the items of library "+libraryID, func(ctx context.Context) (*http.Response, error) {
		return d.API.ListLibraryItems(ctx, libraryID, p)
	})
	if err != nil {
		return nil, err
	}
	var v struct {
		Results []absdata.Item `json:"results"`
	}
	if err := kit.Decode(body, &v); err != nil {
		return nil, err
	}
	out := make([]ItemRef, 0, len(v.Results))
	for i := range v.Results {
		// The issues filter holds invalid items too: only missing ones here.
		if filter == "issues" && !v.Results[i].IsMissing {
			continue
		}
		out = append(out, ItemRef{ID: v.Results[i].ID, Title: v.Results[i].Media.Metadata.Title.Value})
	}
	return out, nil
}

// afterScan is err, of a read made once the scan was started, with what
// became of the scan (note) as its outcome: the scan is the change the
// call made, whatever err's own outcome would say.
func afterScan(err error, note string) error {
	text := err.Error()
	if e := kit.AsError(err); e != nil {
		text = e.Text
	}
	return kit.Errorf(kit.Stated, "%s %s", text, note)
}

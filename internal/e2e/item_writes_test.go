package e2e

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// inFlight counts the writes to library items that the stand-in holds at
// the same time. Each write is held until another write is in flight with
// it (then both go on) or until a window passes: without serialising,
// writes started together meet inside it; with it, the first goes on
// alone when the window ends. The window is no assertion on time: a write
// that is late only makes the count smaller, never larger.
type inFlight struct {
	mu      sync.Mutex
	now     map[string]int // per item
	most    map[string]int
	anyNow  int
	anyMost int
	met     chan struct{}
	window  time.Duration
}

func countWrites(s *sd.Server, window time.Duration) *inFlight {
	f := &inFlight{now: map[string]int{}, most: map[string]int{}, met: make(chan struct{}), window: window}
	s.SetFault(func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method == http.MethodGet || !strings.HasPrefix(r.URL.Path, "/api/items/") {
			return false
		}
		item := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/api/items/"), "/", 2)[0]
		f.mu.Lock()
		f.now[item]++
		f.anyNow++
		f.most[item] = max(f.most[item], f.now[item])
		f.anyMost = max(f.anyMost, f.anyNow)
		met := f.met
		if f.anyNow > 1 {
			close(f.met) // release every write held so far
			f.met = make(chan struct{})
		}
		f.mu.Unlock()
		select {
		case <-met:
		case <-time.After(f.window):
		}
		f.mu.Lock()
		f.now[item]--
		f.anyNow--
		f.mu.Unlock()
		return false // the stand-in now answers the write as it does
	})
	return f
}

func (f *inFlight) counts(item string) (sameItem, all int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.most[item], f.anyMost
}

// callTogether makes the calls at the same time and waits for them all.
func callTogether(t *testing.T, e *apptest.Env, calls []struct {
	tool string
	args map[string]any
}) {
	t.Helper()
	var wg sync.WaitGroup
	texts := make([]string, len(calls))
	failed := make([]bool, len(calls))
	for i, c := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := e.CallErr(c.tool, c.args)
			if err != nil {
				texts[i], failed[i] = err.Error(), true
				return
			}
			texts[i], failed[i] = apptest.Text(res), res.IsError
		}()
	}
	wg.Wait()
	for i := range calls {
		if failed[i] {
			t.Errorf("%s: %s", calls[i].tool, texts[i])
		}
	}
}

// TestItemWritesOneAtATime: writes to one library item reach Audiobookshelf
// one at a time, across tools (two metadata edits and a quick match of one
// book at once: Audiobookshelf 2.36 can die of a unique-constraint error in
// its scanner on such writes), while writes to different items still go
// together.
func TestItemWritesOneAtATime(t *testing.T) {
	t.Parallel()
	type call = struct {
		tool string
		args map[string]any
	}
	meta := func(item string, fields map[string]any) call {
		return call{"update_item_metadata", map[string]any{"library_item_id": item, "fields": fields}}
	}
	t.Run("one item", func(t *testing.T) {
		t.Parallel()
		e := startApproving(t)
		f := countWrites(e.Standin, 2*time.Second)
		callTogether(t, e, []call{
			meta(sd.ItemProjectHailMary, map[string]any{"publisher": "One"}),
			meta(sd.ItemProjectHailMary, map[string]any{"language": "Klingon"}),
			{"match_library_item", map[string]any{"library_item_id": sd.ItemProjectHailMary}},
		})
		if same, _ := f.counts(sd.ItemProjectHailMary); same != 1 {
			t.Errorf("%d writes to one item were in flight at once, want 1", same)
		}
		if n := len(mutations(e.Standin)); n != 3 {
			t.Errorf("%d writes reached the stand-in, want 3: %v", n, mutations(e.Standin))
		}
	})
	// A batch update writes to each of its books in one request: it waits
	// for a write to one of them, and that write for it.
	t.Run("a batch and one of its items", func(t *testing.T) {
		t.Parallel()
		e := startApproving(t)
		f := countWrites(e.Standin, 2*time.Second)
		callTogether(t, e, []call{
			{"batch_update_books", map[string]any{"library_item_ids": []string{sd.ItemMort, sd.ItemProjectHailMary}, "field": "tags", "values": []string{"x"}}},
			meta(sd.ItemProjectHailMary, map[string]any{"publisher": "One"}),
		})
		if _, all := f.counts(""); all != 1 {
			t.Errorf("a batch and a write to one of its items were in flight %d at a time, want 1", all)
		}
		if n := len(mutations(e.Standin)); n != 2 {
			t.Errorf("%d writes reached the stand-in, want 2: %v", n, mutations(e.Standin))
		}
	})
	// merge_series moves its books in one batch update too: it waits for
	// a write to one of them likewise.
	t.Run("a series merge and one of its books", func(t *testing.T) {
		t.Parallel()
		e := startApproving(t)
		f := countWrites(e.Standin, 2*time.Second)
		callTogether(t, e, []call{
			{"merge_series", map[string]any{"series_id": sd.SeriesEarthsea, "into_series_id": sd.SeriesExpanse}},
			meta(sd.ItemWizardOfEarthsea, map[string]any{"publisher": "One"}),
		})
		if _, all := f.counts(""); all != 1 {
			t.Errorf("a series merge and a write to one of its books were in flight %d at a time, want 1", all)
		}
		if n := len(mutations(e.Standin)); n != 2 {
			t.Errorf("%d writes reached the stand-in, want 2: %v", n, mutations(e.Standin))
		}
	})
	t.Run("different items", func(t *testing.T) {
		t.Parallel()
		e := startApproving(t)
		f := countWrites(e.Standin, time.Minute)
		callTogether(t, e, []call{
			meta(sd.ItemProjectHailMary, map[string]any{"publisher": "One"}),
			meta(sd.ItemMort, map[string]any{"publisher": "Two"}),
		})
		if _, all := f.counts(""); all != 2 {
			t.Errorf("writes to two items were in flight %d at a time, want 2 (they must not wait for each other)", all)
		}
	})
}

package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/bench"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/scalecheck"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
)

// Answer size and time against library size: the stand-in seeded with
// standin.ScaleFor(n) books for each n, the built binary over stdio, every
// read tool's widest calls (internal/scalecheck). For each tool the call
// with the largest answer at the largest library is timed at every size.

// scaleSizes are the library sizes measured (books).
var scaleSizes = []int{100, 1000, 10000}

// pagedByAudiobookshelf are the tools whose route Audiobookshelf pages
// itself (a page is a LIMIT/OFFSET query or a slice of what the route
// reads): their page should not cost more as the library grows.
var pagedByAudiobookshelf = map[string]bool{
	"list_library_items": true, "list_series": true, "list_authors": true, "list_recent_episodes": true,
	"list_listening_sessions": true,
}

type scaleCell struct {
	chars    int
	refused  bool
	median   time.Duration
	absBytes int64 // bytes Audiobookshelf sent per call
}

// countingHandler counts the bytes of every answer h writes.
func countingHandler(h http.Handler, n *atomic.Int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(countingWriter{w, n}, r)
	})
}

type countingWriter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (c countingWriter) Write(b []byte) (int, error) {
	c.n.Add(int64(len(b)))
	return c.ResponseWriter.Write(b)
}

func scaleRows(t *table, p params) error {
	ctx := context.Background()
	widest := scalecheck.Widest(scalecheck.StandinTargets())
	readTools := scalecheck.ReadTools()
	// The call measured per tool: the one with the largest answer on the
	// largest library, found first.
	chosen := map[string]map[string]any{}
	cells := map[string][]scaleCell{}
	runs := 5
	if p.readCalls < 600 {
		runs = 2
	}
	for si := len(scaleSizes) - 1; si >= 0; si-- {
		n := scaleSizes[si]
		fmt.Fprintf(os.Stderr, "benchtable:   %d books…\n", n)
		sd := standin.New(standin.Options{Data: standin.ScaleData(standin.ScaleFor(n)), Now: standin.SampleNow}).ForgetRequests()
		var sent atomic.Int64
		hs := httptest.NewServer(countingHandler(sd.Handler(), &sent))
		cs, _, err := connectServer(ctx, p.bin, hs.URL, standin.DefaultAPIKey)
		if err != nil {
			hs.Close()
			return err
		}
		call := func(name string, args map[string]any) (*mcp.CallToolResult, error) {
			c, cancel := context.WithTimeout(ctx, 2*time.Minute)
			defer cancel()
			return cs.CallTool(c, &mcp.CallToolParams{Name: name, Arguments: args})
		}
		for _, tool := range readTools {
			if chosen[tool.Name] == nil {
				best := -1
				for _, c := range widest[tool.Name] {
					for _, args := range scalecheck.Widen(tool, c) {
						res, err := call(tool.Name, args)
						if err != nil {
							return fmt.Errorf("%s: %w", tool.Name, err)
						}
						if n := result.ResultChars(res); n > best {
							best, chosen[tool.Name] = n, args
						}
					}
				}
				if chosen[tool.Name] == nil {
					return fmt.Errorf("read tool %s has no widest call (tools.yaml widest:)", tool.Name)
				}
			}
			args := chosen[tool.Name]
			var d bench.Durations
			var cell scaleCell
			b0 := sent.Load()
			for i := 0; i < runs; i++ {
				t0 := time.Now()
				res, err := call(tool.Name, args)
				if err != nil {
					return fmt.Errorf("%s: %w", tool.Name, err)
				}
				d = append(d, time.Since(t0))
				cell.chars, cell.refused = result.ResultChars(res), res.IsError
			}
			cell.median, cell.absBytes = d.Median(), (sent.Load()-b0)/int64(runs)
			cells[tool.Name] = append([]scaleCell{cell}, cells[tool.Name]...)
		}
		cs.Close()
		hs.Close()
	}
	names := make([]string, 0, len(cells))
	for _, tool := range readTools {
		names = append(names, tool.Name)
	}
	sizes := make([]string, len(scaleSizes))
	for i, n := range scaleSizes {
		sizes[i] = thousandsOf(n)
	}
	budget := result.DefaultMaxResultChars
	for _, name := range names {
		c := cells[name]
		last, mid := c[len(c)-1], c[1]
		var chars, times, from []string
		fits := true
		for _, x := range c {
			s := thousandsOf(x.chars)
			if x.refused {
				s += " (refused)"
			}
			chars, times, from = append(chars, s), append(times, ms(x.median)), append(from, kb(x.absBytes))
			// Only a raw answer (detail full) may be refused, and then
			// for the budget.
			fits = fits && x.chars <= budget && !(x.refused && chosen[name]["detail"] != "full")
		}
		args := argsShape(chosen[name])
		t.add("7 scale", fmt.Sprintf("`%s` %s: answer characters at %s books", name, args, strings.Join(sizes, " / ")),
			fmt.Sprintf("%s (×%.2f from 1,000 to 10,000)", strings.Join(chars, " / "), ratio(float64(last.chars), float64(mid.chars))),
			"≤ 40,000; flat", ptr(fits && last.chars <= mid.chars*11/10+200))
		target := ""
		var met *bool
		if pagedByAudiobookshelf[name] {
			// From 1,000 on, the pages measured are full.
			target = "a page: bytes flat from 1,000 to 10,000"
			met = ptr(float64(last.absBytes) <= 1.5*float64(mid.absBytes))
		}
		t.add("7 scale", fmt.Sprintf("`%s`: time per call (median of %d), and bytes Audiobookshelf sent per call", name, runs),
			fmt.Sprintf("%s (×%.1f from 1,000 to 10,000); %s (×%.1f)", strings.Join(times, " / "), ratio(float64(last.median), float64(mid.median)),
				strings.Join(from, " / "), ratio(float64(last.absBytes), float64(mid.absBytes))), target, met)
	}
	sort.Strings(names)
	t.notes = append(t.notes, fmt.Sprintf("Scale (section 7): the stand-in seeded with standin.ScaleFor(n) for n = %s books "+
		"(1.5 authors, 0.75 tags, 0.2 genres, 0.1 series per book, at least 400 authors; a book with 375 authors and 600 chapters; "+
		"collections and playlists of 20 books and one of 600; sessions, bookmarks, progress; a podcast of n/10 episodes), served in "+
		"the bench process, and the built binary over stdio with the default budget of 40,000 characters. For each read tool, the "+
		"widest call of internal/scalecheck (limit at its maximum, detail compact or full) whose answer is longest on the largest "+
		"library is made %d times at each size. \"Refused\" is the budget's refusal of a raw answer (detail full), which names the "+
		"compact form. Time is the whole call as the client sees it, the stand-in's own work included: the stand-in reads its whole "+
		"state for most routes (a real Audiobookshelf runs SQL), so the time of a page grows with the library even where the bytes "+
		"Audiobookshelf sends for it do not; the bytes are what tells whether a page costs a page. \"Flat\" is within 10%% from 1,000 "+
		"to 10,000 books; an answer that grows with one long list (a series of a tenth of the books) until the budget cuts it is marked no. "+
		"An error other than the budget's (list_collections and list_playlists without library_id at 10,000 books: more than the 32 MB "+
		"a body may have, since GET /api/collections and GET /api/playlists send every collection expanded) is marked refused too.", strings.Join(sizes, ", "), runs))
	return nil
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func kb(n int64) string {
	if n < 10*1024 {
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	}
	return fmt.Sprintf("%.0f KB", float64(n)/1024)
}

func thousandsOf(n int) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// argsShape names a call's arguments without ids: limit, detail and flags.
func argsShape(args map[string]any) string {
	var parts []string
	for _, k := range []string{"limit", "detail", "collapse_series", "include_items", "q", "year"} {
		if v, ok := args[k]; ok {
			parts = append(parts, fmt.Sprintf("%s %v", k, v))
		}
	}
	for k, v := range args {
		if strings.HasSuffix(k, "_id") {
			switch v {
			case standin.LibraryPodcastsID, standin.ScalePodcastID:
				k += " (podcast)"
			}
			parts = append(parts, k)
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

package bench

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
)

// TestEverydayRequests runs T1-T8 on the stand-in, each on a fresh server,
// with default settings for both kinds of client (one that re-reads
// tools/list after enable_toolset, one that runs the tool through
// call_tool) and with every toolset, and holds the default, for each kind,
// to at most MaxCalls calls and MaxTokens tokens together, and to at most
// MaxShareOfAll of the tokens of every toolset. It prints the tables.
func TestEverydayRequests(t *testing.T) {
	tok, err := NewTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	all, err := config.ParseToolsets("all")
	if err != nil {
		t.Fatal(err)
	}
	type run struct {
		name     string
		toolsets []string
		kind     Client
	}
	runs := []run{{"all", all, Rereads}} // every tool listed: both kinds alike
	for _, k := range ClientKinds {
		runs = append(runs, run{"default", nil, k})
	}
	totals := map[string]int{}
	for _, c := range runs {
		label := c.name
		if c.name == "default" {
			label += ", client " + c.kind.String()
		}
		t.Run(label, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a hang guard
			defer cancel()
			ts, err := MeasureOnStandin(ctx, tok, c.toolsets, c.kind)
			if err != nil {
				t.Fatal(err)
			}
			calls, list, call := Sums(ts)
			totals[label] = list + call
			t.Logf("AUDIOBOOKSHELF_TOOLSETS=%s (%s tokens):\n%s", label, Encoding, RequestsTable(ts))
			if c.name != "default" {
				return
			}
			if calls > MaxCalls {
				t.Errorf("the eight requests take %d calls with default settings (client %s); the target is at most %d", calls, c.kind, MaxCalls)
			}
			if list+call > MaxTokens {
				t.Errorf("the eight requests cost %d tokens with default settings (client %s: tools/list %d, calls %d); the target is at most %d", list+call, c.kind, list, call, MaxTokens)
			}
			if every := totals["all"]; every > 0 {
				if share := float64(list+call) / float64(every); share > MaxShareOfAll {
					t.Errorf("with default settings (client %s) the eight cost %d tokens, %.0f%% of the %d with every toolset listed; at most %.0f%%", c.kind, list+call, 100*share, every, 100*MaxShareOfAll)
				}
			}
		})
	}
	if totals["all"] == 0 {
		t.Fatalf("tokens counted: %v", totals)
	}
	t.Logf("tokens: %v (default at most %d for each kind of client)", totals, MaxTokens)
}

// TestEveryToolsetListFits holds tools/list with every toolset on to
// MaxAllToolsListTokens, and logs each definition's tokens, largest first.
func TestEveryToolsetListFits(t *testing.T) {
	tok, err := NewTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	all, err := config.ParseToolsets("all")
	if err != nil {
		t.Fatal(err)
	}
	total, per, err := ToolsList(t.Context(), tok, all)
	if err != nil {
		t.Fatal(err)
	}
	names := slices.Collect(maps.Keys(per))
	slices.SortFunc(names, func(a, b string) int { return per[b] - per[a] })
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%s %d\n", n, per[n])
	}
	t.Logf("tools/list with every toolset: %d tools, %d tokens\n%s", len(per), total, b.String())
	if total > MaxAllToolsListTokens {
		t.Errorf("tools/list with every toolset on costs %d %s tokens; at most %d", total, Encoding, MaxAllToolsListTokens)
	}
}

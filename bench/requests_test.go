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

// Targets of the everyday requests with default settings (issue 30).
const (
	MaxCalls = 12
	// MaxTokens is what the eight together may cost with default
	// settings: tools/list once per request and every call's request and
	// answer, as sent.
	MaxTokens = 16000
	// MaxShareOfAll is what the default may cost at most, as a share of
	// the same eight with every toolset listed, measured in the same run.
	MaxShareOfAll = 0.25
)

// TestEverydayRequests runs T1-T8 on the stand-in, each on a fresh server,
// with default settings and with every toolset, and holds the default to
// at most MaxCalls calls and MaxTokens tokens together, and to at most
// MaxShareOfAll of the tokens of every toolset. It prints both tables.
func TestEverydayRequests(t *testing.T) {
	tok, err := NewTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	all, err := config.ParseToolsets("all")
	if err != nil {
		t.Fatal(err)
	}
	totals := map[string]int{}
	for _, c := range []struct {
		name     string
		toolsets []string
	}{{"default", nil}, {"all", all}} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a hang guard
			defer cancel()
			ts, err := MeasureOnStandin(ctx, tok, c.toolsets)
			if err != nil {
				t.Fatal(err)
			}
			calls, list, call := Sums(ts)
			totals[c.name] = list + call
			t.Logf("AUDIOBOOKSHELF_TOOLSETS=%s (%s tokens):\n%s", c.name, Encoding, RequestsTable(ts))
			if c.name == "default" && calls > MaxCalls {
				t.Errorf("the eight requests take %d calls with default settings; the target is at most %d", calls, MaxCalls)
			}
			if c.name == "default" && list+call > MaxTokens {
				t.Errorf("the eight requests cost %d tokens with default settings (tools/list %d, calls %d); the target is at most %d", list+call, list, call, MaxTokens)
			}
		})
	}
	def, every := totals["default"], totals["all"]
	if def == 0 || every == 0 {
		t.Fatalf("tokens counted: %v", totals)
	}
	if share := float64(def) / float64(every); share > MaxShareOfAll {
		t.Errorf("with default settings the eight cost %d tokens, %.0f%% of the %d with every toolset listed; at most %.0f%%", def, 100*share, every, 100*MaxShareOfAll)
	}
	t.Logf("default: %d tokens (at most %d); every toolset: %d", def, MaxTokens, every)
}

// MaxAllToolsListTokens bounds tools/list with every toolset on
// (AUDIOBOOKSHELF_TOOLSETS=all), as sent, in Encoding's tokens (issue 41):
// what every request pays where the discovery tools cannot help.
const MaxAllToolsListTokens = 10000

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

package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/bench"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
)

// everydayRequests: the eight everyday requests (T1-T8) on the stand-in,
// calls and tokens, with default settings and with every toolset.
func everydayRequests(t *table) error {
	tok, err := bench.NewTokenizer()
	if err != nil {
		return err
	}
	all, err := config.ParseToolsets("all")
	if err != nil {
		return err
	}
	var a strings.Builder
	a.WriteString("The eight everyday requests, each on a fresh server and sample library (stand-in, in process), tools/list read once per request; tokens are " + bench.Encoding + " (tiktoken-go), of the JSON-RPC messages as sent.\n")
	for _, c := range []struct {
		name     string
		toolsets []string
	}{{"default", nil}, {"all", all}} {
		ts, err := bench.MeasureOnStandin(context.Background(), tok, c.toolsets)
		if err != nil {
			return fmt.Errorf("AUDIOBOOKSHELF_TOOLSETS=%s: %w", c.name, err)
		}
		calls, list, call := bench.Sums(ts)
		var callsMet, tokMet *bool
		callsTarget, tokTarget := "", ""
		if c.name == "default" {
			callsMet, tokMet = ptr(calls <= 12), ptr(list+call <= 16000)
			callsTarget, tokTarget = "≤ 12", "≤ 16 000"
		}
		t.add("8 everyday requests", fmt.Sprintf("T1-T8 with AUDIOBOOKSHELF_TOOLSETS=%s: calls", c.name), fmt.Sprint(calls), callsTarget, callsMet)
		t.add("8 everyday requests", fmt.Sprintf("T1-T8 with AUDIOBOOKSHELF_TOOLSETS=%s: tokens, tools/list (%d bytes, 8 times) + calls = total", c.name, ts[0].ListBytes),
			fmt.Sprintf("%d + %d = %d", list, call, list+call), tokTarget, tokMet)
		fmt.Fprintf(&a, "\nAUDIOBOOKSHELF_TOOLSETS=%s:\n\n%s", c.name, bench.RequestsTable(ts))
	}
	t.appendix = append(t.appendix, a.String())
	return nil
}

package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/bench"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
)

// everydayRequests: the eight everyday requests (T1-T8) on the stand-in,
// calls and tokens, with default settings for both kinds of client (one
// that re-reads tools/list after enable_toolset, one that never does and
// runs the tool through call_tool), and with every toolset; and
// tools/list alone with every toolset.
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
	a.WriteString("The eight everyday requests, each on a fresh server and sample library (stand-in, in process), tools/list read once per request; tokens are " + bench.Encoding + " (tiktoken-go), of the JSON-RPC messages as sent. " +
		"Two kinds of client with default settings: one that re-reads tools/list when it changes (after enable_toolset it reads the longer list, counted in place of the short one, and calls the tool by name), " +
		"and one that never re-reads it (the short list, enable_toolset for the tool's arguments, and call_tool's request and answer). With every toolset listed both kinds are alike.\n")
	type run struct {
		name     string
		toolsets []string
		kind     bench.Client
	}
	var runs []run
	for _, k := range bench.ClientKinds {
		runs = append(runs, run{"default", nil, k})
	}
	runs = append(runs, run{"all", all, bench.Rereads})
	for _, c := range runs {
		ts, err := bench.MeasureOnStandin(context.Background(), tok, c.toolsets, c.kind)
		if err != nil {
			return fmt.Errorf("AUDIOBOOKSHELF_TOOLSETS=%s: %w", c.name, err)
		}
		calls, list, call := bench.Sums(ts)
		label := "AUDIOBOOKSHELF_TOOLSETS=" + c.name
		var callsMet, tokMet *bool
		callsTarget, tokTarget := "", ""
		if c.name == "default" {
			label += ", a client that " + c.kind.String()
			callsMet, tokMet = ptr(calls <= bench.MaxCalls), ptr(list+call <= bench.MaxTokens)
			callsTarget, tokTarget = fmt.Sprintf("≤ %d", bench.MaxCalls), "≤ 16 000"
		}
		t.add("8 everyday requests", fmt.Sprintf("T1-T8 with %s: calls", label), fmt.Sprint(calls), callsTarget, callsMet)
		t.add("8 everyday requests", fmt.Sprintf("T1-T8 with %s: tokens, tools/list (%d bytes at first) + calls = total", label, ts[0].ListBytes),
			fmt.Sprintf("%d + %d = %d", list, call, list+call), tokTarget, tokMet)
		fmt.Fprintf(&a, "\n%s:\n\n%s", label, bench.RequestsTable(ts))
	}
	total, _, err := bench.ToolsList(context.Background(), tok, all)
	if err != nil {
		return err
	}
	t.add("8 everyday requests", "tools/list with AUDIOBOOKSHELF_TOOLSETS=all, tokens", fmt.Sprint(total), fmt.Sprintf("≤ %d", bench.MaxAllToolsListTokens), ptr(total <= bench.MaxAllToolsListTokens))
	t.appendix = append(t.appendix, a.String())
	return nil
}

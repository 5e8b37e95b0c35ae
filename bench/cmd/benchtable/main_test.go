package main

import (
	"strings"
	"testing"
)

// The measurements run only from make bench; this keeps the driver compiled
// and its table well formed in the default test run.
func TestMarkdown(t *testing.T) {
	tb := &table{}
	tb.add("1 start-up", "a", "1 ms", "≤ 1.5×", ptr(true))
	tb.add("1 start-up", "b", "2 ms", "", nil)
	tb.add("2 tokens", "c", "3", "< 4", ptr(false))
	got := tb.markdown()
	want := "| # | measure | value | target | met |\n|---|---|---|---|---|\n" +
		"| 1 start-up | a | 1 ms | ≤ 1.5× | yes |\n" +
		"|  | b | 2 ms |  |  |\n" +
		"| 2 tokens | c | 3 | < 4 | no |\n"
	if got != want {
		t.Fatalf("markdown:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(demoURL.FindStringSubmatch("served from memory at http://127.0.0.1:4242; nothing")[1], "127.0.0.1:4242") {
		t.Fatal("demo URL not found")
	}
	if m := listening.FindStringSubmatch("audiobookshelf-mcp: listening on http://127.0.0.1:5151/mcp\n"); m == nil || m[1] != "http://127.0.0.1:5151/mcp" {
		t.Fatalf("listening line: %q", m)
	}
}

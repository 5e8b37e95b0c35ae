package main

import (
	"os"
	"os/exec"
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

// TestRealTargetTakesTheKeyOut: the key given for a real server leaves this
// process's environment before anything is started (also where make copied
// it, into MAKEFLAGS), so a child started without an explicit environment
// cannot see it; a URL without a key, or a key without a URL, is refused.
func TestRealTargetTakesTheKeyOut(t *testing.T) {
	const key = "bench-test-key-0123456789"
	t.Setenv("AUDIOBOOKSHELF_URL", "http://127.0.0.1:13378/")
	t.Setenv("AUDIOBOOKSHELF_API_KEY", key)
	t.Setenv("MAKEFLAGS", " -- AUDIOBOOKSHELF_API_KEY="+key)
	target, ok, err := realTarget()
	if err != nil || !ok || target.URL != "http://127.0.0.1:13378" || target.Key != key {
		t.Fatalf("realTarget = %+v, %v, %v", target, ok, err)
	}
	for _, kv := range os.Environ() {
		if strings.Contains(kv, key) || strings.HasPrefix(kv, "AUDIOBOOKSHELF_") {
			t.Errorf("still in the environment: %s", strings.SplitN(kv, "=", 2)[0])
		}
	}
	out, err := exec.Command("env").Output()
	if err != nil {
		t.Skip("no env command:", err)
	}
	if strings.Contains(string(out), key) {
		t.Error("a child process sees the key")
	}

	t.Setenv("AUDIOBOOKSHELF_URL", "http://127.0.0.1:13378")
	if _, _, err := realTarget(); err == nil || !strings.Contains(err.Error(), "AUDIOBOOKSHELF_API_KEY") {
		t.Errorf("URL without key: %v", err)
	}
	t.Setenv("AUDIOBOOKSHELF_API_KEY", key)
	if _, _, err := realTarget(); err == nil || strings.Contains(err.Error(), key) {
		t.Errorf("key without URL: %v", err)
	}
	if _, ok, err := realTarget(); ok || err != nil {
		t.Errorf("neither: ok %v, %v", ok, err)
	}
}

package main

import (
	"net"
	"strings"
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// TestCheckFlag: --check against the stand-in says what it found and exits
// 0; with a key Audiobookshelf refuses, or nothing listening, it says what
// is wrong and exits 1. It changes nothing, and the key is in no output.
func TestCheckFlag(t *testing.T) {
	sd := standin.Start(t, standin.Options{})
	code, out, errOut := runQuick(t, standinEnv(sd), "--check")
	if code != 0 {
		t.Fatalf("--check: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"Audiobookshelf at " + sd.URL() + " answers",
		"server version: 2.36.0",
		"user:           root (root)",
		"libraries:      2: Books, Podcasts",
		"OK: the tools can reach it",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("--check does not say %q:\n%s", want, out)
		}
	}
	if len(sd.Mutations()) != 0 {
		t.Errorf("--check changed something: %+v", sd.Mutations())
	}
	if strings.Contains(out+errOut, standin.DefaultAPIKey) {
		t.Error("--check printed the API key")
	}

	// A key Audiobookshelf refuses.
	const badKey = "not-the-key-4f2a9c"
	code, out, errOut = runQuick(t, baseEnv("AUDIOBOOKSHELF_URL="+sd.URL(), "AUDIOBOOKSHELF_API_KEY="+badKey), "--check")
	if code != 1 || !strings.Contains(errOut, "check failed: Audiobookshelf refused the API key (401 Unauthorized") ||
		!strings.Contains(errOut, "Settings → API Keys") || out != "" {
		t.Errorf("a refused key: exit %d\nstdout %q\nstderr %s", code, out, errOut)
	}
	if strings.Contains(out+errOut, badKey) {
		t.Error("--check printed the refused key")
	}

	// Nothing listening.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	code, out, errOut = runQuick(t, baseEnv("AUDIOBOOKSHELF_URL=http://"+addr, "AUDIOBOOKSHELF_API_KEY="+badKey), "--check")
	if code != 1 || !strings.Contains(errOut, "check failed: Audiobookshelf at http://"+addr+" refused the connection") || out != "" {
		t.Errorf("unreachable: exit %d\nstdout %q\nstderr %s", code, out, errOut)
	}
	if strings.Contains(out+errOut, badKey) {
		t.Error("--check printed the key")
	}

	// Not configured, and with --http.
	code, _, errOut = runQuick(t, baseEnv(), "--check")
	if code != 1 || !strings.Contains(errOut, "AUDIOBOOKSHELF_URL is not set") {
		t.Errorf("not configured: exit %d: %s", code, errOut)
	}
	code, _, errOut = runQuick(t, standinEnv(sd), "--check", "--http", ":0")
	if code != 2 || !strings.Contains(errOut, "--check") {
		t.Errorf("--check --http: exit %d: %s", code, errOut)
	}
}

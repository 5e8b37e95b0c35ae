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

// TestCheckSaysWhatToSet: --check with the likeliest mistakes in
// AUDIOBOOKSHELF_URL, against real listeners: each says what is wrong and
// what to set, and exits 1. (Before: a wrong path ended in "check the id
// (list and search tools give ids)", an unknown host in an unfinished
// sentence, https to a plain http port in Go's own TLS error, and a URL
// without a scheme in `got "(unparsable)"`.)
func TestCheckSaysWhatToSet(t *testing.T) {
	sd := standin.Start(t, standin.Options{})
	hostPort := strings.TrimPrefix(sd.URL(), "http://")
	for _, c := range []struct {
		name, url string
		want      []string
	}{
		{"a path Audiobookshelf is not served under", sd.URL() + "/audiobookshelf/",
			[]string{"is not served at this path", "Audiobookshelf answers at " + sd.URL() + ": set AUDIOBOOKSHELF_URL=" + sd.URL() + "."}},
		{"/api", sd.URL() + "/api",
			[]string{"without /api", "set AUDIOBOOKSHELF_URL=" + sd.URL() + "."}},
		{"an unknown host", "http://abs.invalid:13378",
			[]string{`could not be reached: its host name "abs.invalid" could not be resolved`, "Check the host name in AUDIOBOOKSHELF_URL"}},
		{"https to a plain http port", "https://" + hostPort,
			[]string{"answered in plain http, but AUDIOBOOKSHELF_URL says https", "Set AUDIOBOOKSHELF_URL to http://" + hostPort}},
		{"no scheme", hostPort,
			[]string{"has no scheme", "such as http://" + hostPort}},
		{"no scheme, a name", "abs.example.org",
			[]string{"has no scheme", "such as http://abs.example.org"}},
	} {
		code, out, errOut := runQuick(t, baseEnv("AUDIOBOOKSHELF_URL="+c.url, "AUDIOBOOKSHELF_API_KEY="+standin.DefaultAPIKey), "--check")
		if code != 1 || out != "" {
			t.Errorf("%s (%s): exit %d, stdout %q", c.name, c.url, code, out)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%s (%s): does not say %q:\n%s", c.name, c.url, w, errOut)
			}
		}
		for _, bad := range []string{"check the id", "(unparsable)", "tls:", "Audiobookshelf at http://abs.invalid:13378 its host"} {
			if strings.Contains(errOut, bad) {
				t.Errorf("%s (%s): still says %q:\n%s", c.name, c.url, bad, errOut)
			}
		}
		if strings.Contains(errOut, standin.DefaultAPIKey) {
			t.Errorf("%s: the key is in the output", c.name)
		}
	}
}

// TestRefusedKeyStopsTheStart: over stdio, a key Audiobookshelf refuses
// (401) is a setup error: the server exits 1 at start with the reason and
// the fix, before it reads a message, so a client shows a failed start;
// the key is printed nowhere. An Audiobookshelf that cannot be reached
// stays an error of each call (it may come back): the server starts. Over
// --http the key is not checked at start.
func TestRefusedKeyStopsTheStart(t *testing.T) {
	sd := standin.Start(t, standin.Options{})
	const badKey = "not-the-key-77c1e0"
	code, out, errOut := runQuick(t, baseEnv("AUDIOBOOKSHELF_URL="+sd.URL(), "AUDIOBOOKSHELF_API_KEY="+badKey))
	if code != 1 || out != "" {
		t.Errorf("a refused key over stdio: exit %d, stdout %q, stderr %s", code, out, errOut)
	}
	for _, want := range []string{"Audiobookshelf refused the API key (401 Unauthorized", "Settings → API Keys", "--check", sd.URL()} {
		if !strings.Contains(errOut, want) {
			t.Errorf("the refusal does not say %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(out+errOut, badKey) {
		t.Error("the refused key was printed")
	}
	if len(sd.Mutations()) != 0 {
		t.Errorf("the start changed something: %+v", sd.Mutations())
	}

	// The right key: the server starts and answers.
	if res, _ := callOverStdio(t, standinEnv(sd), "list_libraries", nil); !strings.Contains(res, "Books") {
		t.Errorf("with the key: %s", res)
	}

	// Nothing listening: the server starts, and the call says what failed.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	res, _ := callOverStdio(t, baseEnv("AUDIOBOOKSHELF_URL=http://"+addr, "AUDIOBOOKSHELF_API_KEY="+badKey), "list_libraries", nil)
	if !strings.Contains(res, "refused the connection") || strings.Contains(res, badKey) {
		t.Errorf("unreachable: %s", res)
	}
}

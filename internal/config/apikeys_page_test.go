package config_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// oldAPIKeysPage is where the server's texts once sent people to make an
// API key: Settings → Users → API keys. In Audiobookshelf 2.36 API keys have
// their own page, Settings → API Keys, and only an admin can make one (its
// dialog asks which user the key acts for).
var oldAPIKeysPage = regexp.MustCompile(`(?i)Settings\s*(→|>|->|,)\s*Users\s*(→|>|->|,)\s*API\s*keys`)

// stillOld are tracked files this test leaves alone for now (none): each
// must still hold the phrase (the test says when one no longer does, so
// that the list shrinks).
var stillOld = map[string]bool{}

// TestNoOldAPIKeysPage: no tracked text file but a test names the old
// place of API keys.
func TestNoOldAPIKeysPage(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	files := strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
	if len(files) < 100 {
		t.Fatalf("git ls-files listed %d files; want the whole repository", len(files))
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil || bytes.IndexByte(b, 0) >= 0 { // gone from the work tree, or not text
			continue
		}
		found := oldAPIKeysPage.Find(b)
		switch {
		case found != nil && !stillOld[f]:
			t.Errorf("%s says %q: API keys are made under Settings → API Keys, by an admin, for the user the key acts for", f, found)
		case found == nil && stillOld[f]:
			t.Errorf("%s no longer names the old place of API keys: take it out of stillOld", f)
		}
	}
}

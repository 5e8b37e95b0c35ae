package absversion

import (
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/versions"
)

func TestOlder(t *testing.T) {
	for _, tt := range []struct {
		server, since string
		want          bool
	}{
		{"2.35.1", "2.36.0", true},
		{"2.36.0", "2.36.0", false},
		{"2.36.1", "2.36.0", false},
		{"2.9.0", "2.26.0", true}, // numeric, not lexical
		{"2.100.0", "2.36.0", false},
		{"v2.25.0", "2.26.0", true},
		{"2.36.0-beta.1", "2.36.0", false},
		{"1.99.99", "2.0.0", true},
		{"", "2.36.0", false},
		{"unknown", "2.36.0", false},
		{"2.36", "2.36.0", false},
	} {
		if got := Older(tt.server, tt.since); got != tt.want {
			t.Errorf("Older(%q, %q) = %v, want %v", tt.server, tt.since, got, tt.want)
		}
	}
}

// The gates come from the spec: the bookmark routes appeared in 2.36.0 and
// API keys in 2.26.0.
func TestGatesFromSpec(t *testing.T) {
	if versions.APIKeys != "2.26.0" {
		t.Errorf("APIKeys %q", versions.APIKeys)
	}
	if !LacksAPIKeys("2.25.1") || LacksAPIKeys("2.26.0") {
		t.Error("LacksAPIKeys wrong around 2.26.0")
	}
	var ops []string
	for _, g := range Lacking("2.35.1") {
		ops = append(ops, g.Operation)
	}
	if len(ops) != 2 || ops[0] != "listAllBookmarks" || ops[1] != "listItemBookmarks" {
		t.Errorf("2.35.1 lacks %v", ops)
	}
	if l := Lacking(versions.Spec); len(l) != 0 {
		t.Errorf("the spec's own release lacks %v", l)
	}
}

func TestGateFor(t *testing.T) {
	for _, tt := range []struct {
		method, path, want string
	}{
		{"GET", "/api/me/bookmarks", "listAllBookmarks"},
		{"GET", "/api/me/bookmarks/", "listAllBookmarks"},
		{"GET", "/api/me/bookmarks/li_1", "listItemBookmarks"},
		{"POST", "/api/me/bookmarks/li_1", ""},
		{"GET", "/api/me/bookmarks/li_1/x", ""},
		{"GET", "/api/me", ""},
		{"GET", "/api/items/li_1", ""},
	} {
		got := ""
		if g := GateFor(tt.method, tt.path); g != nil {
			got = g.Operation
		}
		if got != tt.want {
			t.Errorf("GateFor(%s %s) = %q, want %q", tt.method, tt.path, got, tt.want)
		}
	}
}

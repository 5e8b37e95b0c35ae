package app

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
)

// A person printed or logged, alone or inside the TokenInfo that carries
// it, shows the user id and never the key.
func TestPersonNeverShowsTheKey(t *testing.T) {
	const key = "the-secret-audiobookshelf-key"
	p := &person{Person: kit.Person{UserID: "u-1", Username: "sam"}, key: key}
	ti := &auth.TokenInfo{UserID: "u-1", Extra: map[string]any{personKey: p}}
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("x", "person", p, "info", ti)
	slog.New(slog.NewTextHandler(&buf, nil)).Info("x", "person", p, "info", ti)
	out := fmt.Sprintf("%v %+v %#v %s %v %+v", p, p, p, p, ti, ti) + buf.String()
	if strings.Contains(out, key) {
		t.Fatalf("the key shows: %s", out)
	}
	if !strings.Contains(out, "u-1") {
		t.Errorf("the user id does not show: %s", out)
	}
}

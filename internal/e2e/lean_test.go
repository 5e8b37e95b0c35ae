package e2e

import (
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
)

// TestListeningStatsSessionsOnRequest: the compact stats leave the recent
// sessions out unless asked for, and give as many as asked.
func TestListeningStatsSessionsOnRequest(t *testing.T) {
	t.Parallel()
	e := start(t, apptest.Options{})
	lean := apptest.Text(e.Call(t, "get_listening_stats", nil))
	v := decode(t, e.Call(t, "get_listening_stats", map[string]any{"sessions": 2}))
	if n := len(at(t, v, "recent_sessions").([]any)); n != 2 {
		t.Errorf("sessions 2 gave %d", n)
	}
	with := apptest.Text(e.Call(t, "get_listening_stats", map[string]any{"sessions": 2}))
	if len(lean) >= len(with) {
		t.Errorf("the compact answer (%d bytes) is not shorter than with sessions (%d)", len(lean), len(with))
	}
	t.Logf("get_listening_stats compact: %d bytes; with 2 sessions: %d", len(lean), len(with))
}

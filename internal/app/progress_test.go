package app_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/guard"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/app"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// TestProgressWhileAQuestionWaits: over streamable HTTP, a 2025-11-25
// client's guarded call that carries a progress token gets progress
// notifications for that token while its pushed question waits for the
// person, so that a client resetting its timeout on progress does not give
// up first. The person here
// answers only once two have arrived: without them the call would wait
// until the test's limit and fail.
func TestProgressWhileAQuestionWaits(t *testing.T) {
	sd := standin.Start(t, standin.Options{})
	cfg := &config.Config{URL: sd.URL(), APIKey: standin.DefaultAPIKey, Elicitation: true, Timeout: 10 * time.Second, Toolsets: config.AllToolsets()}
	srv, err := app.New(app.Options{Config: cfg, Version: "test", ProgressEvery: 20 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.HTTPHandler(app.HTTPOptions{}))
	t.Cleanup(ts.Close)

	var mu sync.Mutex
	got := map[any][]float64{} // progress token -> progress values, in order
	arrived := make(chan struct{}, 100)
	cs, err := apptest.ConnectHTTP(t, ts.URL+app.MCPPath, "2025-11-25", nil, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			got[req.Params.ProgressToken] = append(got[req.Params.ProgressToken], req.Params.Progress)
			mu.Unlock()
			arrived <- struct{}{}
		},
		ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			// The person reads for a while: until two notifications came.
			for range 2 {
				select {
				case <-arrived:
				case <-time.After(time.Minute):
					return &mcp.ElicitResult{Action: "decline"}, nil
				}
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{guard.ApproveField: true}}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	params := &mcp.CallToolParams{Name: "delete_playlist", Arguments: map[string]any{"playlist_id": standin.PlaylistCommute}}
	params.SetProgressToken("delete-1")
	res, err := cs.CallTool(t.Context(), params)
	if err != nil || res.IsError {
		t.Fatalf("the approved call: %v %s", err, apptest.Text(res))
	}
	mu.Lock()
	p := got["delete-1"]
	mu.Unlock()
	if len(p) < 2 {
		t.Fatalf("progress for the call's token: %v (all: %v)", p, got)
	}
	for i := 1; i < len(p); i++ {
		if p[i] <= p[i-1] {
			t.Errorf("progress does not increase: %v", p)
		}
	}
	if _, ok := sd.Playlist(standin.PlaylistCommute); ok {
		t.Error("the approved call did not delete the playlist")
	}
}

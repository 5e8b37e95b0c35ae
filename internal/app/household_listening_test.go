package app_test

import (
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/app"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// TestHouseholdListening: per person, the listening toolset reads and
// changes the caller's own: partner's what_next is partner's series, and
// the series partner takes off Continue Series is off partner's shelf
// alone.
func TestHouseholdListening(t *testing.T) {
	sd := standin.Start(t, standin.Options{Now: standin.SampleNow})
	cfg := &config.Config{URL: sd.URL(), Elicitation: true, Timeout: 10 * time.Second, Auth: config.AuthAuto,
		Toolsets: append(config.DefaultToolsets(), "listening")}
	if err := cfg.ResolveAuth(true); err != nil || !cfg.PerPerson {
		t.Fatalf("not per-person: %v %v", cfg.PerPerson, err)
	}
	srv, err := app.New(app.Options{Config: cfg, Version: "test", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.HTTPHandler(app.HTTPOptions{PerPerson: true}))
	t.Cleanup(ts.Close)
	h := &household{sd: sd, url: ts.URL + app.MCPPath, version: "2025-11-25"}
	root := h.connectAs(t, standin.DefaultAPIKey, nil)
	partner := h.connectAs(t, standin.PartnerAPIKey, nil)

	decode := func(tool string, cs *mcp.ClientSession, args map[string]any) map[string]any {
		t.Helper()
		res := apptest.CallOn(t, cs, tool, args)
		if res.IsError {
			t.Fatalf("%s: %s", tool, apptest.Text(res))
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(apptest.Text(res)), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	// Partner is in Discworld only (The Colour of Magic and Mort).
	v := decode("what_next", partner, nil)
	series := v["next_in_series"].([]any)
	if len(series) != 1 || series[0].(map[string]any)["series_id"] != standin.SeriesDiscworld {
		t.Errorf("partner's series: %v", series)
	}
	decode("hide_series_from_continue_series", partner, map[string]any{"series_id": standin.SeriesDiscworld})
	p, _ := sd.UserByID(standin.UserPartnerID)
	r, _ := sd.UserByID(standin.UserRootID)
	if !slices.Contains(p.SeriesHideFromContinueListening, standin.SeriesDiscworld) || slices.Contains(r.SeriesHideFromContinueListening, standin.SeriesDiscworld) {
		t.Errorf("hidden for partner %v, for root %v", p.SeriesHideFromContinueListening, r.SeriesHideFromContinueListening)
	}
	for _, req := range sd.Mutations() {
		if req.Credential != standin.PartnerAPIKey {
			t.Errorf("%s %s was sent with another key than partner's", req.Method, req.Path)
		}
	}
	// Resources and completions are the person's own too: partner is in
	// the middle of Mort, root of Good Omens.
	now, err := partner.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "audiobookshelf://me/listening-now"})
	if err != nil || !strings.Contains(now.Contents[0].Text, standin.ItemMort) || strings.Contains(now.Contents[0].Text, standin.ItemGoodOmens) {
		t.Errorf("partner's listening now: %v %v", now, err)
	}
	ids, err := root.Complete(t.Context(), &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: "audiobookshelf://items/{id}"},
		Argument: mcp.CompleteParamsArgument{Name: "id"}})
	if err != nil || !slices.Contains(ids.Completion.Values, standin.ItemGoodOmens) || slices.Contains(ids.Completion.Values, standin.ItemMort) {
		t.Errorf("root's items in progress: %v %v", ids, err)
	}
	// Root's own series, both of them, as before.
	if n := len(decode("what_next", root, nil)["next_in_series"].([]any)); n != 2 {
		t.Errorf("root's what_next has %d series", n)
	}
}

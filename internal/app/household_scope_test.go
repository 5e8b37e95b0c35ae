package app_test

import (
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/app"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// TestHouseholdScope: per person, what the person sees is the person's
// own. Partner, made an admin kept to the podcast library, is refused the
// tag rename that root (who sees every library) may make, without a
// question or a change, and partner's listening-now leaves out Mort, a
// book of the library partner no longer sees.
func TestHouseholdScope(t *testing.T) {
	sd := standin.Start(t, standin.Options{Now: standin.SampleNow})
	sd.Update(func(d *standin.Data) {
		for i := range d.Users {
			if d.Users[i].ID == standin.UserPartnerID {
				d.Users[i].Type = "admin"
			}
		}
	})
	sd.SetUserPermissions(standin.UserPartnerID, func(p *standin.Permissions) {
		p.AccessAllLibraries = false
		p.LibrariesAccessible = []string{standin.LibraryPodcastsID}
	})
	cfg := &config.Config{URL: sd.URL(), Elicitation: true, Timeout: 10 * time.Second, Auth: config.AuthAuto,
		Toolsets: append(config.DefaultToolsets(), "listening", "curation")}
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
	var partnerAsked atomic.Int32
	partner := h.connectAs(t, standin.PartnerAPIKey, &partnerAsked)

	before := sd.SnapshotJSON()
	res := apptest.CallOn(t, partner, "rename_tag", map[string]any{"tag": "discworld", "new_tag": "disc world"})
	if !res.IsError || !strings.Contains(apptest.Text(res), "does not see every item") {
		t.Errorf("partner's rename: %s", apptest.Text(res))
	}
	if partnerAsked.Load() != 0 || len(sd.Mutations()) != 0 || string(sd.SnapshotJSON()) != string(before) {
		t.Errorf("partner was asked %d times; sent %v", partnerAsked.Load(), sd.Mutations())
	}
	now, err := partner.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "audiobookshelf://me/listening-now"})
	if err != nil || strings.Contains(now.Contents[0].Text, standin.ItemMort) {
		t.Errorf("partner's listening now: %v %v", now, err)
	}

	root := h.connectAs(t, standin.DefaultAPIKey, nil)
	if res := apptest.CallOn(t, root, "rename_tag", map[string]any{"tag": "space-opera", "new_tag": "space opera"}); res.IsError {
		t.Errorf("root's rename: %s", apptest.Text(res))
	}
}

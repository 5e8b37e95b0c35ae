package app

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/registry"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/views"
)

// appsCaps are the capabilities of a client that declares MCP Apps.
func appsCaps() *mcp.ClientCapabilities {
	c := &mcp.ClientCapabilities{}
	c.AddExtension(views.Extension, map[string]any{"mimeTypes": []string{views.MIMEType}})
	return c
}

// connectStandin connects a go-sdk client with caps (nil: the defaults) to
// a server over the stand-in with the given toolsets.
func connectStandin(t *testing.T, toolsets []string, caps *mcp.ClientCapabilities) *mcp.ClientSession {
	t.Helper()
	sd := standin.Start(t, standin.Options{Now: standin.SampleNow})
	cfg := &config.Config{URL: sd.URL(), APIKey: standin.DefaultAPIKey, Timeout: 10 * time.Second, Toolsets: toolsets}
	srv, err := New(Options{Config: cfg, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{Capabilities: caps}).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestViewsEmbedded: every view tools.yaml names is embedded, a page that
// loads nothing from elsewhere.
func TestViewsEmbedded(t *testing.T) {
	n := 0
	for _, tool := range registry.All {
		if tool.View == "" {
			continue
		}
		n++
		html, ok := views.HTML(tool.View)
		if !ok {
			t.Errorf("%s: view %q has no views/dist/%s.html (make views)", tool.Name, tool.View, tool.View)
			continue
		}
		for _, bad := range []string{"src=\"http", "href=\"http", "<script src", "<link "} {
			if bytes.Contains(html, []byte(bad)) {
				t.Errorf("view %s loads from elsewhere (%q)", tool.View, bad)
			}
		}
		var schema map[string]any
		if err := json.Unmarshal(tool.OutputSchema, &schema); err != nil || schema["type"] != "object" {
			t.Errorf("%s: output schema %s: %v", tool.Name, tool.OutputSchema, err)
		}
	}
	if n < 3 {
		t.Errorf("%d tools have a view, want at least 3", n)
	}
}

// TestAppsOnlyForDeclaringClients: a client without the extension gets
// tools/list, resources/list and answers exactly as a server without views
// gives them (no _meta, no output schema, no structured content, no ui://
// resource); a client with it gets the views' metadata, the views as
// resources with their content security policy, the cover tool for the
// views alone, and structured content equal to the text.
func TestAppsOnlyForDeclaringClients(t *testing.T) {
	ctx := context.Background()
	plain := connectStandin(t, nil, nil)
	apps := connectStandin(t, nil, appsCaps())

	pl, err := plain.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	al, err := apps.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range pl.Tools {
		if tool.Meta != nil || tool.OutputSchema != nil {
			t.Errorf("plain client: %s has _meta %v, output schema %v", tool.Name, tool.Meta, tool.OutputSchema)
		}
	}
	byName := map[string]*mcp.Tool{}
	for _, tool := range al.Tools {
		byName[tool.Name] = tool
	}
	now := byName["list_items_in_progress"]
	if now == nil {
		t.Fatal("apps client: list_items_in_progress not listed")
	}
	ui, _ := now.Meta["ui"].(map[string]any)
	if ui["resourceUri"] != "ui://audiobookshelf-mcp/now-listening.html" || now.OutputSchema == nil {
		t.Errorf("apps client: list_items_in_progress _meta %v, output schema %v", now.Meta, now.OutputSchema)
	}
	cov := byName["get_item_cover"]
	if cov == nil {
		t.Fatal("apps client: get_item_cover is not listed for the views")
	}
	if ui, _ := cov.Meta["ui"].(map[string]any); ui == nil || len(ui["visibility"].([]any)) != 1 || ui["visibility"].([]any)[0] != "app" {
		t.Errorf("apps client: get_item_cover _meta %v, want visibility [app]", cov.Meta)
	}
	if len(al.Tools) != len(pl.Tools)+1 {
		t.Errorf("apps client lists %d tools, plain %d: want one more (the cover)", len(al.Tools), len(pl.Tools))
	}
	// The same definitions, but for what the extension adds.
	for _, p := range pl.Tools {
		a := byName[p.Name]
		pb, _ := json.Marshal(p)
		c := *a
		c.Meta, c.OutputSchema = nil, nil
		ab, _ := json.Marshal(&c)
		if !bytes.Equal(pb, ab) {
			t.Errorf("%s differs beyond _meta and outputSchema:\n%s\n%s", p.Name, pb, ab)
		}
	}

	// resources/list
	pr, err := plain.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range pr.Resources {
		if strings.HasPrefix(r.URI, "ui://") {
			t.Errorf("plain client lists %s", r.URI)
		}
	}
	ar, err := apps.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ar.Resources) != len(pr.Resources)+len(views.Names()) {
		t.Errorf("apps client lists %d resources, plain %d, views %d", len(ar.Resources), len(pr.Resources), len(views.Names()))
	}
	rr, err := apps.ReadResource(ctx, &mcp.ReadResourceParams{URI: "ui://audiobookshelf-mcp/now-listening.html"})
	if err != nil {
		t.Fatal(err)
	}
	c := rr.Contents[0]
	csp, _ := c.Meta["ui"].(map[string]any)["csp"].(map[string]any)
	if c.MIMEType != "text/html;profile=mcp-app" || !strings.HasPrefix(c.Text, "<!doctype html>") || csp == nil ||
		len(csp["connectDomains"].([]any)) != 0 || len(csp["resourceDomains"].([]any)) != 0 {
		t.Errorf("view resource: %s, %d bytes, _meta %v", c.MIMEType, len(c.Text), c.Meta)
	}
	if _, err := apps.ReadResource(ctx, &mcp.ReadResourceParams{URI: "ui://audiobookshelf-mcp/none.html"}); err == nil {
		t.Error("a view that is not there was read")
	}

	// tools/call: the same text; structured content for the apps client
	// alone, equal to it.
	call := func(cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || r.IsError {
			t.Fatalf("%s: %v %v", name, err, r)
		}
		return r
	}
	p := call(plain, "list_items_in_progress", nil)
	a := call(apps, "list_items_in_progress", nil)
	pt, at := p.Content[0].(*mcp.TextContent).Text, a.Content[0].(*mcp.TextContent).Text
	if pt != at || p.StructuredContent != nil {
		t.Errorf("text differs or plain client got structured content %v", p.StructuredContent)
	}
	sc, _ := json.Marshal(a.StructuredContent)
	var fromText, fromStruct any
	if err := json.Unmarshal([]byte(at), &fromText); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(sc, &fromStruct); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(at, "The Colour of Magic") || !reflect.DeepEqual(fromText, fromStruct) {
		t.Errorf("structured content %s\nwant the text %s", sc, at)
	}
	// The cover: the views' call comes through with the upkeep toolset off;
	// a plain client's is refused as before.
	img := call(apps, "get_item_cover", map[string]any{"library_item_id": "b8b91c63-fe01-4a4f-a27b-6f52646422df", "width": 96})
	if _, ok := img.Content[0].(*mcp.ImageContent); !ok {
		t.Errorf("cover: %T", img.Content[0])
	}
	if _, err := plain.CallTool(ctx, &mcp.CallToolParams{Name: "get_item_cover", Arguments: map[string]any{"library_item_id": "b8b91c63-fe01-4a4f-a27b-6f52646422df"}}); err == nil || !strings.Contains(err.Error(), "upkeep") {
		t.Errorf("plain client's cover call with upkeep off: %v", err)
	}
}

// TestStructure: only a successful answer of one text that is a JSON object
// gets it as structured content; an error, a list, plain text, an image or
// an answer of two contents gets none.
func TestStructure(t *testing.T) {
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	errRes := text(`{"a":1}`)
	errRes.IsError = true
	two := text(`{"a":1}`)
	two.Content = append(two.Content, &mcp.TextContent{Text: "more"})
	for _, c := range []struct {
		name string
		res  *mcp.CallToolResult
		want string
	}{
		{"object", text(` {"a":1} `), `{"a":1}`},
		{"error", errRes, ""},
		{"array", text(`[1]`), ""},
		{"plain text", text("The answer was cut: ask for less."), ""},
		{"broken JSON", text(`{"a":`), ""},
		{"image", &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: []byte{1}, MIMEType: "image/jpeg"}}}, ""},
		{"two contents", two, ""},
	} {
		structure(c.res)
		got := ""
		if c.res.StructuredContent != nil {
			b, _ := json.Marshal(c.res.StructuredContent)
			got = string(b)
		}
		if got != c.want {
			t.Errorf("%s: structured content %q, want %q", c.name, got, c.want)
		}
	}
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// mcp-go (github.com/mark3labs/mcp-go), a client written elsewhere, with its
// default settings and an elicitation handler, against the binary over the
// three transports, with no toolsets set: it lists the default tools, turns
// the collections toolset on and completes a guarded call of it through
// call_tool and the dialog, and nothing is deleted until the person
// approves.

// mcpgoAsker answers the dialog: decline first, then approve.
type mcpgoAsker struct {
	asked   atomic.Int32
	approve atomic.Bool
	message atomic.Value
}

func (a *mcpgoAsker) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	a.asked.Add(1)
	a.message.Store(req.Params.Message)
	if !a.approve.Load() {
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionDecline}}, nil
	}
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{
		Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"approve": true}}}, nil
}

func TestMCPGoClient(t *testing.T) {
	for _, tr := range []string{"stdio", "http", "http-stateless"} {
		t.Run(tr, func(t *testing.T) { checkMCPGo(t, tr) })
	}
}

func checkMCPGo(t *testing.T, tr string) {
	sd := standin.Start(t, standin.Options{})
	env := standinEnv(sd, "AUDIOBOOKSHELF_TOOLSETS=default")
	var trans transport.Interface
	switch tr {
	case "stdio":
		trans = transport.NewStdio(binary, env)
	default:
		args := []string{"--http", "127.0.0.1:0"}
		if tr == "http-stateless" {
			args = append(args, "--stateless")
		}
		p := startHTTP(t, env, args...)
		t.Cleanup(func() {
			if code := p.stop(); code != 0 {
				t.Errorf("exit %d on SIGTERM", code)
			}
			if s := p.stderr.String(); strings.Contains(s, "StreamableHTTPOptions") || strings.Contains(s, `"level":"ERROR"`) {
				t.Errorf("stderr:\n%s", s)
			}
		})
		h, err := transport.NewStreamableHTTP(p.url)
		if err != nil {
			t.Fatal(err)
		}
		trans = h
	}
	var asker mcpgoAsker
	c := mcpgo.NewClient(trans, mcpgo.WithElicitationHandler(&asker))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	init, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ClientInfo: mcp.Implementation{Name: "interop-mcp-go", Version: "1.2.1"}}})
	if err != nil {
		t.Fatalf("Initialize: %v", err)
	}
	// The endpoint with sessions serves 2026-07-28 without one, as
	// --stateless does.
	want := "2026-07-28"
	if init.ProtocolVersion != want || c.ProtocolVersion() != want {
		t.Errorf("protocol %s (client %s), want %s", init.ProtocolVersion, c.ProtocolVersion(), want)
	}
	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	if len(tools.Tools) != defaultTools() {
		t.Fatalf("tools/list: %d tools, want %d", len(tools.Tools), defaultTools())
	}

	// Over stdio the one session keeps the toolset on; over HTTP at
	// 2026-07-28 there is no session, and call_tool runs it anyway.
	on, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{
		Name: "enable_toolset", Arguments: map[string]any{"toolset": "collections"}}})
	if err != nil || on.IsError || !strings.Contains(text(on), `"name":"delete_collection"`) {
		t.Fatalf("enable_toolset: %v %s", err, text(on))
	}
	call := func() *mcp.CallToolResult {
		t.Helper()
		res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{
			Name: "call_tool", Arguments: map[string]any{"name": "delete_collection", "arguments": map[string]any{"collection_id": standin.CollectionSpaceOpera}}}})
		if err != nil {
			t.Fatalf("call_tool delete_collection: %v", err)
		}
		return res
	}
	deletes := func() int {
		n := 0
		for _, r := range sd.Mutations() {
			if r.Method == http.MethodDelete && strings.Contains(r.Path, standin.CollectionSpaceOpera) {
				n++
			}
		}
		return n
	}

	res := call()
	if asker.asked.Load() != 1 || !res.IsError || len(sd.Mutations()) != 0 {
		t.Fatalf("declined: asked %d times, isError %v, %d mutations sent: %s", asker.asked.Load(), res.IsError, len(sd.Mutations()), text(res))
	}
	if msg, _ := asker.message.Load().(string); !strings.Contains(msg, standin.CollectionSpaceOpera) {
		t.Errorf("the dialog does not name the collection: %q", msg)
	}
	asker.approve.Store(true)
	res = call()
	if asker.asked.Load() != 2 || res.IsError || deletes() != 1 || len(sd.Mutations()) != 1 {
		t.Fatalf("approved: asked %d times, isError %v, %d deletes of %d mutations: %s", asker.asked.Load(), res.IsError, deletes(), len(sd.Mutations()), text(res))
	}
	if strings.Contains(text(res), "confirm_token") {
		t.Errorf("approved through the dialog, yet the answer speaks of a token: %s", text(res))
	}
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		} else {
			j, _ := json.Marshal(c)
			fmt.Fprintf(&b, "%s", j)
		}
	}
	return b.String()
}

// TestMCPGoListensForToolListChanges: mcp-go settles on 2026-07-28 over
// stdio and opens a subscriptions/listen stream for tool list changes; the
// server acknowledges it, and tells that stream when enable_toolset, or
// call_tool, turns a toolset on (issue 41: it used to acknowledge and send
// nothing).
func TestMCPGoListensForToolListChanges(t *testing.T) {
	sd := standin.Start(t, standin.Options{})
	c := mcpgo.NewClient(transport.NewStdio(binary, standinEnv(sd, "AUDIOBOOKSHELF_TOOLSETS=default")))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	changed, acked := make(chan mcp.JSONRPCNotification, 8), make(chan struct{}, 1)
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		switch n.Method {
		case "notifications/tools/list_changed":
			changed <- n
		case "notifications/subscriptions/acknowledged":
			acked <- struct{}{}
		}
	})
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ClientInfo: mcp.Implementation{Name: "interop-mcp-go", Version: "1.2.1"}}}); err != nil {
		t.Fatalf("Initialize: %v", err)
	}
	if v := c.ProtocolVersion(); v != "2026-07-28" {
		t.Fatalf("protocol %s", v)
	}
	stop, err := c.ListenAsync(ctx, mcp.SubscriptionFilter{ToolsListChanged: true}, func(err error) { t.Errorf("listen: %v", err) })
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	select {
	case <-acked:
	case <-time.After(10 * time.Second):
		t.Fatal("subscriptions/listen was not acknowledged")
	}
	for i, call := range []mcp.CallToolParams{
		{Name: "enable_toolset", Arguments: map[string]any{"toolset": "collections"}},
		{Name: "call_tool", Arguments: map[string]any{"name": "get_playlist", "arguments": map[string]any{"playlist_id": standin.PlaylistCommute}}},
	} {
		res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: call})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %s", call.Name, err, text(res))
		}
		select {
		case <-changed:
		case <-time.After(10 * time.Second):
			t.Fatalf("no notifications/tools/list_changed on the listen stream after %s (call %d)", call.Name, i+1)
		}
	}
	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, tl := range tools.Tools {
		listed = append(listed, tl.Name)
	}
	if !slices.Contains(listed, "delete_collection") || !slices.Contains(listed, "delete_playlist") {
		t.Errorf("after enable_toolset collections and call_tool get_playlist: %v", listed)
	}
}

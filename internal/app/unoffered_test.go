package app

import (
	"context"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
)

// TestSubscriptionsAreUnknownMethods: the server declares resources
// without subscriptions, so resources/subscribe and unsubscribe (2025-11-25;
// removed in 2026-07-28) are unknown methods (-32601) rather than a
// success that promises updates, while prompts, resources and tools work.
func TestSubscriptionsAreUnknownMethods(t *testing.T) {
	ctx := context.Background()
	cs := connectInMemory(t, &config.Config{Elicitation: true}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	caps := cs.InitializeResult().Capabilities
	if caps.Prompts == nil || caps.Resources == nil || caps.Resources.Subscribe {
		t.Errorf("capabilities: prompts %v, resources %v; want both, without subscribe", caps.Prompts, caps.Resources)
	}
	calls := map[string]func() error{
		"resources/subscribe":   func() error { return cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "file:///x"}) },
		"resources/unsubscribe": func() error { return cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "file:///x"}) },
	}
	if len(calls) != len(Unoffered) {
		t.Errorf("tested %d methods, Unoffered has %d", len(calls), len(Unoffered))
	}
	for method, call := range calls {
		err := call()
		var werr *jsonrpc.Error
		if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeMethodNotFound {
			t.Errorf("%s: got %v, want a JSON-RPC error %d", method, err, jsonrpc.CodeMethodNotFound)
		}
	}
	if _, err := cs.ListPrompts(ctx, nil); err != nil {
		t.Errorf("prompts/list: %v", err)
	}
	if _, err := cs.ListResourceTemplates(ctx, nil); err != nil {
		t.Errorf("resources/templates/list: %v", err)
	}
	res, err := cs.ListTools(ctx, nil)
	if err != nil || len(res.Tools) != len(Listed(false, nil)) {
		t.Fatalf("tools/list: %v, %v", err, res)
	}
}

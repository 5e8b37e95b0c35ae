package app

import (
	"context"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
)

// TestPromptsAndResourcesAreUnknownMethods: the server declares tools
// only, so every prompts/* and resources/* method is an unknown method
// (-32601) rather than an empty list, while tools/list still works.
func TestPromptsAndResourcesAreUnknownMethods(t *testing.T) {
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) { checkUnoffered(t, version) })
	}
}

func checkUnoffered(t *testing.T, version string) {
	ctx := context.Background()
	cs := connectInMemory(t, &config.Config{Elicitation: true}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	caps := cs.InitializeResult().Capabilities
	if caps.Prompts != nil || caps.Resources != nil {
		t.Errorf("capabilities declare prompts %v or resources %v", caps.Prompts, caps.Resources)
	}
	calls := map[string]func() error{
		"prompts/list":   func() error { _, err := cs.ListPrompts(ctx, nil); return err },
		"prompts/get":    func() error { _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "x"}); return err },
		"resources/list": func() error { _, err := cs.ListResources(ctx, nil); return err },
		"resources/read": func() error { _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///x"}); return err },
		"resources/templates/list": func() error {
			_, err := cs.ListResourceTemplates(ctx, nil)
			return err
		},
	}
	if version < "2026-07-28" { // removed in 2026-07-28 (subscriptions/listen replaces them)
		calls["resources/subscribe"] = func() error { return cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "file:///x"}) }
		calls["resources/unsubscribe"] = func() error { return cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "file:///x"}) }
		if len(calls) != len(Unoffered) {
			t.Errorf("tested %d methods, Unoffered has %d", len(calls), len(Unoffered))
		}
	}
	for method, call := range calls {
		err := call()
		var werr *jsonrpc.Error
		if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeMethodNotFound {
			t.Errorf("%s: got %v, want a JSON-RPC error %d", method, err, jsonrpc.CodeMethodNotFound)
		}
	}
	res, err := cs.ListTools(ctx, nil)
	if err != nil || len(res.Tools) != len(Listed(false, nil)) {
		t.Fatalf("tools/list: %v, %v", err, res)
	}
}

package app

import (
	"context"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/registry"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
)

// registrationSchema is the input schema go-sdk holds for every tool; what
// tools/list sends is the generated one (listDefinitions).
//
// go-sdk's AddTool checks an input schema that is not a *jsonschema.Schema by
// encoding it and decoding it into a map, then encoding and decoding it again
// for x-mcp-header annotations, each decode with a fresh 32 KiB buffer. For
// the 44 generated schemas that is about 2 ms, a third of the time from exec
// to the tools/list answer (bench/RESULTS.md), spent to learn two facts
// cmd/toolgen guarantees when it writes them: the root is an object, and no
// property carries x-mcp-header (TestGeneratedSchemasNeedNoSDKCheck). go-sdk
// uses a tool's schema for nothing else when the handler is a plain
// ToolHandler: it validates no arguments (the generated decoders in
// gen/toolargs do), and reads x-mcp-header only to check or mirror arguments
// in HTTP headers (on 2026-07-28, re-encoding the schema on every call). So
// go-sdk holds this one bare object schema, which it checks in microseconds,
// and the generated definitions stay the only ones a client sees.
var registrationSchema = &jsonschema.Schema{Type: "object"}

// register adds every tool read-only mode allows to s, and the discovery
// tools: go-sdk routes tools/call by name to each tool's handler, and
// tools/list answers with the generated definitions of those the session
// lists (toolsets).
//
// The AddTool calls run in the background, on the other core while the
// transport starts and initialize is answered; the returned channel closes
// when they are done. A tools/* request waits for them (about a millisecond,
// once); every other method does not. What go-sdk would announce of them
// (notifications/tools/list_changed to every session) is not sent: a
// session's list changes only when it turns a toolset on, and then that
// session alone is told (sendListChanged).
func register(s *mcp.Server, v *toolsets, order []registry.Tool, deps *kit.Deps) <-chan struct{} {
	defs := make(map[string]*mcp.Tool, len(v.tools)+len(registry.Discovery))
	for _, t := range v.tools {
		defs[t.Name] = t.Definition
	}
	for _, d := range registry.Discovery {
		defs[d.Name] = d
	}
	ready := make(chan struct{})
	s.AddReceivingMiddleware(v.middleware, awaitTools(ready), listDefinitions(defs))
	go func() {
		defer close(ready)
		for _, t := range order {
			held := *t.Definition
			held.InputSchema = registrationSchema
			s.AddTool(&held, v.handlers[t.Name])
		}
		v.register(s, deps)
	}()
	return ready
}

// awaitTools holds a tools/* request until the tools are registered.
func awaitTools(ready <-chan struct{}) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if strings.HasPrefix(method, "tools/") {
				select {
				case <-ready:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			return next(ctx, method, req)
		}
	}
}

// listDefinitions puts the generated definition in place of each tool go-sdk
// lists: its page, cursor and cache fields stay go-sdk's.
func listDefinitions(defs map[string]*mcp.Tool) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			list, ok := res.(*mcp.ListToolsResult)
			if err != nil || !ok || method != "tools/list" {
				return res, err
			}
			out := *list
			out.Tools = make([]*mcp.Tool, len(list.Tools))
			for i, t := range list.Tools {
				if d, ok := defs[t.Name]; ok {
					t = d
				}
				out.Tools[i] = t
			}
			return &out, nil
		}
	}
}

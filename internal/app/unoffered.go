package app

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Unoffered are the methods of what this server does not offer: resource
// subscriptions, which its capabilities do not declare (its resources
// change as a person listens, and it sends no updates).
var Unoffered = []string{"resources/subscribe", "resources/unsubscribe"}

// refuseMethods answers methods as unknown (-32601), saying why.
func refuseMethods(methods []string, why string) mcp.Middleware {
	refused := map[string]bool{}
	for _, m := range methods {
		refused[m] = true
	}
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if refused[method] {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
					Message: fmt.Sprintf("method not found: %q (%s)", method, why)}
			}
			return next(ctx, method, req)
		}
	}
}

package app

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Unoffered are the methods of the features this server does not offer:
// prompts and resources. go-sdk answers their list methods with empty lists
// even when nothing is registered, which tells a client that the server
// handles prompts and resources while its capabilities say it does not.
var Unoffered = []string{
	"prompts/list", "prompts/get",
	"resources/list", "resources/read", "resources/templates/list",
	"resources/subscribe", "resources/unsubscribe",
}

// UnofferedWithFeatures are the methods refused when the listening toolset
// brings prompts and resources (features.go): subscriptions, which the
// server does not declare (its resources change as a person listens, and
// it sends no updates).
var UnofferedWithFeatures = []string{"resources/subscribe", "resources/unsubscribe"}

// refuseUnoffered answers the Unoffered methods as unknown (-32601), as the
// capabilities declare: tools only.
func refuseUnoffered(next mcp.MethodHandler) mcp.MethodHandler {
	return refuseMethods(Unoffered, "this server offers tools only, no prompts or resources")(next)
}

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

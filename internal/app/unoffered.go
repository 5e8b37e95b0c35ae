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

// refuseUnoffered answers the Unoffered methods as unknown (-32601), as the
// capabilities declare: tools only.
func refuseUnoffered(next mcp.MethodHandler) mcp.MethodHandler {
	unoffered := map[string]bool{}
	for _, m := range Unoffered {
		unoffered[m] = true
	}
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if unoffered[method] {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
				Message: fmt.Sprintf("method not found: %q (this server offers tools only, no prompts or resources)", method)}
		}
		return next(ctx, method, req)
	}
}

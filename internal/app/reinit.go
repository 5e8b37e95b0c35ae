package app

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// secondInitialize is the answer to an initialize on a connection (a
// session, over HTTP) that has already been initialized.
const secondInitialize = `this connection was already initialized: "initialize" comes once per connection, and over stdio a server process serves one client. ` +
	`A gateway that puts several clients on one stdio process (supergateway with --outputTransport sse) cannot serve a second one; ` +
	`give each client its own process (supergateway --outputTransport streamableHttp --stateful), or run audiobookshelf-mcp --http ADDR and connect the clients to it directly. ` +
	`The first client's session goes on.`

// refuseSecondInitialize answers a repeated initialize with an invalid
// request (-32600) that says what to do. go-sdk's own answer is a bare
// error (code 0, "duplicate \"initialize\" received"). The first client's
// session is left as it was.
func refuseSecondInitialize(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "initialize" {
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil && ss.InitializeParams() != nil {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: secondInitialize}
			}
		}
		return next(ctx, method, req)
	}
}

// Command floorserver is the floor of the start-up measurement: a go-sdk
// server with no tools over stdio. It answers initialize and tools/list (an
// empty list) and nothing else, so the time to its tools/list answer is what
// exec, the Go runtime and the SDK cost before any tool exists.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "floor", Version: "1"},
		&mcp.ServerOptions{Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "floorserver:", err)
		os.Exit(1)
	}
}

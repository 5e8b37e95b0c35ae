package result

import (
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"

	"bytes"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TextResult is a plain successful answer.
func TextResult(format string, a ...any) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, a...)}}}, nil
}

// JSONResult marshals v as compact JSON text.
func JSONResult(v any) (*mcp.CallToolResult, error) {
	b, err := Marshal(v)
	if err != nil {
		return nil, kit.Errorf(kit.Stated, "internal error: could not encode the result: %v", err)
	}
	return jsonText(b), nil
}

// jsonText is a result whose one content is the JSON text b. It carries no
// structured content: no tool declares an output schema, and a second copy
// of the same JSON would double what is sent, decoded and, by a client that
// shows a model both, read.
func jsonText(b []byte) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}
}

// RawResult returns Audiobookshelf's JSON as it came (detail "full"),
// compacted, with invisible characters escaped so that they show.
func RawResult(body []byte) (*mcp.CallToolResult, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, body); err != nil {
		return nil, kit.Errorf(kit.Stated, "Audiobookshelf's answer was not JSON (%s).", kit.Clip(err.Error(), 120))
	}
	return jsonText(kit.EscapeInvisible(buf.Bytes())), nil
}

func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return kit.EscapeInvisible(bytes.TrimRight(buf.Bytes(), "\n")), nil
}

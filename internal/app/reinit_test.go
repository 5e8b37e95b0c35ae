package app

import (
	"strings"
	"testing"
)

// TestStdioSecondInitialize: a second initialize on one stdio process (a
// gateway that puts several clients on it, supergateway's SSE mode) gets an
// invalid request (-32600) that says what to do instead of go-sdk's bare
// "duplicate" error with code 0, and the first client's session goes on.
func TestStdioSecondInitialize(t *testing.T) {
	s := startStdio(t)
	s.initialize("2025-11-25")
	s.send(`{"jsonrpc":"2.0","id":"again","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"second","version":"1"}}}`)
	m := s.next("the second initialize")
	if string(m["id"]) != `"again"` {
		t.Fatalf("answer %v", m)
	}
	code, msg := errorOf(t, m)
	if code != -32600 {
		t.Errorf("code %d, want -32600 (invalid request)", code)
	}
	for _, want := range []string{"already initialized", "supergateway --outputTransport streamableHttp --stateful", "audiobookshelf-mcp --http ADDR"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the message does not say %q: %s", want, msg)
		}
	}
	s.send(`{"jsonrpc":"2.0","id":"list","method":"tools/list"}`)
	if m := s.next("tools/list after"); string(m["id"]) != `"list"` || m["result"] == nil {
		t.Fatalf("the first session did not go on: %v", m)
	}
}

package app

import (
	"encoding/json"
	"testing"
)

// TestNoLoggingCapability: the server declares tools, prompts, resources
// and completions, and no logging (it sends no log messages to clients;
// logging is deprecated in 2026-07-28),
// and a client of an earlier revision that calls logging/setLevel all the
// same gets its empty result, and the session goes on.
func TestNoLoggingCapability(t *testing.T) {
	s := startStdio(t)
	s.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	m := s.next("initialize")
	var init struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	if err := json.Unmarshal(m["result"], &init); err != nil || string(m["id"]) != `"init"` {
		t.Fatalf("initialize: %v (%v)", m, err)
	}
	if init.Capabilities["logging"] != nil || len(init.Capabilities) != 4 || init.Capabilities["tools"] == nil ||
		init.Capabilities["prompts"] == nil || init.Capabilities["resources"] == nil || init.Capabilities["completions"] == nil {
		t.Errorf("capabilities %s, want tools, prompts, resources and completions, and no logging", m["result"])
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	for i, level := range []string{"debug", "error"} {
		id := `"level-` + level + `"`
		s.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"logging/setLevel","params":{"level":"` + level + `"}}`)
		m := s.next("logging/setLevel " + level)
		if string(m["id"]) != id || m["error"] != nil || string(m["result"]) != "{}" {
			t.Errorf("logging/setLevel %s: %v, want the result {}", level, m)
		}
		s.probe(i)
	}
}

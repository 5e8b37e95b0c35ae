package app

import "github.com/modelcontextprotocol/go-sdk/mcp"

// EventStoreBytes bounds what the endpoint with sessions keeps of its
// streams for resumption, over all sessions together: past it, the oldest
// events are dropped (a client that asks for them after that gets an error
// and reconnects).
const EventStoreBytes = 8 << 20

// eventStore is go-sdk's memory event store for the endpoint with sessions:
// every SSE stream starts with a priming event whose id a client sends back
// as Last-Event-ID to resume a broken stream. Stateless, there is no session
// to resume into, so nil: each response comes whole on its own request.
func eventStore(stateless bool) mcp.EventStore {
	if stateless {
		return nil
	}
	s := mcp.NewMemoryEventStore(nil)
	s.SetMaxBytes(EventStoreBytes)
	return s
}

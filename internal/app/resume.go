package app

import (
	"bytes"
	"fmt"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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

// ReconnectAfter is the retry field of the priming event: how long a client
// whose stream broke waits before it reconnects with Last-Event-ID.
const ReconnectAfter = 2 * time.Second

// primeRetry adds the retry field to the priming event that starts every SSE
// stream of the endpoint with sessions (go-sdk writes it without one, and
// writes each event in one Write).
func primeRetry(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&retryWriter{ResponseWriter: w}, r)
	})
}

type retryWriter struct {
	http.ResponseWriter
	done bool
}

func (w *retryWriter) Write(p []byte) (int, error) {
	if w.done || !bytes.HasPrefix(p, []byte("event: prime\n")) {
		w.done = true
		return w.ResponseWriter.Write(p)
	}
	w.done = true
	i := bytes.Index(p, []byte("data: "))
	if i < 0 {
		return w.ResponseWriter.Write(p)
	}
	out := make([]byte, 0, len(p)+32)
	out = append(out, p[:i]...)
	out = fmt.Appendf(out, "retry: %d\n", ReconnectAfter.Milliseconds())
	out = append(out, p[i:]...)
	if _, err := w.ResponseWriter.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Unwrap lets http.ResponseController reach Flush.
func (w *retryWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

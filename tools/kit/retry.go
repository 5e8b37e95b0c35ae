package kit

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"
)

// retryTransport retries what is safe to retry: a GET (Audiobookshelf's GET
// routes used here change nothing) that failed to connect or was answered
// 502 or 503, a bounded number of times with backoff. A request that changes
// something is never retried: it may have been applied before the failure.
type retryTransport struct {
	next    http.RoundTripper
	backoff []time.Duration // one entry per retry
}

// DefaultBackoff is the wait before each retry of a GET.
var DefaultBackoff = []time.Duration{150 * time.Millisecond, 500 * time.Millisecond}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet || req.Body != nil && req.Body != http.NoBody {
		return t.next.RoundTrip(req)
	}
	for attempt := 0; ; attempt++ {
		resp, err := t.next.RoundTrip(req)
		if attempt >= len(t.backoff) || !retryable(req.Context(), resp, err) {
			return resp, err
		}
		if resp != nil {
			// Drain a little so the connection can be reused, then retry.
			_, _ = io.CopyN(io.Discard, resp.Body, 4096)
			resp.Body.Close()
		}
		select {
		case <-time.After(t.backoff[attempt]):
		case <-req.Context().Done():
			return nil, req.Context().Err()
		}
	}
}

func retryable(ctx context.Context, resp *http.Response, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	if err != nil {
		// Connection-level failures: refused, reset, DNS, closed early.
		// A deadline is not retried: the call's time is spent.
		return !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled)
	}
	return resp.StatusCode == http.StatusBadGateway || resp.StatusCode == http.StatusServiceUnavailable
}

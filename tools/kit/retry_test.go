package kit

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestRetryTransport(t *testing.T) {
	var calls atomic.Int32
	fail := atomic.Int32{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if fail.Add(-1) >= 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	client := &http.Client{Transport: &retryTransport{next: http.DefaultTransport, backoff: []time.Duration{time.Millisecond, time.Millisecond}}}

	cases := []struct {
		name       string
		method     string
		failures   int32
		wantCalls  int32
		wantStatus int
	}{
		{"GET recovers after two 503s", http.MethodGet, 2, 3, 200},
		{"GET gives up after the bounded retries", http.MethodGet, 5, 3, 503},
		{"POST is never retried", http.MethodPost, 1, 1, 503},
		{"PATCH is never retried", http.MethodPatch, 1, 1, 503},
		{"DELETE is never retried", http.MethodDelete, 1, 1, 503},
	}
	for _, c := range cases {
		calls.Store(0)
		fail.Store(c.failures)
		req, _ := http.NewRequest(c.method, srv.URL, strings.NewReader(""))
		if c.method == http.MethodGet {
			req.Body = nil
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		resp.Body.Close()
		if calls.Load() != c.wantCalls || resp.StatusCode != c.wantStatus {
			t.Errorf("%s: %d calls, status %d; want %d calls, status %d", c.name, calls.Load(), resp.StatusCode, c.wantCalls, c.wantStatus)
		}
	}
}

func TestRetryOnConnectionRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	var attempts atomic.Int32
	counting := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		attempts.Add(1)
		return http.DefaultTransport.RoundTrip(r)
	})
	client := &http.Client{Transport: &retryTransport{next: counting, backoff: []time.Duration{time.Millisecond, time.Millisecond}}}
	if _, err := client.Get("http://" + addr + "/status"); err == nil {
		t.Fatal("expected a connection error")
	}
	if attempts.Load() != 3 {
		t.Errorf("a refused GET was tried %d times, want 3", attempts.Load())
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

package bench

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPClient is one pool of keep-alive connections wide enough for every
// concurrent session (net/http's default keeps only 2 idle per host).
func HTTPClient(conns int) *http.Client {
	return &http.Client{Transport: &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        4 * conns,
		MaxIdleConnsPerHost: 4 * conns,
		IdleConnTimeout:     90 * time.Second,
	}}
}

// Clients are go-sdk client sessions over streamable HTTP to one endpoint.
type Clients struct {
	Sessions []*mcp.ClientSession
	// Protocol is the revision the first session negotiated.
	Protocol string
}

// ConnectHTTP opens n sessions to endpoint through hc.
func ConnectHTTP(ctx context.Context, endpoint string, n int, hc *http.Client) (*Clients, error) {
	c := &Clients{}
	for i := 0; i < n; i++ {
		client := mcp.NewClient(&mcp.Implementation{Name: fmt.Sprintf("bench-%d", i), Version: "1"}, nil)
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc}, nil)
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("session %d: %w", i, err)
		}
		c.Sessions = append(c.Sessions, cs)
		if r := cs.InitializeResult(); c.Protocol == "" && r != nil {
			c.Protocol = r.ProtocolVersion
		}
	}
	return c, nil
}

// Close ends every session.
func (c *Clients) Close() {
	for _, cs := range c.Sessions {
		cs.Close()
	}
}

// Load is the outcome of one load run.
type Load struct {
	Clients int
	Calls   int
	Elapsed time.Duration
	Latency Durations
}

// PerSecond is calls per second.
func (l Load) PerSecond() float64 { return float64(l.Calls) / l.Elapsed.Seconds() }

// Run makes calls on every session at once, each session one call after
// another, until total calls are made (total > 0) or d has passed.
func (c *Clients) Run(ctx context.Context, total int, d time.Duration, call func(context.Context, *mcp.ClientSession) error) (Load, error) {
	var (
		mu       sync.Mutex
		lat      Durations
		firstErr error
		wg       sync.WaitGroup
		next     int
	)
	take := func() bool {
		mu.Lock()
		defer mu.Unlock()
		if firstErr != nil || (total > 0 && next >= total) {
			return false
		}
		next++
		return true
	}
	start := time.Now()
	deadline := start.Add(d)
	for _, cs := range c.Sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := make(Durations, 0, 1024)
			for take() {
				if total <= 0 && time.Now().After(deadline) {
					break
				}
				t0 := time.Now()
				err := call(ctx, cs)
				mine = append(mine, time.Since(t0))
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					break
				}
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return Load{Clients: len(c.Sessions), Calls: len(lat), Elapsed: time.Since(start), Latency: lat}, firstErr
}

// Package bench measures the server: start-up, what tools/list costs a
// model, compact against full results, the overhead of one call, throughput
// over streamable HTTP and memory. The Go benchmarks in bench_test.go
// measure in process; bench/cmd/benchtable runs the built binary and prints
// one table (make bench). Nothing here runs in the default test run.
package bench

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/app"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// SeedLibrary is the sample library with its books copied (new ids, titles
// marked "(copy N)") until the books library holds at least books items:
// a 25-item page needs more than the sample's 16.
func SeedLibrary(books int) *standin.Data {
	d := standin.SampleData()
	var originals []standin.LibraryItem
	for _, it := range d.Items {
		if it.Book != nil {
			originals = append(originals, it)
		}
	}
	n := len(originals)
	for copyNo := 2; n < books; copyNo++ {
		for _, it := range originals {
			if n >= books {
				break
			}
			c := clone(it)
			key := fmt.Sprintf("%s#%d", it.ID, copyNo)
			suffix := fmt.Sprintf(" (copy %d)", copyNo)
			c.ID = uuidOf("item:" + key)
			c.Ino = inoOf("item:" + key)
			c.Path += suffix
			c.RelPath += suffix
			c.Book.ID = uuidOf("book:" + key)
			c.Book.Title += suffix
			for i := range c.Book.AudioFiles {
				c.Book.AudioFiles[i].Ino = inoOf(fmt.Sprintf("audio:%s:%d", key, i))
			}
			for i := range c.LibraryFiles {
				c.LibraryFiles[i].Ino = inoOf(fmt.Sprintf("file:%s:%d", key, i))
			}
			d.Items = append(d.Items, c)
			n++
		}
	}
	return d
}

func clone[T any](v T) T {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}

func uuidOf(name string) string {
	h := sha1.Sum([]byte("bench:" + name))
	h[6] = h[6]&0x0f | 0x40
	h[8] = h[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

func inoOf(name string) string {
	h := sha1.Sum([]byte("bench-ino:" + name))
	n := uint64(h[0])<<24 | uint64(h[1])<<16 | uint64(h[2])<<8 | uint64(h[3])
	return strconv.FormatUint(2000000000+n%90000000, 10)
}

// InProcess is the assembled server over an in-memory transport, with a
// stand-in on a loopback listener.
type InProcess struct {
	Standin *standin.Server
	// URL is the stand-in's base URL; Key authenticates against it.
	URL, Key string
	Server   *app.Server
	Session  *mcp.ClientSession
	close    func()
}

// StartInProcess serves data (nil: the sample library) from a stand-in on
// 127.0.0.1 and connects a go-sdk client to the server in process.
func StartInProcess(data *standin.Data) (*InProcess, error) { return startInProcess(data, nil) }

// StartInProcessBudget is StartInProcess with a result budget of max
// characters (AUDIOBOOKSHELF_MAX_RESULT_CHARS), e.g. to measure raw
// answers the default budget refuses.
func StartInProcessBudget(data *standin.Data, max int) (*InProcess, error) {
	p, err := startInProcess(data, nil)
	if err == nil {
		p.Server.Deps.MaxResultChars = max
	}
	return p, err
}

// StartReplaying is StartInProcess with the server's requests to
// Audiobookshelf answered from memory: each answer is fetched from the
// stand-in once, when first asked for, and replayed after that. What is left
// is the server's own cost per call.
func StartReplaying(data *standin.Data) (*InProcess, error) {
	r := &replay{answers: map[string]*answer{}}
	p, err := startInProcess(data, r)
	if err == nil {
		r.base = p.URL
	}
	return p, err
}

func startInProcess(data *standin.Data, rt http.RoundTripper) (*InProcess, error) {
	sd := standin.New(standin.Options{Data: data, Now: standin.SampleNow})
	url, err := sd.Listen("127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	cfg := &config.Config{URL: url, APIKey: standin.DefaultAPIKey, Elicitation: true, Timeout: 30 * time.Second, Toolsets: config.AllToolsets()}
	srv, err := app.New(app.Options{Config: cfg, Version: "bench", Transport: rt, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		sd.Close()
		return nil, err
	}
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP.Connect(ctx, st, nil)
	if err != nil {
		sd.Close()
		return nil, err
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		ss.Close()
		sd.Close()
		return nil, err
	}
	return &InProcess{Standin: sd, URL: url, Key: standin.DefaultAPIKey, Server: srv, Session: cs, close: func() {
		cs.Close()
		ss.Close()
		sd.Close()
	}}, nil
}

// Close stops the client, the server session and the stand-in.
func (p *InProcess) Close() { p.close() }

// replay answers each GET from memory after fetching it once.
type replay struct {
	base    string
	mu      sync.Mutex
	answers map[string]*answer
}

type answer struct {
	status int
	header http.Header
	body   []byte
}

// get is the answer to GET uri, fetched from base the first time.
func (r *replay) get(ctx context.Context, uri string, h http.Header) (*answer, error) {
	r.mu.Lock()
	a, ok := r.answers[uri]
	r.mu.Unlock()
	if ok {
		return a, nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.base+uri, nil)
	if err != nil {
		return nil, err
	}
	req.Header = h.Clone()
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	a = &answer{status: resp.StatusCode, header: resp.Header, body: body}
	r.mu.Lock()
	r.answers[uri] = a
	r.mu.Unlock()
	return a, nil
}

func (r *replay) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		req.Body.Close()
	}
	if req.Method != http.MethodGet {
		return nil, fmt.Errorf("replay: only GET, not %s", req.Method)
	}
	a, err := r.get(req.Context(), req.URL.RequestURI(), req.Header)
	if err != nil {
		return nil, err
	}
	return &http.Response{StatusCode: a.status, Status: http.StatusText(a.status), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: a.header.Clone(), Body: io.NopCloser(bytes.NewReader(a.body)), ContentLength: int64(len(a.body)), Request: req}, nil
}

func (r *replay) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodGet {
		http.Error(w, "replay: only GET", http.StatusMethodNotAllowed)
		return
	}
	a, err := r.get(req.Context(), req.URL.RequestURI(), req.Header)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	for k, v := range a.header {
		w.Header()[k] = v
	}
	w.WriteHeader(a.status)
	_, _ = w.Write(a.body)
}

// ReplayServer serves on 127.0.0.1 what a stand-in answers to GET requests,
// each answer fetched once and replayed from memory after that: an
// Audiobookshelf that costs next to nothing, so that what is measured is the
// server in front of it.
type ReplayServer struct {
	URL   string
	conns atomic.Int64
	stop  func()
}

// Conns is how many connections were accepted so far.
func (r *ReplayServer) Conns() int64 { return r.conns.Load() }

// Close stops the server and its stand-in.
func (r *ReplayServer) Close() { r.stop() }

type countingListener struct {
	net.Listener
	n *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

// StartReplayServer starts a ReplayServer over a stand-in with data (nil:
// the sample library).
func StartReplayServer(data *standin.Data) (*ReplayServer, error) {
	sd := standin.New(standin.Options{Data: data, Now: standin.SampleNow})
	base, err := sd.Listen("127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		sd.Close()
		return nil, err
	}
	rs := &ReplayServer{URL: "http://" + ln.Addr().String()}
	hs := &http.Server{Handler: &replay{base: base, answers: map[string]*answer{}}, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(countingListener{ln, &rs.conns}) }()
	rs.stop = func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = hs.Shutdown(ctx)
		sd.Close()
	}
	return rs, nil
}

// Call calls a tool and returns its text, failing on a protocol or tool error.
func Call(ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) (string, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	if res.IsError {
		return "", fmt.Errorf("%s: tool error: %s", name, b.String())
	}
	return b.String(), nil
}

// ItemPath is the request get_library_item makes for one item, so that a
// direct request can make the same one.
func ItemPath(id string) string { return "/api/items/" + id + "?expanded=1&include=progress" }

// Direct makes the request get_library_item makes, with net/http, and reads
// the whole body.
func Direct(ctx context.Context, hc *http.Client, base, key, id string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+ItemPath(id), nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("direct: %s", resp.Status)
	}
	return int(n), nil
}

// Durations are measured times.
type Durations []time.Duration

// Quantile is the q-quantile (nearest rank) of d; 0 for none.
func (d Durations) Quantile(q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.5) - 1
	i = max(0, min(len(s)-1, i))
	return s[i]
}

// Median is the 0.5-quantile.
func (d Durations) Median() time.Duration { return d.Quantile(0.5) }

// Memory is a process's resident set from /proc/PID/status, in bytes.
type Memory struct{ RSS, Peak int64 }

// ReadMemory reads VmRSS and VmHWM of a process (Linux only).
func ReadMemory(pid int) (Memory, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return Memory{}, err
	}
	var m Memory
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) < 1 {
			continue
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			continue
		}
		switch k {
		case "VmRSS":
			m.RSS = n << 10
		case "VmHWM":
			m.Peak = n << 10
		}
	}
	if m.RSS == 0 {
		return m, fmt.Errorf("no VmRSS for process %d", pid)
	}
	return m, nil
}

// ProcessCPU is the CPU time, user and system, that process pid has used,
// from /proc/PID/stat (Linux only; counted in clock ticks, 10 ms each).
func ProcessCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The fields after the command name, which is in parentheses and may
	// hold spaces: state is the first, utime the 12th, stime the 13th.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond, nil
}

// CPUTimes is the machine's CPU time from the first line of /proc/stat, in
// clock ticks: all of it, what the hypervisor took for others (steal), and
// the idle time (idle and iowait).
type CPUTimes struct{ Total, Steal, Idle int64 }

// ReadCPUTimes reads /proc/stat (Linux only).
func ReadCPUTimes() (CPUTimes, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return CPUTimes{}, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return parseCPUTimes(line)
}

// parseCPUTimes reads the "cpu" line of /proc/stat: user nice system idle
// iowait irq softirq steal, then guest times, which user already counts.
func parseCPUTimes(line string) (CPUTimes, error) {
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return CPUTimes{}, fmt.Errorf("/proc/stat: unexpected first line %q", line)
	}
	var c CPUTimes
	for i, s := range f[1:9] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return CPUTimes{}, fmt.Errorf("/proc/stat: %w", err)
		}
		c.Total += n
		switch i {
		case 3, 4:
			c.Idle += n
		case 7:
			c.Steal = n
		}
	}
	return c, nil
}

// BusyShare is the share of the CPU time between a and b that was not idle:
// this run's own work, every other process's, and steal.
func BusyShare(a, b CPUTimes) float64 {
	if b.Total <= a.Total {
		return 0
	}
	return 1 - float64(b.Idle-a.Idle)/float64(b.Total-a.Total)
}

// LoadAverage is the one-minute load average from /proc/loadavg (Linux only).
func LoadAverage() (float64, error) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, fmt.Errorf("/proc/loadavg: empty")
	}
	return strconv.ParseFloat(f[0], 64)
}

// StealShare is the share of the CPU time between a and b that the
// hypervisor took (0 when nothing passed).
func StealShare(a, b CPUTimes) float64 {
	if b.Total <= a.Total {
		return 0
	}
	return float64(b.Steal-a.Steal) / float64(b.Total-a.Total)
}

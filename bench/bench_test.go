package bench

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// The benchmarks run in process: go test -run '^$' -bench . ./bench
// (make bench runs bench/cmd/benchtable, which measures the built binary).

func start(b *testing.B, books int) *InProcess {
	b.Helper()
	var data *standin.Data
	if books > 0 {
		data = SeedLibrary(books)
	}
	p, err := StartInProcess(data)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(p.Close)
	return p
}

func benchCall(b *testing.B, p *InProcess, tool string, args map[string]any) {
	ctx := context.Background()
	var n int
	for b.Loop() {
		s, err := Call(ctx, p.Session, tool, args)
		if err != nil {
			b.Fatal(err)
		}
		n = len(s)
	}
	b.ReportMetric(float64(n), "result-bytes")
}

// BenchmarkGetLibraryItem is one read tool through the MCP server.
func BenchmarkGetLibraryItem(b *testing.B) {
	p := start(b, 0)
	benchCall(b, p, "get_library_item", map[string]any{"library_item_id": standin.ItemColourOfMagic})
}

// BenchmarkGetLibraryItemDirect is the request get_library_item makes, made
// with net/http to the same stand-in.
func BenchmarkGetLibraryItemDirect(b *testing.B) {
	p := start(b, 0)
	hc := HTTPClient(1)
	ctx := context.Background()
	var n int
	for b.Loop() {
		var err error
		if n, err = Direct(ctx, hc, p.URL, p.Key, standin.ItemColourOfMagic); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n), "result-bytes")
}

// BenchmarkListPage25 is a page of 25 items, compact and full.
func BenchmarkListPage25(b *testing.B) {
	p := start(b, 30)
	for _, detail := range []string{"compact", "full"} {
		b.Run(detail, func(b *testing.B) {
			benchCall(b, p, "list_library_items", map[string]any{"library_id": standin.LibraryBooksID, "limit": 25, "detail": detail})
		})
	}
}

// BenchmarkToolsList is tools/list.
func BenchmarkToolsList(b *testing.B) {
	p := start(b, 0)
	ctx := context.Background()
	var n int
	for b.Loop() {
		res, err := p.Session.ListTools(ctx, &mcp.ListToolsParams{})
		if err != nil {
			b.Fatal(err)
		}
		n = len(res.Tools)
	}
	b.ReportMetric(float64(n), "tools")
}

// TestSeedLibrary checks the seeded library and the in-process harness the
// driver uses (cheap; it runs in the default test run).
func TestSeedLibrary(t *testing.T) {
	d := SeedLibrary(30)
	seen := map[string]bool{}
	books := 0
	for _, it := range d.Items {
		if seen[it.ID] || seen[it.Ino] {
			t.Fatalf("duplicate id or ino in item %s", it.ID)
		}
		seen[it.ID], seen[it.Ino] = true, true
		if it.Book != nil {
			books++
		}
	}
	if books != 30 {
		t.Fatalf("books = %d, want 30", books)
	}
	p, err := StartInProcess(d)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	s, err := Call(context.Background(), p.Session, "list_library_items", map[string]any{"library_id": standin.LibraryBooksID, "limit": 25})
	if err != nil {
		t.Fatal(err)
	}
	var page struct {
		Results []json.RawMessage `json:"results"`
		Total   int               `json:"total"`
	}
	if err := json.Unmarshal([]byte(s), &page); err != nil {
		t.Fatal(err)
	}
	if len(page.Results) != 25 || page.Total != 30 {
		t.Fatalf("page: %d items of %d, want 25 of 30:\n%s", len(page.Results), page.Total, s)
	}
}

func TestReadMemory(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	m, err := ReadMemory(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if m.RSS <= 0 || m.Peak < m.RSS {
		t.Fatalf("memory = %+v", m)
	}
}

// BenchmarkGetLibraryItemReplayed is get_library_item with Audiobookshelf's
// answer replayed from memory: the server's own cost per call.
func BenchmarkGetLibraryItemReplayed(b *testing.B) {
	p, err := StartReplaying(nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(p.Close)
	benchCall(b, p, "get_library_item", map[string]any{"library_item_id": standin.ItemColourOfMagic})
}

func TestProcessCPU(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	before, err := ProcessCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// Spin until the counter moves (it counts 10 ms ticks).
	deadline := time.Now().Add(5 * time.Second)
	x := 0
	for {
		for i := range 1_000_000 {
			x += i
		}
		after, err := ProcessCPU(os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		if after > before {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("CPU time stayed at %v through 5s of spinning (%d)", before, x)
		}
	}
}

func TestReadCPUTimes(t *testing.T) {
	if _, err := os.Stat("/proc/stat"); err != nil {
		t.Skip("no /proc")
	}
	a, err := ReadCPUTimes()
	if err != nil {
		t.Fatal(err)
	}
	if a.Total <= 0 || a.Steal < 0 || a.Steal > a.Total {
		t.Fatalf("cpu times %+v", a)
	}
	c, err := parseCPUTimes("cpu  626789 0 83126 11447315 2536 0 9486 78927 11 7")
	if err != nil {
		t.Fatal(err)
	}
	if want := (CPUTimes{Total: 626789 + 83126 + 11447315 + 2536 + 9486 + 78927, Steal: 78927, Idle: 11447315 + 2536}); c != want {
		t.Errorf("parseCPUTimes = %+v, want %+v (guest time is in user time already)", c, want)
	}
	if _, err := parseCPUTimes("intr 1 2 3"); err == nil {
		t.Error("a line that is not the cpu line was read")
	}
	if s := StealShare(a, CPUTimes{Total: a.Total + 100, Steal: a.Steal + 25}); s != 0.25 {
		t.Errorf("StealShare = %v, want 0.25", s)
	}
	if s := StealShare(a, a); s != 0 {
		t.Errorf("StealShare over no time = %v, want 0", s)
	}
	if s := BusyShare(a, CPUTimes{Total: a.Total + 100, Idle: a.Idle + 40}); s != 0.6 {
		t.Errorf("BusyShare = %v, want 0.6", s)
	}
	if l, err := LoadAverage(); err != nil || l < 0 {
		t.Errorf("LoadAverage = %v, %v", l, err)
	}
}

// BenchmarkReadToolsReplayed is each of the six read tools of the overhead
// table with Audiobookshelf's answers replayed from memory: the server's
// own cost per call, client included. Profile it with
// go test -run '^$' -bench ReadToolsReplayed -cpuprofile cpu.out ./bench.
func BenchmarkReadToolsReplayed(b *testing.B) {
	p, err := StartReplaying(SeedLibrary(30))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(p.Close)
	tools, err := ReadTools(context.Background(), HTTPClient(1), Target{URL: p.URL, Key: p.Key})
	if err != nil {
		b.Fatal(err)
	}
	for _, tool := range tools {
		b.Run(tool.Name, func(b *testing.B) { benchCall(b, p, tool.Name, tool.Args) })
	}
}

// TestReadToolsHarness: the overhead table's harness finds arguments on a
// stand-in, records the requests a call makes through the proxy, and the
// direct path makes the same requests (cheap; it runs in the default test
// run, so that the driver cannot rot unseen).
func TestReadToolsHarness(t *testing.T) {
	sd := standin.New(standin.Options{Data: SeedLibrary(30), Now: standin.SampleNow})
	base, err := sd.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer sd.Close()
	target := Target{URL: base, Key: standin.DefaultAPIKey}
	ctx := context.Background()
	hc := HTTPClient(1)
	tools, err := ReadTools(ctx, hc, target)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 6 {
		t.Fatalf("%d tools", len(tools))
	}
	if v, err := target.Version(ctx, hc); err != nil || v != "audiobookshelf 2.36.0" {
		t.Fatalf("version %q, %v", v, err)
	}
	rec, err := StartRecorder(base)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	// Through the proxy with net/http: what it records is what was sent.
	if err := DirectCall(ctx, hc, Target{URL: rec.URL, Key: target.Key}, []string{"/api/me", "/api/libraries"}); err != nil {
		t.Fatal(err)
	}
	got := rec.Take()
	if len(got) != 2 || !slices.Contains(got, "GET /api/me") || !slices.Contains(got, "GET /api/libraries") {
		t.Fatalf("recorded %v", got)
	}
	if again := rec.Take(); len(again) != 0 {
		t.Fatalf("Take did not forget: %v", again)
	}
	sd.ResetRequests()
	if err := DirectCall(ctx, hc, target, []string{"/api/libraries/" + standin.LibraryBooksID + "/items?limit=25&page=0", "/api/me/progress"}); err != nil {
		t.Fatal(err)
	}
	if n := len(sd.Requests()); n != 2 {
		t.Fatalf("the stand-in saw %d requests", n)
	}
	if err := DirectCall(ctx, hc, target, []string{"/api/items/" + unknownItem}); err == nil || strings.Contains(err.Error(), target.Key) {
		t.Fatalf("a 404 gave %v", err)
	}
}

const unknownItem = "00000000-0000-4000-8000-000000000000"

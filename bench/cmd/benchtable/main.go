// Command benchtable builds the server and the floor server, measures them
// and prints one markdown table: start-up, what tools/list costs a model,
// compact against full results, overhead per call, throughput over
// streamable HTTP, memory. The targets are reported next to each value, not
// asserted. make bench runs it; -quick makes a short run for development.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/bench"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/registry"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/app"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

type params struct {
	bin, out  string
	startups  int
	calls     int
	level     time.Duration
	memCalls  int
	levels    []int
	readCalls int
	sections  map[string]bool
	// real is the Audiobookshelf given by AUDIOBOOKSHELF_URL and
	// AUDIOBOOKSHELF_API_KEY, when both are set.
	real *bench.Target
}

func main() {
	var p params
	quick := flag.Bool("quick", false, "a short run for development (few iterations)")
	flag.StringVar(&p.bin, "bin", "", "the built server binary; empty builds one into a temporary directory")
	flag.StringVar(&p.out, "out", "", "also write the table to this file (with the date and machine)")
	flag.IntVar(&p.startups, "startups", 41, "start-ups measured per server")
	flag.IntVar(&p.calls, "calls", 3000, "calls measured per path for the overhead per call")
	flag.DurationVar(&p.level, "level", 5*time.Second, "how long each throughput level runs")
	flag.IntVar(&p.memCalls, "memcalls", 10000, "calls made before the second RSS reading")
	flag.IntVar(&p.readCalls, "readcalls", 600, "calls measured per path for each read tool's overhead")
	sections := flag.String("sections", "startup,sizes,requests,overhead,readtools,throughput,scale", "the parts to run, comma-separated")
	flag.Parse()
	// First of all, before any process is started from here: the key goes
	// out of this process's environment.
	real, ok, err := realTarget()
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(2)
	}
	if ok {
		p.real = &real
	}
	p.sections = map[string]bool{}
	for _, s := range strings.Split(*sections, ",") {
		switch s = strings.TrimSpace(s); s {
		case "startup", "sizes", "requests", "overhead", "readtools", "throughput", "scale":
			p.sections[s] = true
		default:
			fmt.Fprintf(os.Stderr, "benchtable: -sections: %q is not one of startup, sizes, requests, overhead, readtools, throughput, scale\n", s)
			os.Exit(2)
		}
	}
	p.levels = []int{1, 8, 64}
	if *quick {
		p.startups, p.calls, p.level, p.memCalls, p.readCalls = 5, 200, time.Second, 500, 60
	}
	if err := run(p); err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
}

// row is one line of the table.
type row struct {
	section, measure, value, target, met string
}

type table struct {
	rows     []row
	appendix []string
	notes    []string
}

func (t *table) add(section, measure, value, target string, met *bool) {
	m := ""
	if met != nil {
		m = "no"
		if *met {
			m = "yes"
		}
	}
	t.rows = append(t.rows, row{section, measure, value, target, m})
}

func (t *table) markdown() string {
	var b strings.Builder
	b.WriteString("| # | measure | value | target | met |\n|---|---|---|---|---|\n")
	last := ""
	for _, r := range t.rows {
		sec := r.section
		if sec == last {
			sec = ""
		} else {
			last = sec
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", sec, r.measure, r.value, r.target, r.met)
	}
	for _, n := range t.notes {
		b.WriteString("\n" + n + "\n")
	}
	for _, a := range t.appendix {
		b.WriteString("\n" + a)
	}
	return b.String()
}

func ptr(b bool) *bool { return &b }

func run(p params) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "benchtable")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if p.bin == "" {
		p.bin = filepath.Join(dir, "audiobookshelf-mcp")
		if err := build(root, "./cmd/audiobookshelf-mcp", p.bin); err != nil {
			return err
		}
	}
	floor := filepath.Join(dir, "floorserver")
	if err := build(root, "./bench/cmd/floorserver", floor); err != nil {
		return err
	}
	t := &table{}
	type step struct {
		section, name string
		f             func() error
	}
	steps := []step{
		{"startup", "start-up and tools/list", func() error { return startUp(t, p, floor) }},
		{"sizes", "result sizes", func() error { return resultSizes(t) }},
		{"requests", "the everyday requests", func() error { return everydayRequests(t) }},
		{"overhead", "overhead per call", func() error { return overhead(t, p) }},
		{"readtools", "read tools on the stand-in", func() error {
			target, stop, err := startStandin(root, dir)
			if err != nil {
				return err
			}
			defer stop()
			return readToolsOverhead(t, p, readTarget{label: "stand-in", target: target, note: "Read tools (stand-in): the built binary over stdio " +
				"(go-sdk client, mcp.CommandTransport) pointed at bench/cmd/standinserver, the stand-in as its own process with the sample library's " +
				"books copied to 30. The direct path sends, with net/http over keep-alive from the driver to that same process, the requests the " +
				"server sent for the same arguments (recorded through a proxy in an untimed pass, which also counts the requests per call), several " +
				"at once when the server sends several, and reads the bodies without decoding them. Each call through MCP alternates with its " +
				"direct request(s), call by call, the order rotated every round, after 20 rounds of warm-up."})
		}},
	}
	if p.real != nil {
		real := *p.real
		steps = append(steps, step{"readtools", "read tools on the real server", func() error {
			version, err := real.Version(context.Background(), bench.HTTPClient(1))
			if err != nil {
				return fmt.Errorf("AUDIOBOOKSHELF_URL: %w", err)
			}
			where := "on another host"
			if loopbackURL(real.URL) {
				where = "on loopback"
			}
			return readToolsOverhead(t, p, readTarget{label: version, target: real, note: "Read tools (" + version + "): the same, with the server " +
				"pointed at the Audiobookshelf of AUDIOBOOKSHELF_URL (" + where + "), which only reads are sent to; the key is given to the measured " +
				"servers' environment alone (the server removes it from its own), never to another process, and appears nowhere in this table."})
		}})
	}
	steps = append(steps, step{"throughput", "throughput and memory", func() error { return throughput(t, p) }})
	steps = append(steps, step{"scale", "answer size and time against library size", func() error { return scaleRows(t, p) }})
	var steal, busy, load []string
	for _, s := range steps {
		if !p.sections[s.section] {
			continue
		}
		fmt.Fprintf(os.Stderr, "benchtable: %s…\n", s.name)
		c0, err0 := bench.ReadCPUTimes()
		if err := s.f(); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		if c1, err1 := bench.ReadCPUTimes(); err0 == nil && err1 == nil {
			steal = append(steal, fmt.Sprintf("%s %.1f%%", s.name, 100*bench.StealShare(c0, c1)))
			busy = append(busy, fmt.Sprintf("%s %.0f%%", s.name, 100*bench.BusyShare(c0, c1)))
		}
		if l, err := bench.LoadAverage(); err == nil {
			load = append(load, fmt.Sprintf("%s %.1f", s.name, l))
		}
	}
	if len(steal) > 0 {
		t.notes = append([]string{"CPU time the hypervisor gave to other machines (steal, /proc/stat) during each part: " +
			strings.Join(steal, ", ") + ". The share of the machine's CPU time that was busy (this run, every other process, steal): " +
			strings.Join(busy, ", ") + "; the one-minute load average at the end of each part (" + nproc() + " CPUs): " + strings.Join(load, ", ") +
			". The machine is shared: a run with more steal or other work is slower throughout, ratios included."}, t.notes...)
	}
	md := t.markdown()
	if p.real != nil && strings.Contains(md, p.real.Key) {
		return fmt.Errorf("the table holds the API key: not printed, not written")
	}
	fmt.Print(md)
	if p.out != "" {
		head := fmt.Sprintf("# Benchmark results\n\nGenerated by `make bench` (bench/cmd/benchtable) on %s.\n\n"+
			"Machine: %s, %s/%s, `nproc` %s; %s; server %s.\n"+
			"Runs: %d start-ups per server, %d calls per path for the overhead of `get_library_item`, %d per path for each read tool, %s per throughput level, %d calls before the second RSS reading.\n\n",
			time.Now().UTC().Format("2006-01-02 15:04 MST"), cpuModel(), runtime.GOOS, runtime.GOARCH, nproc(),
			runtime.Version(), gitDescribe(root), p.startups, p.calls, p.readCalls, p.level, p.memCalls)
		if err := os.WriteFile(p.out, []byte(head+md), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// ---------------------------------------------------------------- 1, 2

func startUp(t *table, p params, floor string) error {
	// A listener that counts connections stands for Audiobookshelf: the
	// server calls it once at start over stdio (is the key refused?), and
	// not again before the first request.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer ln.Close()
	var conns atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			c.Close()
		}
	}()
	env := []string{"AUDIOBOOKSHELF_URL=http://" + ln.Addr().String(), "AUDIOBOOKSHELF_API_KEY=bench-key"}
	var server, demo, empty bench.Durations
	var answer []byte
	// One warm-up each (page cache), then alternate so that noise falls on all.
	for i := -1; i < p.startups; i++ {
		h, err := bench.StartUp(p.bin, nil, env)
		if err != nil {
			return fmt.Errorf("server: %w", err)
		}
		f, err := bench.StartUp(floor, nil, nil)
		if err != nil {
			return fmt.Errorf("floor server: %w", err)
		}
		d, err := bench.StartUp(p.bin, []string{"--demo"}, nil)
		if err != nil {
			return fmt.Errorf("server --demo: %w", err)
		}
		if i < 0 {
			continue
		}
		server, empty, demo = append(server, h.Elapsed), append(empty, f.Elapsed), append(demo, d.Elapsed)
		answer = h.ToolsList
	}
	ratio := float64(server.Median()) / float64(empty.Median())
	n := fmt.Sprintf("median of %d", p.startups)
	t.add("1 start-up", "exec → tools/list answer over stdio, server ("+n+")", ms(server.Median()), "", nil)
	t.add("1 start-up", "same handshake, go-sdk server with no tools (floor, "+n+")", ms(empty.Median()), "", nil)
	t.add("1 start-up", "server ÷ floor", fmt.Sprintf("%.2f×", ratio), "≤ 1.5×", ptr(ratio <= 1.5))
	t.add("1 start-up", "server with --demo (builds the stand-in and its listener first, "+n+")", ms(demo.Median()), "", nil)
	var assemble bench.Durations
	for i := 0; i < p.startups; i++ {
		t0 := time.Now()
		cfg := &config.Config{URL: "http://" + ln.Addr().String(), APIKey: "bench-key", Elicitation: true, Timeout: 30 * time.Second}
		srv, err := app.New(app.Options{Config: cfg, Version: "bench"})
		if err != nil {
			return err
		}
		<-srv.Registered()
		assemble = append(assemble, time.Since(t0))
	}
	var addTools bench.Durations
	noop := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	}
	for i := 0; i < p.startups; i++ {
		s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		t0 := time.Now()
		for _, tool := range registry.All {
			s.AddTool(tool.Definition, noop)
		}
		addTools = append(addTools, time.Since(t0))
	}
	t.add("1 start-up", "of which assembling the server (app.New: guard, client, and the tool registration it runs in the background, waited for), in process, "+n, ms(assemble.Median()), "", nil)
	t.add("1 start-up", fmt.Sprintf("not spent: go-sdk's AddTool given the %d generated schemas, which re-encodes each twice (the server gives it one bare object schema and lists its own, internal/app/definitions.go), in process, %s", len(registry.All), n), ms(addTools.Median()), "", nil)
	c := conns.Load()
	n1 := int64(p.startups + 1)
	t.add("1 start-up", fmt.Sprintf("connections to AUDIOBOOKSHELF_URL during %d start-ups (the key checked once each, no call made)", n1),
		fmt.Sprint(c), fmt.Sprintf("≤ %d", n1), ptr(c <= n1))

	sizes, err := bench.ToolSizes(answer)
	if err != nil {
		return err
	}
	total := len(answer)
	t.add("2 tokens", fmt.Sprintf("tools/list answer, %d tools (the JSON-RPC line as sent)", len(sizes)),
		// The bound internal/app's TestDefaultToolsListSize holds the
		// default tools/list answer line to (the default and discovery tools).
		fmt.Sprintf("%d bytes ≈ %d tokens", total, total/4), "≤ 6 000 bytes", ptr(total <= 6000))
	bs := make([]int, len(sizes))
	for i, s := range sizes {
		bs[i] = s.Bytes
	}
	slices.Sort(bs)
	t.add("2 tokens", "one tool definition: median / largest", fmt.Sprintf("%d / %d bytes ≈ %d / %d tokens",
		bs[len(bs)/2], bs[len(bs)-1], bs[len(bs)/2]/4, bs[len(bs)-1]/4), "", nil)
	byBytes := slices.Clone(sizes)
	slices.SortStableFunc(byBytes, func(a, b bench.ToolSize) int { return b.Bytes - a.Bytes })
	for i, s := range byBytes[:min(5, len(byBytes))] {
		t.add("2 tokens", fmt.Sprintf("largest %d: `%s`", i+1, s.Name), fmt.Sprintf("%d bytes ≈ %d tokens", s.Bytes, s.Bytes/4), "", nil)
	}
	var a strings.Builder
	a.WriteString("Every tool definition in tools/list (bytes as sent; tokens estimated as bytes/4):\n\n| tool | bytes | ≈ tokens |\n|---|---|---|\n")
	for _, s := range sizes {
		fmt.Fprintf(&a, "| `%s` | %d | %d |\n", s.Name, s.Bytes, s.Bytes/4)
	}
	t.appendix = append(t.appendix, a.String())
	t.notes = append(t.notes, "Tokens are estimated as bytes/4 (no tokenizer is run).")
	return nil
}

// ---------------------------------------------------------------- 3

func resultSizes(t *table) error {
	// The full forms are measured whole: a budget the raw page fits in.
	p, err := bench.StartInProcessBudget(bench.SeedLibrary(30), 1000000)
	if err != nil {
		return err
	}
	defer p.Close()
	ctx := context.Background()
	cases := []struct {
		what, tool string
		args       map[string]any
		target     float64
	}{
		{"page of 25 items (`list_library_items` limit 25)", "list_library_items", map[string]any{"library_id": standin.LibraryBooksID, "limit": 25}, 10},
		{"one item (`get_library_item`)", "get_library_item", map[string]any{"library_item_id": standin.ItemColourOfMagic}, 0},
		{"`get_me`", "get_me", map[string]any{}, 0},
		{"listening stats (`get_listening_stats`)", "get_listening_stats", map[string]any{}, 0},
	}
	for _, c := range cases {
		compact, err := bench.Call(ctx, p.Session, c.tool, c.args)
		if err != nil {
			return err
		}
		fa := map[string]any{"detail": "full"}
		for k, v := range c.args {
			fa[k] = v
		}
		full, err := bench.Call(ctx, p.Session, c.tool, fa)
		if err != nil {
			return err
		}
		r := float64(len(full)) / float64(len(compact))
		target, met := "", (*bool)(nil)
		if c.target > 0 {
			target, met = fmt.Sprintf("≥ %.0f× smaller", c.target), ptr(r >= c.target)
		}
		t.add("3 result size", c.what+": compact / full",
			fmt.Sprintf("%d / %d bytes (%.1f× smaller)", len(compact), len(full), r), target, met)
	}
	t.notes = append(t.notes, "Result sizes are the text content a model reads (a result has no other: no structured content, as no tool declares an output schema), "+
		"measured in process against the stand-in seeded with 30 books (the sample library's 16 and copies), with a result budget of 1,000,000 "+
		"characters so that the full forms are measured whole (the default budget of 40,000 refuses the full page of 25).")
	return nil
}

// ---------------------------------------------------------------- 4

// everyToolset lists every tool from the start: the overhead and
// throughput sections call get_library_item (toolset items) directly, as a
// client that lists it would.
const everyToolset = "AUDIOBOOKSHELF_TOOLSETS=all"

var demoURL = regexp.MustCompile(`served from memory at (http://[^;\s]+)`)

func overhead(t *table, p params) error {
	ctx := context.Background()
	// The built binary over stdio, with its own stand-in (--demo): the
	// direct requests go to that same stand-in.
	watch := newWatcher(demoURL)
	cmd := exec.Command(p.bin, "--demo")
	cmd.Env = append(os.Environ(), everyToolset)
	cmd.Stderr = watch
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	base, err := watch.wait(10 * time.Second)
	if err != nil {
		return err
	}
	pid := cmd.Process.Pid
	var cpu cpuUse
	mcpLat, direct, err := compare(ctx, cs, base, standin.DefaultAPIKey, p.calls, func(viaMCP bool, block func() error) error {
		return cpu.measure(pid, viaMCP, block)
	})
	if err != nil {
		return err
	}
	report(t, "stdio, built binary", mcpLat, direct, true)
	t.notes = append(t.notes, "Overhead per call (stdio): the built binary with `--demo`, driven by a go-sdk client (mcp.CommandTransport); "+
		"the direct requests go, with net/http from the driver, to the stand-in it serves, which runs in the server's process, "+
		"so the two paths alternate in blocks of 100 over the same process. A call reads the expanded item (51 500 bytes) and answers its compact form; "+
		"the direct request reads the same bytes and decodes nothing. CPU per call is counted from /proc in ticks of 10 ms over all the calls of each path, warm-up included.")
	if cpu.err == nil {
		n := time.Duration(len(mcpLat) + 200) // the warm-up is measured too
		t.add("4 overhead per call", "CPU per call of the server's process (its stand-in included) and of the driver: through MCP / the request made directly",
			fmt.Sprintf("server %s / %s, driver %s / %s", us(cpu.server[1]/n), us(cpu.server[0]/n), us(cpu.driver[1]/n), us(cpu.driver[0]/n)), "", nil)
	}

	ip, err := bench.StartInProcess(nil)
	if err != nil {
		return err
	}
	defer ip.Close()
	mcpLat, direct, err = compare(ctx, ip.Session, ip.URL, ip.Key, p.calls, nil)
	if err != nil {
		return err
	}
	report(t, "in process, in-memory transport", mcpLat, direct, false)

	rp, err := bench.StartReplaying(nil)
	if err != nil {
		return err
	}
	defer rp.Close()
	own, err := calls(ctx, rp.Session, p.calls)
	if err != nil {
		return err
	}
	t.add("4 overhead per call", "`get_library_item` with Audiobookshelf's answer replayed from memory (the server's own cost, client included, in process): median / p99",
		fmt.Sprintf("%s / %s", us(own.Median()), us(own.Quantile(0.99))), "", nil)
	return nil
}

// calls times n get_library_item calls after a warm-up.
func calls(ctx context.Context, cs *mcp.ClientSession, n int) (bench.Durations, error) {
	args := map[string]any{"library_item_id": standin.ItemColourOfMagic}
	var d bench.Durations
	for i := -200; i < n; i++ {
		t0 := time.Now()
		if _, err := bench.Call(ctx, cs, "get_library_item", args); err != nil {
			return nil, err
		}
		if i >= 0 {
			d = append(d, time.Since(t0))
		}
	}
	return d, nil
}

// compare alternates blocks of get_library_item calls and the same request
// made directly, after a warm-up of each.
// around, when not nil, runs each block (and may measure it).
func compare(ctx context.Context, cs *mcp.ClientSession, base, key string, n int, around func(viaMCP bool, block func() error) error) (viaMCP, direct bench.Durations, err error) {
	hc := bench.HTTPClient(1)
	args := map[string]any{"library_item_id": standin.ItemColourOfMagic}
	if around == nil {
		around = func(_ bool, block func() error) error { return block() }
	}
	viaMCPCall := func() error { _, err := bench.Call(ctx, cs, "get_library_item", args); return err }
	directCall := func() error { _, err := bench.Direct(ctx, hc, base, key, standin.ItemColourOfMagic); return err }
	const block = 100
	for i := -200; i < n; i += block {
		// One block of calls, timed into d once past the warm-up.
		blockOf := func(call func() error, d *bench.Durations) func() error {
			return func() error {
				for range block {
					t0 := time.Now()
					if err := call(); err != nil {
						return err
					}
					if i >= 0 {
						*d = append(*d, time.Since(t0))
					}
				}
				return nil
			}
		}
		if err := around(true, blockOf(viaMCPCall, &viaMCP)); err != nil {
			return nil, nil, err
		}
		if err := around(false, blockOf(directCall, &direct)); err != nil {
			return nil, nil, err
		}
	}
	return viaMCP, direct, nil
}

// cpuUse sums the CPU time of the server's process and of this one over
// the blocks of each path ([0] direct, [1] through MCP).
type cpuUse struct {
	server, driver [2]time.Duration
	err            error
}

func (c *cpuUse) measure(pid int, viaMCP bool, block func() error) error {
	s0, err0 := bench.ProcessCPU(pid)
	d0, err1 := bench.ProcessCPU(os.Getpid())
	if err := block(); err != nil {
		return err
	}
	s1, err2 := bench.ProcessCPU(pid)
	d1, err3 := bench.ProcessCPU(os.Getpid())
	if c.err = errors.Join(c.err, err0, err1, err2, err3); c.err != nil {
		return nil // the table goes without the CPU row
	}
	i := 0
	if viaMCP {
		i = 1
	}
	c.server[i] += s1 - s0
	c.driver[i] += d1 - d0
	return nil
}

func report(t *table, how string, viaMCP, direct bench.Durations, target bool) {
	const sec = "4 overhead per call"
	t.add(sec, "`get_library_item` through the MCP server ("+how+"): median / p99",
		fmt.Sprintf("%s / %s", us(viaMCP.Median()), us(viaMCP.Quantile(0.99))), "", nil)
	t.add(sec, "the same request with net/http to the same stand-in: median / p99",
		fmt.Sprintf("%s / %s", us(direct.Median()), us(direct.Quantile(0.99))), "", nil)
	added := viaMCP.Median() - direct.Median()
	ratio := float64(viaMCP.Median()) / float64(direct.Median())
	allowed := max(time.Duration(0.3*float64(direct.Median())), 200*time.Microsecond)
	tg, met := "", (*bool)(nil)
	if target {
		tg, met = "≤ 1.3× or ≤ 200 µs added, whichever larger", ptr(added <= allowed)
	}
	t.add(sec, "MCP ÷ direct (median), added per call", fmt.Sprintf("%.2f×, %s added", ratio, us(added)), tg, met)
}

// ---------------------------------------------------------------- 5, 6

var listening = regexp.MustCompile(`listening on (http://\S+/mcp)`)

func throughput(t *table, p params) error {
	endpoint, pid, stop, how, err := startHTTP(p.bin, []string{"--demo", "--http", "127.0.0.1:0"}, append(os.Environ(), everyToolset))
	if err != nil {
		return err
	}
	proto, err := series(t, p, "--demo", endpoint, pid, nil)
	stop()
	if err != nil {
		return err
	}
	t.notes = append(t.notes, "Throughput and memory (--demo): "+how+". Each client is a go-sdk session "+
		"(mcp.StreamableClientTransport, protocol "+proto+" as negotiated) making one call after another; the driver runs on the same machine.")
	if pid == os.Getpid() {
		return nil // no --http: the in-process fallback is measured once
	}
	// The same binary in front of an Audiobookshelf that answers from memory,
	// so that the stand-in's own rendering does not set the pace.
	rs, err := bench.StartReplayServer(nil)
	if err != nil {
		return err
	}
	defer rs.Close()
	endpoint, pid, stop, _, err = startHTTP(p.bin, []string{"--http", "127.0.0.1:0"},
		[]string{"AUDIOBOOKSHELF_URL=" + rs.URL, "AUDIOBOOKSHELF_API_KEY=" + standin.DefaultAPIKey, everyToolset})
	if err != nil {
		return err
	}
	defer stop()
	if _, err := series(t, p, "replayed", endpoint, pid, rs.Conns); err != nil {
		return err
	}
	t.notes = append(t.notes, "Throughput and memory (replayed): the built binary with `--http 127.0.0.1:0` and AUDIOBOOKSHELF_URL "+
		"pointing at a server in the driver that replays the stand-in's answers from memory (each fetched once), so that the "+
		"server in front of it sets the pace; RSS is the server's alone.")
	return nil
}

// series measures items 5 and 6 against one running server: RSS after
// start, after memCalls calls, then each throughput level, then the peak.
// conns, when not nil, counts the connections the server opened to
// Audiobookshelf.
func series(t *table, p params, label, endpoint string, pid int, conns func() int64) (protocol string, err error) {
	ctx := context.Background()
	sec5, sec6 := "5 throughput ("+label+")", "6 memory ("+label+")"
	hc := bench.HTTPClient(64)
	call := func(ctx context.Context, cs *mcp.ClientSession) error {
		_, err := bench.Call(ctx, cs, "get_library_item", map[string]any{"library_item_id": standin.ItemColourOfMagic})
		return err
	}
	afterStart, err := bench.ReadMemory(pid)
	if err != nil {
		return "", err
	}
	cl, err := bench.ConnectHTTP(ctx, endpoint, 8, hc)
	if err != nil {
		return "", err
	}
	protocol = cl.Protocol
	if _, err := cl.Run(ctx, p.memCalls, 0, call); err != nil {
		cl.Close()
		return "", err
	}
	cl.Close()
	afterCalls, err := bench.ReadMemory(pid)
	if err != nil {
		return "", err
	}
	var connRows []string
	if conns != nil {
		connRows = append(connRows, fmt.Sprintf("%d during %d calls from 8 sessions", conns(), p.memCalls))
	}
	for _, n := range p.levels {
		cl, err := bench.ConnectHTTP(ctx, endpoint, n, hc)
		if err != nil {
			return "", err
		}
		if _, err := cl.Run(ctx, 2*n, 0, call); err != nil {
			cl.Close()
			return "", err
		}
		before := int64(0)
		if conns != nil {
			before = conns()
		}
		l, err := cl.Run(ctx, 0, p.level, call)
		cl.Close()
		if err != nil {
			return "", err
		}
		if conns != nil {
			connRows = append(connRows, fmt.Sprintf("%d more during %d calls from %d", conns()-before, l.Calls, n))
		}
		t.add(sec5, fmt.Sprintf("%d concurrent client(s), `get_library_item`: calls/s, p50 / p99", n),
			fmt.Sprintf("%.0f calls/s, %s / %s", l.PerSecond(), ms(l.Latency.Median()), ms(l.Latency.Quantile(0.99))), "", nil)
	}
	peak, err := bench.ReadMemory(pid)
	if err != nil {
		return "", err
	}
	t.add(sec5, "peak RSS of the server (VmHWM, from start through the 64-client level)", mb(peak.Peak), "", nil)
	if conns != nil {
		t.add(sec5, "connections the server opened to Audiobookshelf (one HTTP client, keep-alive)", strings.Join(connRows, "; "), "", nil)
	}
	t.add(sec6, "RSS after start (VmRSS, before any request)", mb(afterStart.RSS), "", nil)
	t.add(sec6, fmt.Sprintf("RSS after %d calls (VmRSS, 8 sessions)", p.memCalls), mb(afterCalls.RSS), "", nil)
	return protocol, nil
}

// startHTTP runs the binary with args and env and waits for its listening
// line. A binary without --http gets the same server in process
// (mcp.NewStreamableHTTPHandler on an httptest server), and how says so.
func startHTTP(bin string, args, env []string) (endpoint string, pid int, stop func(), how string, err error) {
	watch := newWatcher(listening)
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stderr = watch
	if err := cmd.Start(); err != nil {
		return "", 0, nil, "", err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	stopCmd := func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}
	endpoint, err = watch.waitOr(10*time.Second, exited)
	if err == nil {
		return endpoint, cmd.Process.Pid, stopCmd, "the built binary with `" + strings.Join(args, " ") + "` as its own process, RSS from /proc/PID/status; its stand-in runs in the same process", nil
	}
	stopCmd()
	if !strings.Contains(watch.String(), "flag provided but not defined") {
		return "", 0, nil, "", fmt.Errorf("%s: %w: %s", strings.Join(args, " "), err, watch.String())
	}
	ip, err := bench.StartInProcess(nil)
	if err != nil {
		return "", 0, nil, "", err
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return ip.Server.MCP }, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ts := httptest.NewServer(mux)
	return ts.URL + "/mcp", os.Getpid(), func() { ts.Close(); ip.Close() },
		"the binary has no --http flag yet, so the server ran IN PROCESS (mcp.NewStreamableHTTPHandler on an httptest server) and the RSS is the driver's own process, clients included", nil
}

// ---------------------------------------------------------------- processes, formatting

// watcher collects a process's stderr and finds the first match of re.
type watcher struct {
	re    *regexp.Regexp
	mu    sync.Mutex
	buf   bytes.Buffer
	found chan string
	once  sync.Once
}

func newWatcher(re *regexp.Regexp) *watcher { return &watcher{re: re, found: make(chan string, 1)} }

func (w *watcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if m := w.re.FindSubmatch(w.buf.Bytes()); m != nil {
		w.once.Do(func() { w.found <- string(m[1]) })
	}
	return len(p), nil
}

func (w *watcher) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

func (w *watcher) wait(d time.Duration) (string, error) { return w.waitOr(d, nil) }

func (w *watcher) waitOr(d time.Duration, exited <-chan struct{}) (string, error) {
	select {
	case s := <-w.found:
		return s, nil
	case <-exited:
		time.Sleep(50 * time.Millisecond) // let the last stderr bytes arrive
		select {
		case s := <-w.found:
			return s, nil
		default:
		}
		return "", fmt.Errorf("the process exited")
	case <-time.After(d):
		return "", fmt.Errorf("no line matching %s within %s", w.re, d)
	}
}

func build(root, pkg, out string) error {
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", out, pkg)
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s: %w", pkg, err)
	}
	return nil
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", err
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("not inside the module")
	}
	return filepath.Dir(mod), nil
}

func gitDescribe(root string) string {
	cmd := exec.Command("git", "describe", "--tags", "--always")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return "(unknown commit)"
	}
	desc := strings.TrimSpace(string(out))
	// Changes other than to the results file itself (which the previous
	// run rewrote) mean the server measured is not that commit.
	st := exec.Command("git", "status", "--porcelain", "--", ".", ":(exclude)bench/RESULTS.md")
	st.Dir = root
	if changed, err := st.Output(); err != nil || len(bytes.TrimSpace(changed)) > 0 {
		desc += "-dirty"
	}
	return "at " + desc
}

func nproc() string {
	if out, err := exec.Command("nproc").Output(); err == nil {
		return strings.TrimSpace(string(out))
	}
	return fmt.Sprint(runtime.NumCPU())
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	defer f.Close()
	b, _ := io.ReadAll(f)
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

// loopbackURL reports whether u's host is a loopback address or localhost.
func loopbackURL(u string) bool {
	pu, err := url.Parse(u)
	if err != nil {
		return false
	}
	h := pu.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }
func us(d time.Duration) string { return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond)) }
func mb(b int64) string         { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

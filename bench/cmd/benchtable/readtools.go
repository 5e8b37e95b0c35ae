package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/bench"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// The overhead of six read tools, each against the direct request(s) a
// person would make for the same answer, against the stand-in (always)
// and against a real Audiobookshelf (when AUDIOBOOKSHELF_URL and
// AUDIOBOOKSHELF_API_KEY are given).

// readTarget is where the read tools are measured.
type readTarget struct {
	// label names it in the table: "stand-in", or the server's version.
	label  string
	target bench.Target
	// note says how it runs, for the notes under the table.
	note string
}

var standinListening = regexp.MustCompile(`standinserver: listening on (http://\S+)`)

// startStandin runs bench/cmd/standinserver (built into dir) as its own
// process: the stand-in, seeded with 30 books, on 127.0.0.1.
func startStandin(root, dir string) (bench.Target, func(), error) {
	bin := dir + "/standinserver"
	if err := build(root, "./bench/cmd/standinserver", bin); err != nil {
		return bench.Target{}, nil, err
	}
	watch := newWatcher(standinListening)
	cmd := exec.Command(bin)
	cmd.Env = []string{}
	cmd.Stderr = watch
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return bench.Target{}, nil, err
	}
	if err := cmd.Start(); err != nil {
		return bench.Target{}, nil, err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	stop := func() {
		stdin.Close()
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}
	u, err := watch.waitOr(10*time.Second, exited)
	if err != nil {
		stop()
		return bench.Target{}, nil, fmt.Errorf("standinserver: %w: %s", err, watch.String())
	}
	return bench.Target{URL: u, Key: standin.DefaultAPIKey}, stop, nil
}

// connectServer starts the built server over stdio pointed at url with
// key. Its environment holds those two and nothing else; the server takes
// the key out of its own environment at start.
func connectServer(ctx context.Context, bin, url, key string) (*mcp.ClientSession, *watcher, error) {
	cs, watch, _, err := connectServerCmd(ctx, bin, url, key)
	return cs, watch, err
}

// connectServerCmd is connectServer that also gives the process's id.
func connectServerCmd(ctx context.Context, bin, url, key string) (*mcp.ClientSession, *watcher, int, error) {
	watch := newWatcher(regexp.MustCompile(`^$^`))
	cmd := exec.Command(bin)
	cmd.Env = []string{"AUDIOBOOKSHELF_URL=" + url, "AUDIOBOOKSHELF_API_KEY=" + key, everyToolset}
	cmd.Stderr = watch
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("server over stdio: %w (stderr: %s)", err, watch.String())
	}
	return cs, watch, cmd.Process.Pid, nil
}

// readCell is one tool measured on one target.
type readCell struct {
	tool           bench.ReadTool
	viaMCP, direct bench.Durations
	// alone is the page request by itself (list_library_items only).
	alone bench.Durations
	// requests per call through the server, and the direct request URIs.
	requests int
	uris     []string
	alonePos int // index in uris of the request measured alone, or -1
	// serverCPU is the server process's CPU time over all of the tool's
	// calls, warm-up included (-1 when /proc could not be read).
	serverCPU time.Duration
}

// recordRequests finds which requests each tool makes for its arguments:
// a second server, pointed at a recording proxy in front of the target,
// makes each call three times, untimed.
func recordRequests(ctx context.Context, bin string, rt readTarget, tools []bench.ReadTool) ([]readCell, error) {
	rec, err := bench.StartRecorder(rt.target.URL)
	if err != nil {
		return nil, err
	}
	defer rec.Close()
	cs, watch, err := connectServer(ctx, bin, rec.URL, rt.target.Key)
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	var cells []readCell
	for _, tool := range tools {
		c := readCell{tool: tool, alonePos: -1}
		for i := range 3 {
			rec.Take()
			if _, err := bench.Call(ctx, cs, tool.Name, tool.Args); err != nil {
				return nil, fmt.Errorf("%w (server stderr: %s)", err, clipText(watch.String(), 300))
			}
			got := rec.Take()
			if i > 0 && len(got) != c.requests {
				return nil, fmt.Errorf("%s sent %d requests, then %d", tool.Name, c.requests, len(got))
			}
			c.requests = len(got)
			c.uris = c.uris[:0]
			for _, r := range got {
				uri, ok := strings.CutPrefix(r, "GET ")
				if !ok {
					return nil, fmt.Errorf("%s sent %s: a read tool must send GET only", tool.Name, strings.SplitN(r, "?", 2)[0])
				}
				c.uris = append(c.uris, uri)
			}
		}
		if tool.Name == "list_library_items" && len(c.uris) > 1 {
			for i, u := range c.uris {
				if strings.Contains(u, "/items?") {
					c.alonePos = i
				}
			}
		}
		cells = append(cells, c)
	}
	return cells, nil
}

// readToolsOverhead measures the six read tools on one target: each call
// through the server alternates with the direct request(s), call by call,
// the order swapped every round.
func readToolsOverhead(t *table, p params, rt readTarget) error {
	ctx := context.Background()
	hc := bench.HTTPClient(4)
	tools, err := bench.ReadTools(ctx, hc, rt.target)
	if err != nil {
		return err
	}
	cells, err := recordRequests(ctx, p.bin, rt, tools)
	if err != nil {
		return err
	}
	cs, watch, pid, err := connectServerCmd(ctx, p.bin, rt.target.URL, rt.target.Key)
	if err != nil {
		return err
	}
	defer cs.Close()
	const warm = 20
	for ci := range cells {
		c := &cells[ci]
		paths := []func() (time.Duration, error){
			func() (time.Duration, error) {
				t0 := time.Now()
				_, err := bench.Call(ctx, cs, c.tool.Name, c.tool.Args)
				return time.Since(t0), err
			},
			func() (time.Duration, error) {
				t0 := time.Now()
				err := bench.DirectCall(ctx, hc, rt.target, c.uris)
				return time.Since(t0), err
			},
		}
		if c.alonePos >= 0 {
			paths = append(paths, func() (time.Duration, error) {
				t0 := time.Now()
				err := bench.DirectCall(ctx, hc, rt.target, c.uris[c.alonePos:c.alonePos+1])
				return time.Since(t0), err
			})
		}
		cpu0, err0 := bench.ProcessCPU(pid)
		for i := -warm; i < p.readCalls; i++ {
			// Rotate which path goes first, so that neither always
			// follows the other.
			for k := range paths {
				j := (k + i + warm) % len(paths)
				d, err := paths[j]()
				if err != nil {
					return fmt.Errorf("%s: %w (server stderr: %s)", c.tool.Name, err, clipText(watch.String(), 300))
				}
				if i < 0 {
					continue
				}
				switch j {
				case 0:
					c.viaMCP = append(c.viaMCP, d)
				case 1:
					c.direct = append(c.direct, d)
				case 2:
					c.alone = append(c.alone, d)
				}
			}
		}
		c.serverCPU = -1
		if cpu1, err1 := bench.ProcessCPU(pid); err0 == nil && err1 == nil {
			c.serverCPU = (cpu1 - cpu0) / time.Duration(p.readCalls+warm)
		}
	}
	sec := "4 overhead per call, " + rt.label
	var a strings.Builder
	fmt.Fprintf(&a, "Read tools against %s (%d calls per path, interleaved call by call):\n\n", rt.label, p.readCalls)
	a.WriteString("| tool | through MCP: median / p95 | direct: median / p95 | requests per call: MCP / direct | MCP ÷ direct (median) | server CPU per call |\n|---|---|---|---|---|---|\n")
	for _, c := range cells {
		ratio := float64(c.viaMCP.Median()) / float64(c.direct.Median())
		reqs := fmt.Sprintf("%d / %d", c.requests, len(c.uris))
		if len(c.uris) > 1 {
			reqs += " (at once)"
		}
		t.add(sec, c.tool.What+": through MCP ÷ direct, median; requests per call",
			fmt.Sprintf("%.2f× (%s / %s); %s", ratio, us(c.viaMCP.Median()), us(c.direct.Median()), reqs), "≤ 1.15×", ptr(ratio <= 1.15))
		cpu := "–"
		if c.serverCPU >= 0 {
			cpu = us(c.serverCPU)
		}
		fmt.Fprintf(&a, "| %s | %s / %s | %s / %s | %s | %.2f× | %s |\n", c.tool.What, us(c.viaMCP.Median()), us(c.viaMCP.Quantile(0.95)),
			us(c.direct.Median()), us(c.direct.Quantile(0.95)), reqs, ratio, cpu)
		if c.alonePos >= 0 {
			r := float64(c.viaMCP.Median()) / float64(c.alone.Median())
			t.add(sec, c.tool.What+": through MCP ÷ the page request alone (without the progress), median", fmt.Sprintf("%.2f× (%s / %s)", r, us(c.viaMCP.Median()), us(c.alone.Median())), "", nil)
			fmt.Fprintf(&a, "| (the page request alone) | | %s / %s | – / 1 | %.2f× | |\n", us(c.alone.Median()), us(c.alone.Quantile(0.95)), r)
		}
	}
	t.appendix = append(t.appendix, a.String())
	t.notes = append(t.notes, rt.note)
	if !costNoted {
		costNoted = true
		t.notes = append(t.notes, "What a call through MCP adds to its direct request(s), where a ratio misses 1.15×: a cost about the same for every tool — "+
			"two more hops between processes over pipes (driver → server, server → driver), go-sdk's JSON-RPC decoding and encoding at both ends "+
			"(it decodes each message through a fresh 32 kB buffer, several times per call), the client decoding the result — and the server "+
			"decoding and projecting Audiobookshelf's answer, which grows with the answer (server CPU per call, in the tables below). Against an "+
			"answer that takes a fraction of a millisecond (`list_libraries`, `get_me` on the stand-in) the fixed part is most of the call. "+
			"`go test -run '^$' -bench ReadToolsReplayed -cpuprofile cpu.out ./bench` profiles the server's own part in process.")
	}
	return nil
}

// costNoted keeps the note on what a call adds to one copy per table.
var costNoted bool

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// realTarget takes AUDIOBOOKSHELF_URL and AUDIOBOOKSHELF_API_KEY out of
// this process's environment (and every variable whose value holds the key,
// such as MAKEFLAGS when make was given the key), so that no process
// started from here inherits them; only the measured server gets them,
// explicitly. ok is false when no URL is set.
func realTarget() (bench.Target, bool, error) {
	u, key := os.Getenv("AUDIOBOOKSHELF_URL"), os.Getenv("AUDIOBOOKSHELF_API_KEY")
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if k == "AUDIOBOOKSHELF_URL" || k == "AUDIOBOOKSHELF_API_KEY" || (key != "" && strings.Contains(v, key)) {
			os.Unsetenv(k)
		}
	}
	if u == "" {
		if key != "" {
			return bench.Target{}, false, fmt.Errorf("AUDIOBOOKSHELF_API_KEY is set without AUDIOBOOKSHELF_URL: give both to measure a real server, or neither")
		}
		return bench.Target{}, false, nil
	}
	if key == "" {
		return bench.Target{}, false, fmt.Errorf("AUDIOBOOKSHELF_URL is set without AUDIOBOOKSHELF_API_KEY: the read tools need a key")
	}
	return bench.Target{URL: strings.TrimRight(u, "/"), Key: key}, true, nil
}

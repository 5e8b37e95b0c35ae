// Command audiobookshelf-mcp is an MCP server for an Audiobookshelf
// library. It speaks MCP over stdio (the default, for desktop clients) or
// over streamable HTTP (--http, for hubs and gateways), and reads its
// configuration from the environment; over stdio, stdout carries only the
// protocol, and every log line goes to stderr.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/docs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/registry"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/app"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/handoff"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// version is set at build time with -ldflags "-X main.version=..." (make
// build and make release stamp the release tag's version, or
// 0.0.0-dev+COMMIT); `go install ...@v1.2.3` gives the module's version
// instead (moduleVersion).
var version = "0.0.0-dev"

// ElicitationOffLine is printed once at start when ELICITATION=false.
const ElicitationOffLine = "audiobookshelf-mcp: ELICITATION=false — guarded tools fall back to the two-call token"

func main() {
	// A handed-off child (below) first reads the secret variables from the
	// pipe its parent passed it, into its environment, where the
	// configuration is read from as always.
	if err := handoff.Receive(handoff.ProcessEnv, handoff.Bound); err != nil {
		fmt.Fprintf(os.Stderr, "audiobookshelf-mcp: %s is set, but the settings the parent process hands over could not be read: %v\n", handoff.Var, err)
		os.Exit(1)
	}
	// The bundle's x64 Windows executable on an Arm machine: the native
	// one serves instead (arm64.go).
	if code, handedOff := handOffToARM64(); handedOff {
		os.Exit(code)
	}
	version = moduleVersion(version)
	tuneGC(os.Getenv)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// Flag documents one command-line flag; the README's flag table is this
// table (a test compares them, and that every flag here is defined).
type Flag struct {
	// Usage is the line in --help; Meaning is the reference's full text.
	Name, Arg, Default, Usage, Meaning string
}

// Flags is every flag, in the order of the reference.
var Flags = []Flag{
	{"--http", "ADDR", "(stdio)", "serve MCP over streamable HTTP at http://ADDR/mcp (an empty host is 127.0.0.1)", "Serve MCP over streamable HTTP at http://ADDR/mcp instead of stdio. ADDR is host:port; an empty host means 127.0.0.1 (--http :8080), port 0 picks a free port. A host that is not loopback (0.0.0.0, a LAN address) needs authentication: without AUDIOBOOKSHELF_MCP_TOKEN, per-person keys (AUDIOBOOKSHELF_MCP_AUTH: each request brings its person's own Audiobookshelf key) or --gateway-authenticates, the server refuses to start there (exit 1) and says how to add it. A Host header other than localhost, an IP address or a name in AUDIOBOOKSHELF_MCP_ALLOWED_HOSTS gets 403 (DNS rebinding). Limits: headers must arrive within 10s and a body within 30s of them (else 408, and the connection is closed), a body is at most 4 MiB (413), a kept-alive connection with no request is closed after 2m; with sessions, a session with no request for 30m is closed (its client starts a new one) and at most 100 are open at once (then 503), and per person (each request bringing its own Audiobookshelf key) at most 10 of one Audiobookshelf user (then 429 for that user alone). Prints one line `audiobookshelf-mcp: listening on http://HOST:PORT/mcp` once it accepts. SIGINT or SIGTERM: stops accepting, lets calls in flight finish for up to 10s (a call waiting for the answer to a question ends at once, nothing changed; what still runs after 10s is cut off), exits 0. An ADDR that is not host:port: exit 2; one that cannot be bound: exit 1."},
	{"--stateless", "", "false", "with --http: no sessions (for gateways; older clients get the token path)", "With --http: no sessions, every request stands alone (for gateways and load balancers; set the same AUDIOBOOKSHELF_STATE_KEY on every instance). 2026-07-28 clients still get the approval dialog, through sealed state in the result; older clients get the two-call confirm_token, which says why. Without --http: exit 2."},
	{"--gateway-authenticates", "", "false", "with --http: the network in front authenticates every request (no token asked here)", "With --http on an address that is not loopback, no AUDIOBOOKSHELF_MCP_TOKEN and one server key: start anyway, because a gateway or reverse proxy in front authenticates every request before it reaches this server. Without it the server refuses to start open. Without --http: exit 2."},
	{"--demo", "", "false", "serve a built-in sample library from memory (nothing is written)", "Serve a built-in sample library from memory instead of a real Audiobookshelf (AUDIOBOOKSHELF_URL and AUDIOBOOKSHELF_API_KEY are ignored; nothing is written anywhere)."},
	{"--check", "", "false", "connect to Audiobookshelf once, say what was found, exit 0 (or 1 with the error)", "Connect to Audiobookshelf once with the configured URL and API key, as the tools would, and print what was found: the server's version, the key's user and how many libraries that user sees (the key itself is never printed). Exit 0; or print the error a tool call would give (what failed, what to do) and exit 1. A first step after setting the variables."},
	{"--version", "", "", "print the version", "Print the version and exit."},
	{"--help", "", "", "this text", "Print the usage, the flags and the variables, and exit."},
}

// Subcommands print a reference page of this build to stdout and exit.
var Subcommands = []Flag{
	{"tools", "", "", "print the tool reference", "Print the tool reference (docs/tools.md): every tool, its hints, guard and parameters."},
	{"guards", "", "", "print the guard table", "Print the guard table (docs/guards.md): which tools ask a person first, and what for."},
}

func usage(w io.Writer) {
	fmt.Fprintf(w, `audiobookshelf-mcp %s — an MCP server for your Audiobookshelf library

Usage:
  audiobookshelf-mcp [--demo]                          serve MCP over stdio (what desktop clients start)
  audiobookshelf-mcp --http ADDR [--stateless] [--gateway-authenticates] [--demo]
                                                       serve MCP over streamable HTTP at http://ADDR/mcp
  audiobookshelf-mcp --check                           connect to Audiobookshelf once and say what was found
  audiobookshelf-mcp tools                             print the tool reference
  audiobookshelf-mcp guards                            print the guard table
  audiobookshelf-mcp --version | --help

Flags:
`, version)
	for _, f := range Flags {
		name := f.Name
		if f.Arg != "" {
			name += " " + f.Arg
		}
		fmt.Fprintf(w, "  %-12s %s\n", name, f.Usage)
	}
	fmt.Fprintln(w, "\nEnvironment:")
	for _, v := range config.Vars {
		fmt.Fprintf(w, "  %-28s default %s; %s\n", v.Name, v.Default, v.Allowed)
	}
	def, all := ToolCounts()
	fmt.Fprintf(w, "\nTools: %d listed by default (%s; list_toolsets, enable_toolset and call_tool reach the rest in the same conversation), %d with every toolset (AUDIOBOOKSHELF_TOOLSETS=all) (audiobookshelf-mcp tools); guarded tools ask the person first (audiobookshelf-mcp guards).\n", def, strings.Join(config.DefaultTools(), ", "), all)
}

// ToolCounts counts the registry: what tools/list holds with no
// AUDIOBOOKSHELF_TOOLSETS (the default tools and the discovery tools), and
// every tool. Every count the program prints comes from here or from the
// tools a server lists.
func ToolCounts() (byDefault, all int) {
	return len(app.Listed(false, nil)), len(registry.All)
}

// options are the parsed command line.
type options struct {
	version, demo, stateless, gatewayAuth, check bool
	http                                         string
}

func newFlagSet(stderr io.Writer, o *options) *flag.FlagSet {
	fs := flag.NewFlagSet("audiobookshelf-mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { usage(stderr) }
	fs.BoolVar(&o.version, "version", false, "print the version")
	fs.BoolVar(&o.demo, "demo", false, "serve a built-in sample library from memory")
	fs.BoolVar(&o.check, "check", false, "connect to Audiobookshelf once and say what was found")
	fs.StringVar(&o.http, "http", "", "serve MCP over streamable HTTP at http://ADDR/mcp")
	fs.BoolVar(&o.stateless, "stateless", false, "with --http: no sessions")
	fs.BoolVar(&o.gatewayAuth, "gateway-authenticates", false, "with --http: the network in front authenticates every request")
	return fs
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "tools" || args[0] == "guards") {
		if len(args) > 1 {
			fmt.Fprintf(stderr, "audiobookshelf-mcp %s: unexpected argument %q; see --help\n", args[0], args[1])
			return 2
		}
		page := docs.Guards
		if args[0] == "tools" {
			page = docs.Tools
		}
		io.WriteString(stdout, Page(page))
		return 0
	}
	var o options
	fs := newFlagSet(stderr, &o)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "audiobookshelf-mcp: unexpected argument %q; see --help\n", fs.Arg(0))
		return 2
	}
	if o.version {
		fmt.Fprintf(stdout, "audiobookshelf-mcp %s\n", version)
		return 0
	}
	var listenAddr string
	httpSet := false
	fs.Visit(func(f *flag.Flag) { httpSet = httpSet || f.Name == "http" })
	if httpSet {
		a, err := parseListenAddr(o.http)
		if err != nil {
			fmt.Fprintln(stderr, "audiobookshelf-mcp:", err)
			return 2
		}
		listenAddr = a
	}
	if o.stateless && listenAddr == "" {
		fmt.Fprintln(stderr, "audiobookshelf-mcp: --stateless needs --http ADDR (over stdio there is one client and one session)")
		return 2
	}
	if o.check && listenAddr != "" {
		fmt.Fprintln(stderr, "audiobookshelf-mcp: --check connects to Audiobookshelf once and exits; it serves nothing, so --http does not go with it")
		return 2
	}
	if o.gatewayAuth && listenAddr == "" {
		fmt.Fprintln(stderr, "audiobookshelf-mcp: --gateway-authenticates needs --http ADDR (over stdio the client that starts the server is the only one)")
		return 2
	}

	getenv, lookup, unsetenv := config.Getenv()
	cfg, err := config.FromEnv(getenv, lookup, unsetenv)
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			fmt.Fprintln(stderr, "audiobookshelf-mcp:", line)
		}
		return 1
	}
	logger := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	for _, w := range cfg.Warnings {
		fmt.Fprintln(stderr, "audiobookshelf-mcp: warning:", w)
	}
	if cfg.MCPToken != "" && listenAddr == "" {
		fmt.Fprintln(stderr, "audiobookshelf-mcp: warning: AUDIOBOOKSHELF_MCP_TOKEN is set but only --http uses it; over stdio it is ignored")
	}
	if !cfg.Elicitation {
		fmt.Fprintln(stderr, ElicitationOffLine)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if o.demo {
		sd := standin.New(standin.Options{}).ForgetRequests() // nothing reads its request log here
		url, err := sd.Listen("127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(stderr, "audiobookshelf-mcp: demo:", err)
			return 1
		}
		defer sd.Close()
		cfg.URL, cfg.APIKey = url, standin.DefaultAPIKey
		if cfg.Auth == config.AuthPerPerson {
			cfg.APIKey = "" // each person sends one of the sample's keys
		}
		fmt.Fprintf(stderr, "audiobookshelf-mcp: DEMO MODE — a built-in sample library served from memory at %s; nothing is written anywhere, and everything is gone when the server stops\n", url)
		if cfg.Auth == config.AuthPerPerson {
			fmt.Fprintf(stderr, "audiobookshelf-mcp: DEMO MODE, per person: the sample's people send these keys: %s (root, every permission), %s (partner, no delete), %s (listener, no update and no delete)\n",
				standin.DefaultAPIKey, standin.PartnerAPIKey, standin.ListenerAPIKey)
		}
	}
	if o.check {
		// --check uses the configured key, whatever AUDIOBOOKSHELF_MCP_AUTH
		// says (per person there is none, and it says so).
		return check(ctx, cfg, stdout, stderr)
	}
	if err := cfg.ResolveAuth(listenAddr != ""); err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			fmt.Fprintln(stderr, "audiobookshelf-mcp:", line)
		}
		return 1
	}

	// Over stdio a key Audiobookshelf refuses is a setup error: the server
	// exits with it, so that the client shows a failed start (issue 41).
	if listenAddr == "" && !o.demo && cfg.URL != "" && cfg.APIKey != "" && !cfg.PerPerson {
		if msg := refusedKey(ctx, cfg); msg != "" {
			fmt.Fprintln(stderr, "audiobookshelf-mcp:", msg)
			return 1
		}
	}
	srv, err := app.New(app.Options{Config: cfg, Version: version, Logger: logger, Stateless: o.stateless})
	if err != nil {
		fmt.Fprintln(stderr, "audiobookshelf-mcp:", err)
		return 1
	}
	mode := "read and write"
	if cfg.ReadOnly {
		mode = "read-only (AUDIOBOOKSHELF_READ_ONLY=true)"
	}
	target := "not configured (set AUDIOBOOKSHELF_URL and AUDIOBOOKSHELF_API_KEY; every call explains the setup)"
	if cfg.URL != "" {
		target = cfg.URL
		if cfg.PerPerson {
			target += " (per person: each request brings its person's own Audiobookshelf API key; this server holds none)"
		} else if cfg.APIKey == "" {
			target += " (no AUDIOBOOKSHELF_API_KEY: calls that need it explain the setup)"
		}
	}
	_, all := ToolCounts()
	rest := "every toolset is on"
	if app.Discovers(cfg.ReadOnly, cfg.Toolsets) {
		rest = "the others one call_tool away"
	}
	fmt.Fprintf(stderr, "audiobookshelf-mcp %s: %d tools listed (of %d in every toolset; %s; AUDIOBOOKSHELF_TOOLSETS and AUDIOBOOKSHELF_READ_ONLY choose), %s; Audiobookshelf: %s\n", version, len(app.Listed(cfg.ReadOnly, cfg.Toolsets)), all, rest, mode, target)
	defer srv.Close()
	if !cfg.ReadOnly {
		fmt.Fprintln(stderr, "audiobookshelf-mcp:", srv.KeyLine(len(cfg.StateKey) > 0))
		line, warning := srv.ApprovalStoreLine(ctx)
		fmt.Fprintln(stderr, "audiobookshelf-mcp:", line)
		if warning != "" {
			fmt.Fprintln(stderr, "audiobookshelf-mcp: warning:", warning)
		}
	}

	if listenAddr != "" {
		return serveHTTP(ctx, stop, srv, httpConfig{addr: listenAddr, gatewayAuth: o.gatewayAuth, opts: app.HTTPOptions{
			BearerToken: cfg.MCPToken, AllowedHosts: cfg.AllowedHosts, PerPerson: cfg.PerPerson,
		}}, stderr, logger)
	}
	// When stdin ends, what was read is still answered: for as long as a
	// call can take (each of its requests is bounded by the timeout).
	drain := 2*cfg.Timeout + 10*time.Second
	if err := srv.MCP.Run(ctx, app.StdioTransport(os.Stdin, os.Stdout, drain)); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "audiobookshelf-mcp:", err)
		return 1
	}
	return 0
}

// Page is a generated reference page as the subcommands print it: without
// its first line, the "Code generated" comment meant for the repository.
func Page(md string) string {
	if strings.HasPrefix(md, "<!--") {
		if _, rest, ok := strings.Cut(md, "\n"); ok {
			return strings.TrimLeft(rest, "\n")
		}
	}
	return md
}

// parseListenAddr checks --http's ADDR; an empty host becomes 127.0.0.1.
func parseListenAddr(v string) (string, error) {
	host, port, err := net.SplitHostPort(v)
	if err != nil || port == "" {
		return "", fmt.Errorf("--http %q: ADDR must be host:port, such as 127.0.0.1:8080 or :8080 (loopback) or 0.0.0.0:8080 (every interface)", v)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// listenURLHost is host:port for the listening line: the host as it was
// given (0.0.0.0 stays 0.0.0.0; Go reports a bind to every IPv4 interface
// as [::] on a dual-stack machine) with the port that was bound, when it is
// an address.
func listenURLHost(addr string, bound *net.TCPAddr) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || net.ParseIP(host) == nil {
		return bound.String() // a name (localhost): the address it resolved to
	}
	return net.JoinHostPort(host, strconv.Itoa(bound.Port))
}

// ShutdownGrace is how long calls in flight may take after SIGINT or SIGTERM.
const ShutdownGrace = 10 * time.Second

// serveHTTP serves srv over streamable HTTP until ctx ends, then shuts down
// gracefully: no new connections, calls in flight finish (up to
// ShutdownGrace), then the sessions' open streams are closed.
func serveHTTP(ctx context.Context, stop func(), srv *app.Server, hc httpConfig, stderr io.Writer, logger *slog.Logger) int {
	addr, token := hc.addr, hc.opts.BearerToken
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(stderr, "audiobookshelf-mcp: --http %s: %v\n", addr, err)
		return 1
	}
	bound := ln.Addr().(*net.TCPAddr)
	if !bound.IP.IsLoopback() && !hc.opts.PerPerson {
		if token == "" && !hc.gatewayAuth {
			ln.Close()
			fmt.Fprintf(stderr, "audiobookshelf-mcp: --http %s listens on an address other than loopback, and nothing asks who is calling: anyone who can reach it could use the tools with this server's Audiobookshelf key. Not starting. Add authentication: set AUDIOBOOKSHELF_MCP_TOKEN (make one with: openssl rand -hex 32; clients send it as Authorization: Bearer), or serve each person with their own Audiobookshelf key (unset AUDIOBOOKSHELF_API_KEY, or AUDIOBOOKSHELF_MCP_AUTH=per-person; each client sends its person's key as Authorization: Bearer), or, when a gateway or reverse proxy in front authenticates every request, pass --gateway-authenticates. Or listen on loopback only (--http 127.0.0.1:PORT)\n", addr)
			return 1
		}
		w := fmt.Sprintf("--http %s listens on an address other than loopback: anyone who can reach it and authenticate can use the tools with this server's Audiobookshelf key", addr)
		if token == "" {
			w += "; no token is asked here (--gateway-authenticates): the gateway in front must authenticate every request"
		}
		fmt.Fprintln(stderr, "audiobookshelf-mcp: warning:", w)
	}
	var calls inflight
	hs := app.NewHTTPServer(calls.wrap(srv.HTTPHandler(hc.opts)), hc.opts, slog.NewLogLogger(logger.Handler(), slog.LevelWarn))
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	mode := "sessions for clients that initialize (MCP 2025-11-25 and older), 2026-07-28 without a session"
	if srv.Stateless {
		mode = "stateless"
	}
	auth := "no token asked"
	if hc.gatewayAuth && token == "" {
		auth = "no token asked (--gateway-authenticates)"
	}
	if token != "" {
		auth = "bearer token from AUDIOBOOKSHELF_MCP_TOKEN required"
	}
	if hc.opts.PerPerson {
		auth = "per person: each request must bring its person's own Audiobookshelf API key as the bearer"
	}
	fmt.Fprintf(stderr, "audiobookshelf-mcp: streamable HTTP, %s, %s\n", mode, auth)
	fmt.Fprintf(stderr, "audiobookshelf-mcp: listening on http://%s%s\n", listenURLHost(addr, bound), app.MCPPath)

	select {
	case err := <-served:
		fmt.Fprintln(stderr, "audiobookshelf-mcp:", err)
		return 1
	case <-ctx.Done():
	}
	stop() // a second signal ends the process at once
	fmt.Fprintf(stderr, "audiobookshelf-mcp: shutting down: no new connections; waiting up to %s for %d call(s) in flight\n", ShutdownGrace, calls.n.Load())
	// A question waiting for a person cannot be answered in time: its call
	// ends now, saying so, with nothing changed.
	srv.StopAsking()
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownGrace)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- hs.Shutdown(sctx) }()
	calls.wait(sctx)
	// What is left open are the sessions' GET streams: closing the sessions
	// ends them, and with them the connections Shutdown waits for. Closing a
	// session waits for its calls still running, so it is bounded by the
	// grace period too: whatever a handler waits on, the process ends.
	closed := make(chan struct{})
	go func() {
		for ss := range srv.MCP.Sessions() {
			ss.Close()
		}
		close(closed)
	}()
	select {
	case <-closed:
	case <-sctx.Done():
	}
	left := calls.n.Load()
	if err := <-done; err != nil || left > 0 {
		hs.Close()
		fmt.Fprintf(stderr, "audiobookshelf-mcp: %d call(s) still running after %s were cut off\n", left, ShutdownGrace)
	}
	fmt.Fprintln(stderr, "audiobookshelf-mcp: stopped")
	return 0
}

// httpConfig is what serveHTTP serves.
type httpConfig struct {
	addr        string
	gatewayAuth bool // --gateway-authenticates
	opts        app.HTTPOptions
}

// inflight counts the requests that carry calls (everything but the GET
// streams, which stay open for as long as a session does).
type inflight struct{ n atomic.Int64 }

func (f *inflight) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			f.n.Add(1)
			defer f.n.Add(-1)
		}
		h.ServeHTTP(w, r)
	})
}

// wait returns when no call is in flight or ctx ends.
func (f *inflight) wait(ctx context.Context) {
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for f.n.Load() > 0 {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

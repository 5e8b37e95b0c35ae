// Command audiobookshelf-mcp is an MCP server for an Audiobookshelf
// library. It speaks MCP over stdio (the default, for desktop clients) and
// reads its configuration from the environment; stdout carries only the
// protocol, every log line goes to stderr.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/registry"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/app"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// ElicitationOffLine is printed once at start when ELICITATION=false.
const ElicitationOffLine = "audiobookshelf-mcp: ELICITATION=false — guarded tools fall back to the two-call token"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func usage(w io.Writer) {
	fmt.Fprintf(w, `audiobookshelf-mcp %s — an MCP server for your Audiobookshelf library

Usage:
  audiobookshelf-mcp [--demo]     serve MCP over stdio (what desktop clients start)
  audiobookshelf-mcp --version    print the version
  audiobookshelf-mcp --help       this text

Flags:
  --demo   run against a built-in sample library in memory instead of a real
           Audiobookshelf (no configuration needed; nothing is written)

Environment:
`, version)
	for _, v := range config.Vars {
		fmt.Fprintf(w, "  %-28s default %s; %s\n", v.Name, v.Default, v.Allowed)
	}
	fmt.Fprintf(w, "\nTools: %d (see docs/tools.md); guarded tools ask the person first (docs/guards.md).\n", len(registry.All))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("audiobookshelf-mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { usage(stderr) }
	showVersion := fs.Bool("version", false, "print the version")
	demo := fs.Bool("demo", false, "serve a built-in sample library from memory")
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
	if *showVersion {
		fmt.Fprintf(stdout, "audiobookshelf-mcp %s\n", version)
		return 0
	}

	getenv, lookup, unsetenv := config.Getenv()
	cfg, err := config.FromEnv(getenv, lookup, unsetenv)
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			fmt.Fprintln(stderr, "audiobookshelf-mcp:", line)
		}
		return 1
	}
	logger := slog.New(slog.NewJSONHandler(stderr, nil))
	for _, w := range cfg.Warnings {
		fmt.Fprintln(stderr, "audiobookshelf-mcp: warning:", w)
	}
	if !cfg.Elicitation {
		fmt.Fprintln(stderr, ElicitationOffLine)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if *demo {
		sd := standin.New(standin.Options{})
		url, err := sd.Listen("127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(stderr, "audiobookshelf-mcp: demo:", err)
			return 1
		}
		defer sd.Close()
		cfg.URL, cfg.APIKey = url, standin.DefaultAPIKey
		fmt.Fprintf(stderr, "audiobookshelf-mcp: DEMO MODE — a built-in sample library served from memory at %s; nothing is written anywhere, and everything is gone when the server stops\n", url)
	}

	srv, err := app.New(app.Options{Config: cfg, Version: version, Logger: logger})
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
		if cfg.APIKey == "" {
			target += " (no AUDIOBOOKSHELF_API_KEY: calls that need it explain the setup)"
		}
	}
	fmt.Fprintf(stderr, "audiobookshelf-mcp %s: %d tools, %s; Audiobookshelf: %s\n", version, len(srv.Tools), mode, target)

	if err := srv.MCP.Run(ctx, &mcp.StdioTransport{}); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "audiobookshelf-mcp:", err)
		return 1
	}
	return 0
}

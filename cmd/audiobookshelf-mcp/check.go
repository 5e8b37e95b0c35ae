package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
)

// check is --check: one connection to Audiobookshelf, as the tools make
// it, and what it found on stdout (exit 0) or the error on stderr (exit 1).
// The API key is in neither: errors are the tools' own, which never carry
// it.
func check(ctx context.Context, cfg *config.Config, stdout, stderr io.Writer) int {
	d, err := kit.NewDeps(kit.Options{URL: cfg.URL, APIKey: cfg.APIKey, Timeout: cfg.Timeout, InsecureTLS: cfg.InsecureTLS})
	if err != nil {
		fmt.Fprintln(stderr, "audiobookshelf-mcp: check failed:", err)
		return 1
	}
	r, err := d.Check(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "audiobookshelf-mcp: check failed:", err)
		return 1
	}
	fmt.Fprintf(stdout, "audiobookshelf-mcp %s: Audiobookshelf at %s answers\n", version, r.URL)
	fmt.Fprintf(stdout, "  server version: %s\n", orUnknown(r.ServerVersion))
	fmt.Fprintf(stdout, "  user:           %s (%s)\n", r.Username, r.UserType)
	names := r.LibraryNames
	more := ""
	if len(names) > 10 {
		more = fmt.Sprintf(" and %d more", len(names)-10)
		names = names[:10]
	}
	list := ""
	if len(names) > 0 {
		list = ": " + strings.Join(names, ", ") + more
	}
	fmt.Fprintf(stdout, "  libraries:      %d%s\n", r.Libraries, list)
	for _, l := range r.Lacks {
		fmt.Fprintf(stdout, "  lacks:          %s\n", l)
	}
	if r.Libraries == 0 {
		fmt.Fprintln(stdout, "OK, but this user sees no library: give it access to one in Audiobookshelf (Settings → Users), or add a library.")
		return 0
	}
	fmt.Fprintln(stdout, "OK: the tools can reach it with this API key.")
	return 0
}

func orUnknown(s string) string {
	if s == "" {
		return "(not said)"
	}
	return s
}

// moduleVersion is the version to report when none was stamped: the
// module's own when the binary was built by `go install ...@v1.2.3`.
func moduleVersion(stamped string) string {
	if stamped != "0.0.0-dev" {
		return stamped
	}
	if bi, ok := debug.ReadBuildInfo(); ok && strings.HasPrefix(bi.Main.Version, "v") {
		return strings.TrimPrefix(bi.Main.Version, "v")
	}
	return stamped
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"runtime/debug"
	"strings"
	"time"

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
		msg := err.Error()
		var wrong *kit.WrongPathError
		if errors.As(err, &wrong) {
			msg += rootAnswers(ctx, cfg)
		}
		fmt.Fprintln(stderr, "audiobookshelf-mcp: check failed:", msg)
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

// rootAnswers is, when AUDIOBOOKSHELF_URL has a path and Audiobookshelf
// answers at the same address without it, the sentence that says to set
// that; "" otherwise.
func rootAnswers(ctx context.Context, cfg *config.Config) string {
	u, err := url.Parse(cfg.URL)
	if err != nil || u.Path == "" || u.Path == "/" {
		return ""
	}
	root := u.Scheme + "://" + u.Host
	d, err := kit.NewDeps(kit.Options{URL: root, APIKey: cfg.APIKey, Timeout: cfg.Timeout, InsecureTLS: cfg.InsecureTLS, Backoff: []time.Duration{}})
	if err != nil {
		return ""
	}
	// It answers when the check passes there, or gets as far as refusing
	// the key (then that is the next thing to fix).
	if _, err := d.Check(ctx); err != nil && !strings.Contains(err.Error(), "refused the API key") {
		return ""
	}
	return fmt.Sprintf(" Audiobookshelf answers at %s: set AUDIOBOOKSHELF_URL=%s.", root, root)
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

// startupKeyWait bounds the start-up check of the key: a server that does
// not answer by then is left to the calls (it may come back).
const startupKeyWait = 5 * time.Second

// refusedKey is, over stdio, the one request at start-up that tells a key
// Audiobookshelf refuses (401) from everything else: the error to exit
// with, or "" when Audiobookshelf took the key, or could not be asked (an
// unreachable server, a timeout, any other answer stays an error of each
// call, as it may be passing). A client shows a server that exits at start
// as failed; one that starts with a wrong key shows as connected, and every
// call fails. The key is never in the text.
func refusedKey(ctx context.Context, cfg *config.Config) string {
	d, err := kit.NewDeps(kit.Options{URL: cfg.URL, APIKey: cfg.APIKey, Timeout: min(cfg.Timeout, startupKeyWait), InsecureTLS: cfg.InsecureTLS, Backoff: []time.Duration{}})
	if err != nil {
		return ""
	}
	_, _, err = d.ReadMe(ctx)
	var ke *kit.Error
	if !errors.As(err, &ke) || ke.Status != http.StatusUnauthorized {
		return ""
	}
	msg := strings.ReplaceAll(ke.Text, cfg.APIKey, "[the key]")
	return fmt.Sprintf("%s Then run audiobookshelf-mcp --check with the same variables: it says what it finds. (At %s.)", msg, cfg.URL)
}

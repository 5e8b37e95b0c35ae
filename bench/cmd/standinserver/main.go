// Command standinserver serves the Audiobookshelf stand-in on 127.0.0.1, as
// its own process, for the overhead table of bench/cmd/benchtable: the
// sample library with its books copied to 30 (so that a page of 25 is
// full), answering to standin.DefaultAPIKey. It prints one line,
// `standinserver: listening on http://HOST:PORT`, and serves until its
// standard input ends.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/bench"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

func main() {
	sd := standin.New(standin.Options{Data: bench.SeedLibrary(30), Now: standin.SampleNow})
	url, err := sd.Listen("127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "standinserver:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "standinserver: listening on %s\n", url)
	_, _ = io.Copy(io.Discard, os.Stdin)
	sd.Close()
}

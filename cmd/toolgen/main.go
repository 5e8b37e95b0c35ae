// Command toolgen generates the tool layer from tools.yaml and
// spec/audiobookshelf.yaml: gen/toolargs, gen/registry, docs/tools.md,
// docs/guards.md and packaging/mcpb/manifest.json. It refuses a manifest that does not check out, naming the
// tool and field. With -check it writes nothing and fails when a generated
// file is not current.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/toolgen"
)

func main() {
	root := flag.String("root", ".", "repository root")
	check := flag.Bool("check", false, "write nothing; exit 1 when a generated file is stale")
	flag.Parse()
	files, err := toolgen.Build(*root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolgen:", err)
		os.Exit(1)
	}
	if *check {
		if stale := toolgen.Stale(*root, files); len(stale) > 0 {
			fmt.Fprintf(os.Stderr, "toolgen: not current, run make generate: %s\n", strings.Join(stale, ", "))
			os.Exit(1)
		}
		return
	}
	if err := toolgen.Write(*root, files); err != nil {
		fmt.Fprintln(os.Stderr, "toolgen:", err)
		os.Exit(1)
	}
}

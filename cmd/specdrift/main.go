// Command specdrift compares the routes of an Audiobookshelf source tree or
// release archive with spec/audiobookshelf.yaml (`make spec-drift
// ABS_SRC=...`): routes the spec lacks, routes it has that the server no
// longer serves, and method changes. Exit 1 when a route a tool uses has
// gone or changed, 2 when the source or the spec cannot be read.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/specdrift"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/toolgen"
)

func main() {
	root := flag.String("root", ".", "repository root (spec/ and tools.yaml)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: specdrift [-root DIR] path/to/audiobookshelf (a source tree or a release .tar.gz)")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "specdrift:", err)
		os.Exit(2)
	}
	specPath := filepath.Join(*root, toolgen.SpecFile)
	spec, err := toolgen.LoadSpec(specPath)
	if err != nil {
		fail(err)
	}
	doc, err := openapi3.NewLoader().LoadFromFile(specPath)
	if err != nil {
		fail(err)
	}
	m, err := toolgen.Load(filepath.Join(*root, toolgen.ManifestFile))
	if err != nil {
		fail(err)
	}
	src, err := specdrift.Load(flag.Arg(0))
	if err != nil {
		fail(err)
	}
	r := specdrift.Compare(src, specdrift.SpecOps(spec, m), doc.Info.Version)
	r.Print(os.Stdout, toolgen.SpecFile, flag.Arg(0))
	if len(r.Breaking()) > 0 {
		os.Exit(1)
	}
}

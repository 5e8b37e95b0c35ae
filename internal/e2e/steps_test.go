package e2e

import (
	"strings"
	"testing"

	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/toolgen"
)

// The steps of adding a tool (CONTRIBUTING.md) that a test holds fail by
// name when one was skipped. This one is step 3: every operation a tool of
// tools.yaml calls has its route in the stand-in (internal/standin), which
// every test of a tool runs against.
func TestEveryToolOperationHasAStandinRoute(t *testing.T) {
	t.Parallel()
	m, err := toolgen.Load("../../tools.yaml")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := toolgen.LoadSpec("../../spec/audiobookshelf.yaml")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, tool := range m.Tools {
		for _, id := range tool.Operations {
			op := spec[id]
			if op == nil {
				t.Errorf("%s: operation %s is not in spec/audiobookshelf.yaml", tool.Name, id)
				continue
			}
			checked++
			if !sd.Serves(strings.ToUpper(op.Method), op.Path) {
				t.Errorf("%s: operation %s (%s %s) has no route in the stand-in: add it to internal/standin (apiRoutes in router.go, as Audiobookshelf's ApiRouter has it; CONTRIBUTING.md, Add a read tool)", tool.Name, id, op.Method, op.Path)
			}
		}
	}
	if checked < 60 {
		t.Fatalf("test bug: %d operations checked", checked)
	}
}

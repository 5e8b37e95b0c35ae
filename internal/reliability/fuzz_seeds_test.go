package reliability

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/registry"
)

// fuzzTarget finds a fuzz function in a package's test files and counts its
// seeds: f.Add calls, each called once or once per element of the literal
// list a for-range loop around it goes over.
func fuzzTarget(t *testing.T, dir, name string) (*ast.FuncDecl, int) {
	t.Helper()
	fset := token.NewFileSet()
	files, _ := filepath.Glob(filepath.Join("..", "..", dir, "*_test.go"))
	for _, path := range files {
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Name.Name != name {
				continue
			}
			seeds := 0
			var walk func(n ast.Node, times int)
			walk = func(n ast.Node, times int) {
				ast.Inspect(n, func(n ast.Node) bool {
					switch n := n.(type) {
					case *ast.RangeStmt:
						if lit, ok := n.X.(*ast.CompositeLit); ok {
							walk(n.Body, times*len(lit.Elts))
							return false
						}
					case *ast.FuncLit:
						return false // the fuzz function itself
					case *ast.CallExpr:
						if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Add" {
							if id, ok := sel.X.(*ast.Ident); ok && id.Name == "f" {
								seeds += times
							}
						}
					}
					return true
				})
			}
			walk(fn.Body, 1)
			return fn, seeds
		}
	}
	t.Fatalf("no %s in %s", name, dir)
	return nil, 0
}

// TestFuzzTargetsRunAsSeeds: the two fuzz targets exist with seeds, so
// `go test ./...` (what CI runs, with -race) runs every seed as a test; the
// argument fuzz target covers the decoder of every guarded tool.
func TestFuzzTargetsRunAsSeeds(t *testing.T) {
	t.Parallel()
	args, argSeeds := fuzzTarget(t, "argdec", "FuzzGuardedArguments")
	_, stateSeeds := fuzzTarget(t, "guard", "FuzzOpenState")
	if argSeeds < 10 || stateSeeds < 10 {
		t.Errorf("seeds: %d for the arguments, %d for the state", argSeeds, stateSeeds)
	}
	called := map[string]bool{}
	ast.Inspect(args, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && strings.HasPrefix(sel.Sel.Name, "Decode") {
			called[sel.Sel.Name] = true
		}
		return true
	})
	guarded := 0
	for _, tool := range registry.All {
		if tool.Guard == nil {
			continue
		}
		guarded++
		dec := "Decode"
		for _, part := range strings.Split(tool.Name, "_") {
			dec += strings.ToUpper(part[:1]) + part[1:]
		}
		if !called[dec] {
			t.Errorf("FuzzGuardedArguments does not call %s (guarded tool %s)", dec, tool.Name)
		}
	}
	t.Logf("%d guarded decoders fuzzed; seeds: %d arguments, %d request states", guarded, argSeeds, stateSeeds)
	figure(t, "fuzz seeds run on every test run", argSeeds+stateSeeds)
}

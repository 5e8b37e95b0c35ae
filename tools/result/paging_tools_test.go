package result_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/toolgen"
)

// Every list tool (a tool of tools.yaml that takes page) answers through
// the one paging helper, result.Page (or result.ListLibraryOrServer or
// orderedlist.Get, which end in it): its function in its toolset's
// package calls one of them, or a function of that package that calls
// result.Page (the curation audits answer through one).
func TestEveryListToolPagesWithPage(t *testing.T) {
	m, err := toolgen.Load("../../tools.yaml")
	if err != nil {
		t.Fatal(err)
	}
	lists := 0
	for _, tool := range m.Tools {
		pages := false
		for _, p := range tool.Params {
			pages = pages || p.Name == "page"
		}
		if !pages {
			continue
		}
		lists++
		name := toolgen.GoName(tool.Name)
		fn := findFunc(t, filepath.Join("..", tool.Toolset), name)
		if fn == nil {
			t.Errorf("%s: no func %s in tools/%s", tool.Name, name, tool.Toolset)
			continue
		}
		if !callsOneOf(fn, "result.Page", "result.ListLibraryOrServer", "orderedlist.Get") &&
			!callsHelperThatPages(t, filepath.Join("..", tool.Toolset), fn) {
			t.Errorf("%s (tools/%s, %s) takes page but does not answer through result.Page", tool.Name, tool.Toolset, name)
		}
	}
	if lists < 15 {
		t.Fatalf("test bug: %d list tools found", lists)
	}
	if fn := findFunc(t, filepath.Join("..", "orderedlist"), "Get"); fn == nil || !callsOneOf(fn, "result.Page") {
		t.Errorf("orderedlist.Get does not answer through result.Page")
	}
}

// callsHelperThatPages reports whether fn calls a function of its own
// package (the curation audits' answer, say) that calls result.Page.
func callsHelperThatPages(t *testing.T, dir string, fn *ast.FuncDecl) bool {
	found := false
	ast.Inspect(fn, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			f := c.Fun
			if ix, ok := f.(*ast.IndexExpr); ok {
				f = ix.X
			}
			if id, ok := f.(*ast.Ident); ok && id.Name != fn.Name.Name && !found {
				if h := findFunc(t, dir, id.Name); h != nil && callsOneOf(h, "result.Page") {
					found = true
				}
			}
		}
		return true
	})
	return found
}

// callsOneOf reports whether fn calls one of the functions named
// ("pkg.Func"), given its type arguments or not.
func callsOneOf(fn *ast.FuncDecl, names ...string) bool {
	called := false
	ast.Inspect(fn, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			f := c.Fun
			if ix, ok := f.(*ast.IndexExpr); ok {
				f = ix.X
			}
			if sel, ok := f.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok {
					for _, name := range names {
						called = called || x.Name+"."+sel.Sel.Name == name
					}
				}
			}
		}
		return true
	})
	return called
}

// findFunc is the declaration of func name in the package in dir.
func findFunc(t *testing.T, dir, name string) *ast.FuncDecl {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == name {
				return fd
			}
		}
	}
	return nil
}

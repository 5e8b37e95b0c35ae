package app

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/registry"
)

// A tool's permission and guard live in tools.yaml alone: the generated
// handlers (gen/registry) check the permission (kit.Deps.Permit) and ask
// the guard's question (guard.Question, Guard.Check). TestOneHomeForToolFacts
// reads the hand-written Go of tools/, internal/app and guard/ and fails,
// naming file and line, on anything that would make a second home: a
// permission named or checked by hand, a guard question or check written by
// hand, a tool's name used as a permission key.

// handWrittenDirs are the trees searched, from this package's directory.
var handWrittenDirs = []string{"../../tools", ".", "../../guard"}

// permissionish names a function that decides or explains a permission.
var permissionish = regexp.MustCompile(`(?i)perm|right|allow|lack|may|need|admin|deny|forbid|grant`)

// permissionWords are permission names and user types as Audiobookshelf
// spells them: compared by hand, they are a permission check.
var permissionWords = map[string]bool{"update": true, "delete": true, "download": true, "upload": true, "admin": true, "root": true,
	"canUpdate": true, "canDelete": true, "canDownload": true, "canUpload": true}

// personFlags are kit.Person's permission flags, read by Person.Has
// alone.
var personFlags = map[string]bool{"CanUpdate": true, "CanDelete": true, "CanDownload": true, "CanUpload": true}

func TestOneHomeForToolFacts(t *testing.T) {
	tools := map[string]bool{}
	for _, tool := range registry.All {
		tools[tool.Name] = true
	}
	var findings []string
	files := 0
	for _, dir := range handWrittenDirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if bytes.HasPrefix(src, []byte("// Code generated")) {
				return nil
			}
			files++
			findings = append(findings, secondHomes(t, path, src, tools)...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 40 {
		t.Fatalf("test bug: only %d hand-written files read", files)
	}
	for _, f := range findings {
		t.Error(f)
	}
}

// secondHomes lists what in one file states a tool's permission or guard
// outside tools.yaml.
func secondHomes(t *testing.T, path string, src []byte, tools map[string]bool) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, 0)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	// The names this file gives the permission and guard packages.
	permPkg, guardPkg := "", ""
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		name := p[strings.LastIndex(p, "/")+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		switch {
		case strings.HasSuffix(p, "/permission"):
			permPkg = name
		case strings.HasSuffix(p, "audiobookshelf-mcp/guard"):
			guardPkg = name
		}
	}
	inGuard := f.Name.Name == "guard"
	var out []string
	report := func(n ast.Node, format string, a ...any) {
		out = append(out, fmt.Sprintf("%s: %s", fset.Position(n.Pos()), fmt.Sprintf(format, a...)))
	}
	toolName := func(e ast.Expr) (string, bool) {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(lit.Value)
		return s, err == nil && tools[s]
	}
	word := func(e ast.Expr) (string, bool) {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(lit.Value)
		return s, err == nil && permissionWords[s]
	}
	// Person.Has, the one reader of the flags.
	var flagReader *ast.FuncDecl
	for _, decl := range f.Decls {
		if fd, ok := decl.(*ast.FuncDecl); ok && fd.Recv != nil && fd.Name.Name == "Has" {
			if id, ok := fd.Recv.List[0].Type.(*ast.Ident); ok && id.Name == "Person" {
				flagReader = fd
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && permPkg != "" && x.Name == permPkg && n.Sel.Name != "Name" && n.Sel.Name != "User" {
				report(n, "%s.%s: a permission named by hand; a tool's permission is tools.yaml's `permission:` and reaches code only through gen/registry", permPkg, n.Sel.Name)
			}
			if personFlags[n.Sel.Name] && (flagReader == nil || n.Pos() < flagReader.Pos() || n.Pos() > flagReader.End()) {
				report(n, ".%s: a permission flag read by hand; Permit (through Person.Has) is the one check", n.Sel.Name)
			}
			if n.Sel.Name == "Permit" {
				report(n, "Permit called by hand: the generated handler checks a tool's permission, from tools.yaml")
			}
			if n.Sel.Name == "Check" {
				if inner, ok := n.X.(*ast.SelectorExpr); ok && inner.Sel.Name == "Guard" {
					report(n, "Guard.Check called by hand: the generated handler asks a guarded tool's question, from tools.yaml's guard")
				}
			}
		case *ast.CompositeLit:
			switch ty := n.Type.(type) {
			case *ast.SelectorExpr:
				if x, ok := ty.X.(*ast.Ident); ok && guardPkg != "" && x.Name == guardPkg && ty.Sel.Name == "Question" {
					report(n, "a guard question written by hand: a tool's guard is tools.yaml's, asked by the generated handler")
				}
			case *ast.Ident:
				if inGuard && ty.Name == "Question" {
					report(n, "a guard question written by hand")
				}
			case *ast.MapType:
				for _, el := range n.Elts {
					if kv, ok := el.(*ast.KeyValueExpr); ok {
						if s, ok := toolName(kv.Key); ok {
							report(kv, "tool name %q as a map key: a tool's facts are keyed in tools.yaml", s)
						}
					}
				}
			}
		case *ast.BinaryExpr:
			if n.Op == token.EQL || n.Op == token.NEQ {
				for _, e := range []ast.Expr{n.X, n.Y} {
					if s, ok := toolName(e); ok {
						report(e, "tool name %q compared by hand: what sets a tool apart belongs in tools.yaml", s)
					}
					if s, ok := word(e); ok {
						report(e, "%q compared by hand: a permission check; a tool's permission is tools.yaml's and Permit checks it", s)
					}
				}
			}
		case *ast.CaseClause:
			for _, e := range n.List {
				if s, ok := toolName(e); ok {
					report(e, "tool name %q as a case: what sets a tool apart belongs in tools.yaml", s)
				}
				if s, ok := word(e); ok {
					report(e, "%q as a case: a permission check; a tool's permission is tools.yaml's", s)
				}
			}
		case *ast.CallExpr:
			name := ""
			switch fn := n.Fun.(type) {
			case *ast.Ident:
				name = fn.Name
			case *ast.SelectorExpr:
				name = fn.Sel.Name
			}
			if permissionish.MatchString(name) {
				for _, a := range n.Args {
					if s, ok := toolName(a); ok {
						report(a, "tool name %q passed to %s: a tool's permission is tools.yaml's", s, name)
					}
					if s, ok := word(a); ok {
						report(a, "%q passed to %s: a permission written by hand", s, name)
					}
				}
			}
		}
		return true
	})
	return out
}

package toolgen

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
)

// CheckCode holds the manifest to the hand-written code it names, so that
// a step of adding a tool (CONTRIBUTING.md) that was skipped fails here, by
// name, instead of as a compile error in the generated registry: every
// toolset with tools has its package, tools/NAME (package NAME), and every
// tool its function there, named after it: GoName(tool) for a tool that
// never asks, "Plan"+GoName(tool) for a guarded one.
func CheckCode(root string, m *Manifest) error {
	funcs := map[string]map[string]bool{} // toolset → its package's functions
	var errs []error
	for _, ts := range m.Toolsets {
		dir := ToolsetDir(ts.Name)
		fs, pkg, err := packageFuncs(filepath.Join(root, dir))
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("toolset %s: %v", ts.Name, err))
		case pkg == "":
			if hasTools(m, ts.Name) {
				errs = append(errs, fmt.Errorf("tools.yaml: toolset %s has no package %s: make it, package %s, with a doc comment saying what belongs there (CONTRIBUTING.md, step 2)", ts.Name, dir, ts.Name))
			}
		case pkg != ts.Name:
			errs = append(errs, fmt.Errorf("%s is package %s: a toolset's package is named after it (package %s)", dir, pkg, ts.Name))
		default:
			funcs[ts.Name] = fs
		}
	}
	for i := range m.Tools {
		t := &m.Tools[i]
		fs, ok := funcs[t.Toolset]
		if !ok {
			continue // said above
		}
		typ := GoName(t.Name)
		want := fmt.Sprintf("func %s(ctx context.Context, d *kit.Deps, a toolargs.%s) (*mcp.CallToolResult, error)", typ, typ)
		name := typ
		if t.Guarded() {
			name = "Plan" + typ
			want = fmt.Sprintf("func %s(ctx context.Context, d *kit.Deps, a toolargs.%s) (*kit.Plan, error)", name, typ)
		}
		if !fs[name] {
			errs = append(errs, fmt.Errorf("tools.yaml: tool %s: %s has no %s: write it there (CONTRIBUTING.md, step 2)", t.Name, ToolsetDir(t.Toolset), want))
		}
		if t.Check && !fs["Check"+typ] {
			errs = append(errs, fmt.Errorf("tools.yaml: tool %s has check: true, and %s has no func Check%s(a toolargs.%s) error: write it there, or leave check out", t.Name, ToolsetDir(t.Toolset), typ, typ))
		}
	}
	for i := range m.Prompts {
		p := &m.Prompts[i]
		fs, ok := funcs[p.Toolset]
		if !ok {
			if p.Toolset != "" && !hasTools(m, p.Toolset) {
				errs = append(errs, fmt.Errorf("tools.yaml: prompt %s: toolset %s has no package %s: make it (CONTRIBUTING.md, Add a prompt)", p.Name, p.Toolset, ToolsetDir(p.Toolset)))
			}
			continue
		}
		if fn := PromptFunc(p); !fs[fn] {
			errs = append(errs, fmt.Errorf("tools.yaml: prompt %s: %s has no func %s(ctx context.Context, d *kit.Deps, a naming.PromptArgs) (string, error): write it there (CONTRIBUTING.md, Add a prompt)", p.Name, ToolsetDir(p.Toolset), fn))
		}
	}
	return errors.Join(errs...)
}

// PromptFunc is the function of a prompt's toolset package that writes
// its text: "Prompt" and the prompt's name (tidy_a_library:
// PromptTidyALibrary).
func PromptFunc(p *Prompt) string { return "Prompt" + GoName(p.Name) }

func hasTools(m *Manifest, toolset string) bool {
	for i := range m.Tools {
		if m.Tools[i].Toolset == toolset {
			return true
		}
	}
	return false
}

// packageFuncs lists the top-level functions of the Go package in dir
// (tests left out) and its name; "" when dir holds none.
func packageFuncs(dir string) (map[string]bool, string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	funcs := map[string]bool{}
	pkg := ""
	fset := token.NewFileSet()
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, "", err
		}
		pkg = f.Name.Name
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
				funcs[fd.Name.Name] = true
			}
		}
	}
	return funcs, pkg, nil
}

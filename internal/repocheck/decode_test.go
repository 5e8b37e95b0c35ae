package repocheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// isDecodeName reports whether a call of this name decodes and answers an
// error: Unmarshal… and Decode… (json.Unmarshal, absdata.Unmarshal,
// kit.Decode, a json.Decoder's Decode, base64's DecodeString, …), but not
// utf8's DecodeRune…, which answer no error.
func isDecodeName(name string) bool {
	return strings.HasPrefix(name, "Unmarshal") ||
		strings.HasPrefix(name, "Decode") && !strings.HasPrefix(name, "DecodeRune") && !strings.HasPrefix(name, "DecodeLastRune")
}

func isDecodeCall(e ast.Expr) bool {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return false
	}
	var name string
	switch f := call.Fun.(type) {
	case *ast.Ident:
		name = f.Name
	case *ast.SelectorExpr:
		name = f.Sel.Name
	case *ast.IndexExpr: // a generic function given its type: Decode[T](…)
		if s, ok := f.X.(*ast.SelectorExpr); ok {
			name = s.Sel.Name
		} else if id, ok := f.X.(*ast.Ident); ok {
			name = id.Name
		}
	}
	return isDecodeName(name)
}

func isBlank(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "_"
}

// droppedDecodes lists the places in src where a decode's error is thrown
// away: the call as a statement of its own (or behind go or defer), its
// error (the last result) assigned to _, or its error compared with nil in
// an if without an else, so a failed decode leaves the answer silently
// short. A decode whose error is returned, kept or acted on is not listed.
func droppedDecodes(path string, src []byte) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []string
	report := func(n ast.Node, how string) {
		out = append(out, fset.Position(n.Pos()).String()+": "+how)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.ExprStmt:
			if isDecodeCall(s.X) {
				report(s, "a decode called as a statement: its error is not read")
			}
		case *ast.GoStmt:
			if isDecodeCall(s.Call) {
				report(s, "a decode behind go: its error is not read")
			}
		case *ast.DeferStmt:
			if isDecodeCall(s.Call) {
				report(s, "a decode behind defer: its error is not read")
			}
		case *ast.AssignStmt:
			if len(s.Rhs) == 1 && isDecodeCall(s.Rhs[0]) && isBlank(s.Lhs[len(s.Lhs)-1]) {
				report(s, "a decode's error assigned to _")
			}
		case *ast.IfStmt:
			if s.Else == nil && !terminates(s.Body) && (comparesDecodeWithNil(s.Cond) || initErrWithNil(s)) {
				report(s, "a decode's error compared with nil, with nothing done when it is not nil")
			}
		}
		return true
	})
	return out, nil
}

// comparesDecodeWithNil reports whether cond holds `decode(…) == nil`,
// alone or joined by &&: the if's body runs only when the decode worked.
func comparesDecodeWithNil(cond ast.Expr) bool {
	b, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok {
		return false
	}
	switch b.Op {
	case token.LAND:
		return comparesDecodeWithNil(b.X) || comparesDecodeWithNil(b.Y)
	case token.EQL:
		return (isDecodeCall(b.X) && isNil(b.Y)) || (isDecodeCall(b.Y) && isNil(b.X))
	}
	return false
}

// initErrWithNil reports whether the if is `if err := decode(…); err ==
// nil {…}`.
func initErrWithNil(s *ast.IfStmt) bool {
	as, ok := s.Init.(*ast.AssignStmt)
	if !ok || len(as.Rhs) != 1 || !isDecodeCall(as.Rhs[0]) {
		return false
	}
	errVar, ok := as.Lhs[len(as.Lhs)-1].(*ast.Ident)
	if !ok {
		return false
	}
	b, ok := ast.Unparen(s.Cond).(*ast.BinaryExpr)
	for ok && b.Op == token.LAND {
		b, ok = ast.Unparen(b.X).(*ast.BinaryExpr)
	}
	if !ok || b.Op != token.EQL {
		return false
	}
	x, isID := b.X.(*ast.Ident)
	return isID && x.Name == errVar.Name && isNil(b.Y)
}

// terminates reports whether a block ends by leaving: then what follows
// the if is what is done when the decode failed, and nothing is dropped.
func terminates(b *ast.BlockStmt) bool {
	if len(b.List) == 0 {
		return false
	}
	switch s := b.List[len(b.List)-1].(type) {
	case *ast.ReturnStmt, *ast.BranchStmt:
		return true
	case *ast.ExprStmt:
		if c, ok := s.X.(*ast.CallExpr); ok {
			if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "panic" {
				return true
			}
		}
	case *ast.IfStmt:
		return s.Else != nil && terminates(s.Body) && (func() bool {
			if e, ok := s.Else.(*ast.BlockStmt); ok {
				return terminates(e)
			}
			return false
		})()
	}
	return false
}

func isNil(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "nil"
}

// notYetFixed names the hand-written files still dropping a decode error
// that this repository has not taken up yet, each with why. A file here
// that drops none any more fails the test, so the list only shrinks.
var notYetFixed = map[string]string{}

// TestNoDecodeErrorDropped holds every hand-written Go file (not gen/, not
// a _test.go) to reading the error of each decode it makes: a decode
// error dropped is an answer silently short or wrong.
func TestNoDecodeErrorDropped(t *testing.T) {
	root := repoRoot(t)
	cmd := exec.Command("git", "ls-files", "--cached", "--others", "--exclude-standard", "-z", "--", "*.go")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	files := 0
	still := map[string]bool{}
	for path := range strings.SplitSeq(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if path == "" || strings.HasPrefix(path, "gen/") || strings.HasSuffix(path, "_test.go") {
			continue
		}
		src, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			if os.IsNotExist(err) { // deleted in the work tree, not yet in the index
				continue
			}
			t.Fatal(err)
		}
		files++
		found, err := droppedDecodes(path, src)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if len(found) > 0 && notYetFixed[path] != "" {
			still[path] = true
			continue
		}
		for _, f := range found {
			t.Errorf("%s: return the error, or say in the answer what could not be read", f)
		}
	}
	if files < 100 {
		t.Fatalf("only %d Go files read: the listing is not the repository's", files)
	}
	for path := range notYetFixed {
		if !still[path] {
			t.Errorf("notYetFixed names %s, which drops no decode error any more: take it off the list", path)
		}
	}
}

func TestDroppedDecodes(t *testing.T) {
	const src = `package p

func f(b []byte) error {
	var v, w struct{}
	_ = json.Unmarshal(b, &v)                  // dropped
	json.Unmarshal(b, &w)                      // dropped
	x, _ := base64.StdEncoding.DecodeString("") // dropped
	defer dec.Decode(&v)                       // dropped
	if absdata.Unmarshal(b, &v) == nil {       // dropped: nothing on failure
		use(v)
	}
	if ok && kit.Decode(b, &v) == nil {        // dropped
		use(v)
	}
	if err := json.Unmarshal(b, &v); err == nil { // dropped
		use(v)
	}
	if json.Unmarshal(b, &v) == nil { // the failure is what follows
		return nil
	}
	r, _ := utf8.DecodeRuneInString("x") // no error to drop
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	if json.Unmarshal(b, &v) != nil {
		return errBad
	}
	if json.Unmarshal(b, &v) == nil {
		use(v)
	} else {
		return errBad
	}
	y, err := base64.StdEncoding.DecodeString("")
	_, _, _ = x, y, r
	m, _ := json.Marshal(v)                    // not a decode
	return err
}
`
	got, err := droppedDecodes("p.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, g := range got {
		lines = append(lines, strings.SplitN(strings.TrimPrefix(g, "p.go:"), ":", 2)[0])
	}
	if want := "5 6 7 8 9 12 15"; strings.Join(lines, " ") != want {
		t.Errorf("dropped decodes found on lines %q, want %q:\n%s", strings.Join(lines, " "), want, strings.Join(got, "\n"))
	}
}

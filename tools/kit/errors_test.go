package kit

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Result says each outcome in its one sentence, after the error's text,
// and keeps a refusal's structured content.
func TestResultSaysTheOutcome(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{Errorf(Unchanged, "No item %s.", "li1"), "No item li1. Nothing was changed."},
		{ArgumentError(errors.New(`argument "limit": must be at most 100`)), `argument "limit": must be at most 100. Nothing was sent to Audiobookshelf.`},
		{Errorf(NotAsked, "Podcast p1 has downloads queued."), "Podcast p1 has downloads queued. Nothing was changed, and nobody was asked."},
		{Errorf(MaybeChanged, "Audiobookshelf closed the connection."), "Audiobookshelf closed the connection. It is not known whether the change was made; read it back before trying again."},
		{Errorf(Stated, "The scan goes on in Audiobookshelf."), "The scan goes on in Audiobookshelf."},
		{errors.New("plain"), "plain"},
	} {
		res := Result(c.err)
		if !res.IsError || resultText(res) != c.want || res.StructuredContent != nil {
			t.Errorf("%v: %q (structured %v), want %q", c.err, resultText(res), res.StructuredContent, c.want)
		}
	}
	refusal := &Error{Text: "Nothing was changed: no right.", Outcome: Stated, Structured: map[string]any{"status": "not_changed"}}
	if res := Result(refusal); res.StructuredContent == nil {
		t.Error("a refusal's structured content was lost")
	}
}

// The outcome sentences are said at the one edge (Result), never written
// into a tool's own text: no string in the code of tools/ (tests aside)
// holds one.
func TestOutcomeSentencesOnlyAtTheEdge(t *testing.T) {
	sentences := []string{"Nothing was changed.", "Nothing was sent to Audiobookshelf.", "nobody was asked", "not known whether"}
	var files []string
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") && path != filepath.Join("..", "kit", "errors.go") {
			files = append(files, path)
		}
		return err
	})
	if err != nil || len(files) < 20 {
		t.Fatalf("found %d files of tools/: %v", len(files), err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		file, err := parser.ParseFile(fset, f, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			for _, w := range sentences {
				if strings.Contains(s, w) {
					t.Errorf("%s: %q is written by hand; return an Error with its Outcome instead", fset.Position(lit.Pos()), w)
				}
			}
			return true
		})
	}
}

// resultText is the text of a result.
func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

package repocheck

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestRunTimeImportsNoInternal: what the server runs with at the top level
// (tools/, gen/, and the run-time libraries guard/, argdec/, permission/,
// absversion/) imports nothing of internal/, which runs and tests it
// (docs/architecture.md, the layout). A run-time library that internal/
// holds makes an import run back up; it goes to the top level instead.
func TestRunTimeImportsNoInternal(t *testing.T) {
	const internal = "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/"
	files := 0
	for _, top := range []string{"tools", "gen", "guard", "argdec", "permission", "absversion"} {
		err := filepath.WalkDir(filepath.Join("..", "..", top), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			files++
			for _, im := range f.Imports {
				if imp, _ := strconv.Unquote(im.Path.Value); strings.HasPrefix(imp, internal) {
					t.Errorf("%s imports %s: run-time code imports nothing of internal/", path, imp)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 50 {
		t.Errorf("read %d files; the walk missed the tree", files)
	}
}

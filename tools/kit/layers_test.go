package kit_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The packages of tools/ import one way (docs/architecture.md): a toolset
// imports kit, result, naming, compact, absdata and orderedlist and no
// other toolset; orderedlist (what the collections and playlists toolsets
// share) imports the layers below it; compact imports kit, result, naming
// and absdata; result (how an answer is made and held to the result
// budget) and naming (how names become ids and targets are named) import
// kit and absdata, and not each other; kit imports absdata; absdata
// imports no package of the repository. What two toolsets share goes down
// a layer.
func TestToolsImportOneWay(t *testing.T) {
	const module = "github.com/audiobookshelf-mcp/audiobookshelf-mcp/"
	outside := func(imp string) bool { return !strings.HasPrefix(imp, module+"tools/") }
	allowed := map[string]func(imp string) bool{
		"absdata": func(imp string) bool { return !strings.HasPrefix(imp, module) },
		"kit": func(imp string) bool {
			return outside(imp) || imp == module+"tools/absdata"
		},
	}
	allowed["result"] = func(imp string) bool { return allowed["kit"](imp) || imp == module+"tools/kit" }
	allowed["naming"] = allowed["result"]
	allowed["compact"] = func(imp string) bool {
		return allowed["result"](imp) || imp == module+"tools/result" || imp == module+"tools/naming"
	}
	allowed["orderedlist"] = func(imp string) bool {
		return allowed["compact"](imp) || imp == module+"tools/compact"
	}
	toolset := func(imp string) bool {
		return allowed["orderedlist"](imp) || imp == module+"tools/orderedlist"
	}
	dirs, err := os.ReadDir("..")
	if err != nil {
		t.Fatal(err)
	}
	packages := 0
	for _, dir := range dirs {
		if !dir.IsDir() {
			continue
		}
		packages++
		ok := allowed[dir.Name()]
		if ok == nil {
			ok = toolset
		}
		files, _ := filepath.Glob(filepath.Join("..", dir.Name(), "*.go"))
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, im := range f.Imports {
				imp, _ := strconv.Unquote(im.Path.Value)
				if !ok(imp) {
					t.Errorf("%s imports %s: tools/%s may not (docs/architecture.md, the layout)", path, imp, dir.Name())
				}
			}
		}
	}
	if packages < 14 {
		t.Fatalf("test bug: %d packages of tools/ read", packages)
	}
}

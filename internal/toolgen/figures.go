package toolgen

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Figures in the hand-written documentation — the toolsets, how many tools
// there are, the default tools, the size of the generated client — are
// written by the generator between markers, so a page cannot drift from
// the manifest:
//
//	<!-- figure:toolsets -->`libraries`, `items` and `me`<!-- /figure -->
//
// The text between the markers is replaced; the markers stay (Markdown
// shows neither). A marker naming no figure, or left open, is an error
// naming the page and the figure. `make generate` rewrites the pages; the
// drift check (cmd/toolgen -check, TestGeneratedFilesAreCurrent) fails on
// a page whose figures are stale.

// FigurePages are the hand-written pages the generator fills figures in.
var FigurePages = []string{"README.md", "CONTRIBUTING.md", "SECURITY.md", "RESULTS.md", "docs/*.md"}

// AbsClientFile is the client oapi-codegen generates; its length is a figure.
const AbsClientFile = "gen/abs/abs.gen.go"

var (
	figureRe     = regexp.MustCompile(`(?s)<!-- figure:([a-z0-9-]+) -->(.*?)<!-- /figure -->`)
	figureOpenRe = regexp.MustCompile(`<!-- figure:[a-z0-9-]+ -->`)
)

// figures are the values of every figure name, from the manifest and the
// generated client at root.
func figures(root string, m *Manifest) (map[string]string, error) {
	var names, defaults []string
	for _, ts := range m.Toolsets {
		names = append(names, "`"+ts.Name+"`")
	}
	reads, writes, guarded := 0, 0, 0
	for _, t := range m.Tools {
		if t.Annotations.ReadOnly != nil && *t.Annotations.ReadOnly {
			reads++
		} else {
			writes++
		}
		if t.Guarded() {
			guarded++
		}
		if t.Default {
			defaults = append(defaults, "`"+t.Name+"`")
		}
	}
	var prompts []string
	for _, p := range m.Prompts {
		prompts = append(prompts, "`"+p.Name+"`")
	}
	var discovery []string
	for _, d := range m.Discovery {
		discovery = append(discovery, "`"+d.Name+"`")
	}
	client, err := os.ReadFile(filepath.Join(root, AbsClientFile))
	if err != nil {
		return nil, fmt.Errorf("figure abs-client-lines: %w", err)
	}
	return map[string]string{
		"toolsets":           andList(names),
		"toolset-count":      fmt.Sprint(len(m.Toolsets)),
		"tool-count":         fmt.Sprint(len(m.Tools)),
		"read-tool-count":    fmt.Sprint(reads),
		"write-tool-count":   fmt.Sprint(writes),
		"guarded-count":      fmt.Sprint(guarded),
		"default-tools":      andList(defaults),
		"discovery-tools":    andList(discovery),
		"prompts":            andList(prompts),
		"abs-client-lines":   thousands(bytes.Count(client, []byte("\n"))),
		"default-tool-count": fmt.Sprint(len(defaults) + len(discovery)),
	}, nil
}

// renderFigures fills the figures of every page of FigurePages under root,
// answering each page that has any, as it should read.
func renderFigures(root string, m *Manifest) (map[string][]byte, error) {
	values, err := figures(root, m)
	if err != nil {
		return nil, err
	}
	var pages []string
	for _, pattern := range FigurePages {
		found, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			return nil, err
		}
		for _, f := range found {
			rel, err := filepath.Rel(root, f)
			if err != nil {
				return nil, err
			}
			pages = append(pages, filepath.ToSlash(rel))
		}
	}
	sort.Strings(pages)
	out := map[string][]byte{}
	for _, page := range pages {
		b, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			return nil, err
		}
		filled, n, err := fillFigures(b, values)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", page, err)
		}
		if n > 0 {
			out[page] = filled
		}
	}
	return out, nil
}

// fillFigures replaces the text of each figure in page with its value,
// answering how many figures it filled.
func fillFigures(page []byte, values map[string]string) ([]byte, int, error) {
	var bad error
	n := 0
	filled := figureRe.ReplaceAllFunc(page, func(m []byte) []byte {
		name := string(figureRe.FindSubmatch(m)[1])
		v, ok := values[name]
		if !ok {
			if bad == nil {
				bad = fmt.Errorf("figure %q is none of %s", name, strings.Join(sortedKeys(values), ", "))
			}
			return m
		}
		n++
		return []byte("<!-- figure:" + name + " -->" + v + "<!-- /figure -->")
	})
	if bad != nil {
		return nil, 0, bad
	}
	if open := len(figureOpenRe.FindAll(filled, -1)); open != n {
		return nil, 0, fmt.Errorf("%d figure marker(s) without their <!-- /figure -->", open-n)
	}
	return filled, n, nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// andList joins names as a sentence does: "a", "a and b", "a, b and c".
func andList(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// thousands writes n with a comma between thousands: 7372 → "7,372".
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

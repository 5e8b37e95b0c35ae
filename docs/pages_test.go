package docs

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/toolgen"
)

// readmeMaxLines is how long README.md may be: a first page, read whole;
// the rest belongs to docs/.
const readmeMaxLines = 300

func TestREADMEAtMost300Lines(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte("\n")); n > readmeMaxLines {
		t.Errorf("README.md is %d lines; at most %d (move detail to docs/)", n, readmeMaxLines)
	}
}

// TestToolsetPackagesSayWhatTheyHold: each toolset of tools.yaml has its
// package under tools/, whose comment opens with what it is ("Package NAME
// is the NAME toolset of tools.yaml") and leaves whether it is listed to
// tools.yaml (a tool's `default: true`): a comment that says "off unless
// AUDIOBOOKSHELF_TOOLSETS names it" goes stale when a tool of it becomes a
// default one.
func TestToolsetPackagesSayWhatTheyHold(t *testing.T) {
	m, err := toolgen.Load("../" + toolgen.ManifestFile)
	if err != nil {
		t.Fatal(err)
	}
	listed := regexp.MustCompile(`(?i)AUDIOBOOKSHELF_TOOLSETS|off unless|on by default|off by default|default tools`)
	for _, ts := range m.Toolsets {
		doc := filepath.Join("..", toolgen.ToolsetDir(ts.Name), "doc.go")
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Errorf("toolset %s: %v (its package comment goes in doc.go)", ts.Name, err)
			continue
		}
		comment := packageComment(string(b))
		if want := "Package " + ts.Name + " is the " + ts.Name + " toolset of tools.yaml"; !strings.HasPrefix(comment, want) {
			t.Errorf("%s: the package comment should open with %q; it opens %q", doc, want, firstLine(comment))
		}
		if loc := listed.FindString(comment); loc != "" {
			t.Errorf("%s: the package comment says whether the toolset is listed (%q); tools.yaml says that", doc, loc)
		}
	}
}

// packageComment is the // comment above the package clause, joined into
// one line of text.
func packageComment(src string) string {
	var lines []string
	for _, l := range strings.Split(src, "\n") {
		if strings.HasPrefix(l, "package ") {
			break
		}
		if c, ok := strings.CutPrefix(l, "//"); ok {
			lines = append(lines, strings.TrimSpace(c))
		} else {
			lines = lines[:0]
		}
	}
	return strings.Join(strings.Fields(strings.Join(lines, " ")), " ")
}

func firstLine(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// TestFigureMarkersAreFilled: the pages' figures (toolgen's figures.go)
// hold the values the generator writes; TestGeneratedFilesAreCurrent
// checks the same through cmd/toolgen -check. Here a page with a figure
// name the generator does not know fails too, and the check is shown to
// see a stale value.
func TestFigureMarkersAreFilled(t *testing.T) {
	files, err := toolgen.Build("..")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for name, want := range files {
		if !strings.HasSuffix(name, ".md") || !bytes.Contains(want, []byte("<!-- figure:")) {
			continue
		}
		n++
		got, err := os.ReadFile(filepath.Join("..", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: a figure is stale; run make generate", name)
		}
		stale := regexp.MustCompile(`(<!-- figure:[a-z-]+ -->)[^<]*(<!-- /figure -->)`).ReplaceAll(got, []byte("${1}stale${2}"))
		if bytes.Equal(stale, want) {
			t.Errorf("%s: a page whose figures read \"stale\" is taken as current", name)
		}
	}
	if n < 2 {
		t.Errorf("%d page(s) with figures; docs/configuration.md and docs/architecture.md have them", n)
	}
}

// TestConfigurationNamesEveryToolOfItsSections: docs/configuration.md
// describes the toolsets that hold no default tool (upkeep, listening,
// curation), each from its paragraph "`NAME` holds no default tool" to
// the next such paragraph or heading; each of those toolsets' tools is
// named there, so a tool added to tools.yaml is not left out of the page.
func TestConfigurationNamesEveryToolOfItsSections(t *testing.T) {
	m, err := toolgen.Load("../" + toolgen.ManifestFile)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	start := regexp.MustCompile("(?m)^`([a-z]+)` holds no default tool")
	heading := regexp.MustCompile(`(?m)^## `)
	found := start.FindAllStringSubmatchIndex(page, -1)
	sections := map[string]string{}
	for i, f := range found {
		end := len(page)
		if i+1 < len(found) {
			end = found[i+1][0]
		}
		if h := heading.FindStringIndex(page[f[1]:end]); h != nil {
			end = f[1] + h[0]
		}
		sections[page[f[2]:f[3]]] = page[f[0]:end]
	}
	if len(sections) < 3 {
		t.Fatalf("%d toolset sections found in docs/configuration.md (upkeep, listening and curation have one)", len(sections))
	}
	for _, tool := range m.Tools {
		text, ok := sections[tool.Toolset]
		if ok && !strings.Contains(text, "`"+tool.Name+"`") {
			t.Errorf("docs/configuration.md: the %s section does not name %s", tool.Toolset, tool.Name)
		}
	}
}

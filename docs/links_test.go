package docs

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// expectedSoon are files the README and docs/ link to before they exist:
// the layout and contributing guides, the generated permission table and
// the tested nginx example are written alongside. A link to one of them passes while the file
// is missing; once it exists its links and anchors are checked like any
// other, and the test asks for its entry here to be removed.
var expectedSoon = []string{}

// TestRelativeLinksResolve: every relative link in README.md, SECURITY.md, CONTRIBUTING.md
// and docs/*.md names a file or folder of the repository, and every #anchor a heading of
// the Markdown file it points into, as GitHub makes heading anchors.
func TestRelativeLinksResolve(t *testing.T) {
	pages := []string{"README.md", "SECURITY.md", "CONTRIBUTING.md"}
	docs, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		pages = append(pages, "docs/"+d)
	}
	for _, p := range expectedSoon {
		if exists(p) {
			t.Errorf("%s exists now: take it out of expectedSoon in docs/links_test.go, so that links into it are checked", p)
		}
	}
	anchors := map[string]map[string]bool{}
	checked := 0
	for _, page := range pages {
		text := read(t, page)
		for _, l := range links(text) {
			for _, problem := range resolve(page, l.target, anchors) {
				t.Errorf("%s:%d: link %q: %s", page, l.line, l.target, problem)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no link found in README.md, SECURITY.md and docs/*.md: the link pattern is broken")
	}
}

// TestLinkCheckerFindsBrokenLinks holds the checker itself to what it must
// refuse and accept, on text of its own.
func TestLinkCheckerFindsBrokenLinks(t *testing.T) {
	anchors := map[string]map[string]bool{}
	for target, want := range map[string]bool{
		"docs/tools.md":                    true,
		"docs/tools.md#list_libraries":     true,
		"#audiobookshelf-mcp":              true,
		"docs/no-such-page.md":             false,
		"docs/tools.md#no-such-heading":    false,
		"#no-such-heading":                 false,
		"https://example.org/missing.md":   true,  // not relative: not checked
		"../SECURITY.md#6-secrets":         false, // from README.md, .. leaves the repository
		"SECURITY.md#6-secrets":            true,
		"docs/examples/no-such-config.txt": false,
	} {
		problems := resolve("README.md", target, anchors)
		if got := len(problems) == 0; got != want {
			t.Errorf("%q from README.md: resolves %v, want %v (%v)", target, got, want, problems)
		}
	}
	text := "[a](x.md) `[b](y.md)` and\n```\n[c](z.md)\n```\n[d](w.md#Q \"title\")\n\n`a code\nspan` [e\nf](v.md)"
	var got []string
	for _, l := range links(text) {
		got = append(got, fmt.Sprintf("%d:%s", l.line, l.target))
	}
	if want := []string{"1:x.md", "5:w.md#Q", "8:v.md"}; !slices.Equal(got, want) {
		t.Errorf("links found %v, want %v (none in code)", got, want)
	}
	slugs := headingAnchors("# A household: one deployment, each person's own key\n## `make test`\n## First start: `--check`\n## X\n## X\n")
	for _, s := range []string{"a-household-one-deployment-each-persons-own-key", "make-test", "first-start---check", "x", "x-1"} {
		if !slugs[s] {
			t.Errorf("no anchor %q in %v", s, slugs)
		}
	}
}

type link struct {
	line   int
	target string
}

var (
	inlineLink = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	codeSpan   = regexp.MustCompile("`+[^`]*`+")
)

// links are the inline Markdown links of text outside fenced code blocks
// and code spans; a link's text may run over lines of its paragraph.
func links(text string) []link {
	lines := strings.Split(text, "\n")
	fenced := false
	for i, line := range lines {
		fence := strings.HasPrefix(strings.TrimSpace(line), "```")
		if fence {
			fenced = !fenced
		}
		if fence || fenced {
			lines[i] = ""
		}
	}
	var out []link
	first := 0 // the line a paragraph starts on
	for _, para := range strings.Split(strings.Join(lines, "\n"), "\n\n") {
		// A code span may run over lines too: keep its line breaks only.
		para = codeSpan.ReplaceAllStringFunc(para, func(s string) string {
			return strings.Repeat("\n", strings.Count(s, "\n"))
		})
		for _, m := range inlineLink.FindAllStringSubmatchIndex(para, -1) {
			out = append(out, link{first + strings.Count(para[:m[0]], "\n") + 1, para[m[2]:m[3]]})
		}
		first += strings.Count(para, "\n") + 2
	}
	return out
}

// resolve says what is wrong with the link target found on page (a path
// relative to the repository's root); nothing when it resolves. anchors
// caches each Markdown file's heading anchors.
func resolve(page, target string, anchors map[string]map[string]bool) []string {
	u, err := url.Parse(target)
	if err != nil {
		return []string{err.Error()}
	}
	if u.Scheme != "" || u.Host != "" {
		return nil // not relative: the web is not checked here
	}
	file := page
	if u.Path != "" {
		file = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(page), u.Path)))
		if file == ".." || strings.HasPrefix(file, "../") {
			return []string{"leaves the repository"}
		}
		if !exists(file) {
			if slices.Contains(expectedSoon, file) {
				return nil
			}
			return []string{file + " does not exist"}
		}
	}
	if u.Fragment == "" {
		return nil
	}
	if !strings.HasSuffix(file, ".md") {
		return []string{"an anchor into " + file + ", which is not Markdown"}
	}
	if anchors[file] == nil {
		b, err := os.ReadFile(fromRoot(file))
		if err != nil {
			return []string{err.Error()}
		}
		anchors[file] = headingAnchors(string(b))
	}
	if !anchors[file][u.Fragment] {
		return []string{fmt.Sprintf("%s has no heading with the anchor #%s", file, u.Fragment)}
	}
	return nil
}

// headingAnchors are the anchors GitHub gives the ATX headings of a
// Markdown text outside fenced code: lower case, code marks and
// punctuation dropped (letters, digits, '-' and '_' stay), spaces made
// '-', and a repeated anchor numbered -1, -2, ...
func headingAnchors(text string) map[string]bool {
	out := map[string]bool{}
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimLeft(line, "#")
		if !strings.HasPrefix(title, " ") {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(title)) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		slug := b.String()
		if out[slug] {
			n := 1
			for out[fmt.Sprintf("%s-%d", slug, n)] {
				n++
			}
			slug = fmt.Sprintf("%s-%d", slug, n)
		}
		out[slug] = true
	}
	return out
}

// fromRoot is a repository path as seen from this package's folder.
func fromRoot(p string) string { return filepath.Join("..", filepath.FromSlash(p)) }

func exists(p string) bool {
	_, err := os.Stat(fromRoot(p))
	return err == nil
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(fromRoot(p))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

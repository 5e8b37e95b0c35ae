package toolgen

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// A block of CONTRIBUTING.md that TestContributingAddsAReadTool applies:
// the fenced block after a marker `<!-- contributing-test: KIND [PATH] -->`.
type guideBlock struct {
	kind, path, text string
}

var guideToolRE = regexp.MustCompile(`(?m)^  - name: (\S+)$`)

var guideMarkerRE = regexp.MustCompile(`^(\s*)<!-- contributing-test: (append|file|run) ?(\S*) -->$`)

// guideBlocks reads the marked blocks of a guide: each marker is followed
// by a fenced block, whose lines lose the fence's indentation.
func guideBlocks(guide string) ([]guideBlock, error) {
	var blocks []guideBlock
	sc := bufio.NewScanner(strings.NewReader(guide))
	var pending *guideBlock
	var indent string
	inFence := false
	var body []string
	line := 0
	for sc.Scan() {
		line++
		l := sc.Text()
		switch {
		case inFence && strings.TrimSpace(l) == "```":
			inFence = false
			pending.text = strings.Join(body, "\n") + "\n"
			blocks = append(blocks, *pending)
			pending, body = nil, nil
		case inFence:
			if strings.TrimSpace(l) != "" && !strings.HasPrefix(l, indent) {
				return nil, fmt.Errorf("line %d: a line of the block is indented less than its fence", line)
			}
			body = append(body, strings.TrimPrefix(l, indent))
		case pending != nil && strings.HasPrefix(strings.TrimSpace(l), "```"):
			inFence = true
			indent = l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		case pending != nil && strings.TrimSpace(l) != "":
			return nil, fmt.Errorf("line %d: the marker of %s %s is not followed by a fenced block", line, pending.kind, pending.path)
		default:
			if m := guideMarkerRE.FindStringSubmatch(l); m != nil {
				pending = &guideBlock{kind: m[2], path: m[3]}
			}
		}
	}
	if pending != nil {
		return nil, fmt.Errorf("the marker of %s %s has no block after it, or its block is not closed", pending.kind, pending.path)
	}
	return blocks, sc.Err()
}

// TestContributingAddsAReadTool follows CONTRIBUTING.md's "Add a read
// tool" in a scratch copy of the repository: the guide's own blocks (the
// tools.yaml entry, the Go file, the test) are added, and the guide's
// commands (generate, snapshot, the tool's tests) run there and pass, each
// named test of the tool among them. A step the guide leaves out, or one
// that no longer works as written, fails here.
//
// It builds the copy's packages: about a minute on a quiet 2-core machine
// (the copy sits in one directory per checkout, so the build cache serves
// what did not change since the last run); go test -short skips it.
func TestContributingAddsAReadTool(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and tests a scratch copy of the repository")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	guide, err := os.ReadFile(filepath.Join(root, "CONTRIBUTING.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := guideBlocks(string(guide))
	if err != nil {
		t.Fatalf("CONTRIBUTING.md: %v", err)
	}
	var appends, files, runs []guideBlock
	for _, b := range blocks {
		switch b.kind {
		case "append":
			appends = append(appends, b)
		case "file":
			files = append(files, b)
		case "run":
			runs = append(runs, b)
		}
	}
	if len(appends) != 1 || appends[0].path != ManifestFile || len(files) == 0 || len(runs) != 1 {
		t.Fatalf("CONTRIBUTING.md's Add a read tool marks %d blocks to append (want 1, to tools.yaml), %d files (want at least 1) and %d runs (want 1)", len(appends), len(files), len(runs))
	}
	// The example is a new tool: its name is not in tools.yaml yet.
	names := guideToolRE.FindAllStringSubmatch(appends[0].text, -1)
	if len(names) != 1 {
		t.Fatalf("CONTRIBUTING.md's tools.yaml block is not one tool's entry (\"  - name: …\"): %q", appends[0].text)
	}
	tool := names[0][1]
	m, err := Load(filepath.Join(root, ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, have := range m.Tools {
		if have.Name == tool {
			t.Fatalf("CONTRIBUTING.md's example tool %s is a tool of tools.yaml now: give the guide another example", tool)
		}
	}

	// One scratch directory per checkout, the same on every run: the build
	// cache keys the packages of this module by their directory.
	sum := sha256.Sum256([]byte(root))
	scratch := filepath.Join(os.TempDir(), "abs-mcp-contributing-"+hex.EncodeToString(sum[:6]))
	if err := os.RemoveAll(scratch); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(scratch) })
	if err := copyRepo(root, scratch); err != nil {
		t.Fatalf("copying the repository: %v", err)
	}

	manifest := filepath.Join(scratch, ManifestFile)
	b, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(b, []byte("\n")) {
		b = append(b, '\n')
	}
	if err := os.WriteFile(manifest, append(b, appends[0].text...), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		path := filepath.Join(scratch, filepath.FromSlash(f.path))
		if _, err := os.Stat(path); err == nil {
			t.Fatalf("CONTRIBUTING.md's file %s is in the repository already: the example adds new files", f.path)
		}
		if err := os.WriteFile(path, []byte(f.text), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// The guide's commands, each as written but for -v on go test, so that
	// the tests it names can be seen to have run.
	var tested strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(runs[0].text), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		run := strings.Replace(line, "go test ", "go test -v ", 1)
		start := time.Now()
		cmd := exec.Command("sh", "-c", run)
		cmd.Dir = scratch
		out, err := cmd.CombinedOutput()
		t.Logf("%s: %s", line, time.Since(start).Round(time.Second))
		if err != nil {
			t.Fatalf("CONTRIBUTING.md's step %q failed in the scratch copy: %v\n%s", line, err, tail(out, 6000))
		}
		if run != line {
			tested.Write(out)
		}
	}
	// Each test the guide names for the tool ran and passed.
	for _, want := range []string{
		"--- PASS: TestToolSnapshots",
		"--- PASS: TestReadTools/" + tool + "/example",
		"--- PASS: TestRequestsPerCall/" + tool,
		"--- PASS: TestEveryReadToolFitsTheBudgetAtScale/" + tool,
	} {
		if !strings.Contains(tested.String(), want) {
			t.Errorf("CONTRIBUTING.md's commands did not run %s:\n%s", strings.TrimPrefix(want, "--- PASS: "), tail([]byte(tested.String()), 6000))
		}
	}
	if _, err := os.Stat(filepath.Join(scratch, "internal/app/testdata/toolsnaps", tool+".snap")); err != nil {
		t.Errorf("the guide's commands wrote no snapshot of %s: %v", tool, err)
	}
}

// copyRepo copies the files of the repository at root (those git tracks
// or would, when git is at hand; else every file but .git, bin, dist and
// build) to dst.
func copyRepo(root, dst string) error {
	var names []string
	ls := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	ls.Dir = root
	if out, err := ls.Output(); err == nil {
		for _, n := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
			if n != "" {
				names = append(names, n)
			}
		}
	} else {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			if d.IsDir() {
				switch rel {
				case ".git", "bin", "dist", "build":
					return filepath.SkipDir
				}
				return nil
			}
			names = append(names, filepath.ToSlash(rel))
			return nil
		})
		if err != nil {
			return err
		}
	}
	for _, n := range names {
		src := filepath.Join(root, filepath.FromSlash(n))
		info, err := os.Lstat(src)
		if os.IsNotExist(err) {
			continue // deleted, not yet committed
		}
		if err != nil {
			return err
		}
		if !info.Mode().IsRegular() {
			continue
		}
		b, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(to, b, info.Mode().Perm()); err != nil {
			return err
		}
	}
	return nil
}

// tail is the end of a command's output.
func tail(b []byte, n int) string {
	if len(b) > n {
		return "…" + string(b[len(b)-n:])
	}
	return string(b)
}

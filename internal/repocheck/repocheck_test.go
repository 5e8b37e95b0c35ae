package repocheck

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// maxSize is the largest a tracked file may be without being named in
// bigFixtures.
const maxSize = 1 << 20

// bigFixtures names the tracked files allowed over maxSize, each with why it
// has to be that big and tracked. A path here that is not tracked, or not
// over maxSize, fails the test, so the list cannot outlive its files.
var bigFixtures = map[string]string{
	// "path/in/repo": "why it must be tracked at this size",
}

// trackedFile is one entry of the index: its path, mode and blob.
type trackedFile struct {
	path string
	mode string // 100644, 100755, 120000 (symlink), 160000 (submodule)
	oid  string
	size int64
	head []byte // the first bytes of the blob, enough for a magic number
}

// headLen is how much of each blob is kept: a PE file's header offset is at
// 0x3c, its signature at most a few hundred bytes in.
const headLen = 1024

// repoRoot is the top of the git checkout holding this package; the test
// skips, saying why, when there is none.
func repoRoot(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the tracked files cannot be listed")
	}
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("not in a git checkout (git rev-parse: %v): the tracked files cannot be listed", err)
	}
	return strings.TrimSpace(string(out))
}

// listTracked reads every tracked file's mode and blob from the index
// (git ls-files --stage), then each blob's size and first bytes
// (git cat-file --batch), so what is checked is what would be committed,
// whatever the work tree holds.
func listTracked(t *testing.T, root string) []trackedFile {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "--stage", "-z")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files --stage: %v", err)
	}
	var files []trackedFile
	for rec := range strings.SplitSeq(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		// "MODE OID STAGE\tPATH"
		meta, path, ok := strings.Cut(rec, "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 3 {
			t.Fatalf("git ls-files --stage: unexpected record %q", rec)
		}
		if fields[0] == "160000" { // a submodule: no blob here
			continue
		}
		files = append(files, trackedFile{path: path, mode: fields[0], oid: fields[1]})
	}
	if len(files) == 0 {
		t.Fatal("git ls-files lists no file")
	}

	cat := exec.Command("git", "cat-file", "--batch")
	cat.Dir = root
	var in bytes.Buffer
	for _, f := range files {
		in.WriteString(f.oid + "\n")
	}
	cat.Stdin = &in
	stdout, err := cat.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.Start(); err != nil {
		t.Fatalf("git cat-file --batch: %v", err)
	}
	r := bufio.NewReader(stdout)
	for i := range files {
		if err := readBlob(r, &files[i]); err != nil {
			_ = cat.Process.Kill()
			_ = cat.Wait()
			t.Fatalf("git cat-file --batch, %s: %v", files[i].path, err)
		}
	}
	if err := cat.Wait(); err != nil {
		t.Fatalf("git cat-file --batch: %v", err)
	}
	return files
}

// readBlob reads one "OID TYPE SIZE\n<content>\n" answer of git cat-file
// --batch into f: the size and the first headLen bytes.
func readBlob(r *bufio.Reader, f *trackedFile) error {
	header, err := r.ReadString('\n')
	if err != nil {
		return err
	}
	fields := strings.Fields(header)
	if len(fields) != 3 || fields[0] != f.oid {
		return fmt.Errorf("unexpected answer %q", header)
	}
	size, err := strconv.ParseInt(fields[2], 10, 64)
	if err != nil {
		return fmt.Errorf("unexpected size in %q", header)
	}
	f.size = size
	f.head = make([]byte, min(size, headLen))
	if _, err := io.ReadFull(r, f.head); err != nil {
		return err
	}
	if _, err := io.CopyN(io.Discard, r, size-int64(len(f.head))+1); err != nil { // +1: the newline after the content
		return err
	}
	return nil
}

// executableKind says what kind of executable a file is, or "" when it is
// none: an ELF, Mach-O or PE binary by its magic number, or any file with
// the exec bit that does not start with #! (a script says what runs it).
func executableKind(mode string, head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\x7fELF")):
		return "an ELF binary"
	case isMachO(head):
		return "a Mach-O binary"
	case isPE(head):
		return "a PE (Windows) binary"
	case mode == "100755" && !bytes.HasPrefix(head, []byte("#!")):
		return "a file with the exec bit that is not a #! script"
	}
	return ""
}

// isMachO matches the thin Mach-O magic numbers in either byte order (32- and
// 64-bit) and the universal ("fat") header, which Java class files share
// (also nothing to track).
func isMachO(head []byte) bool {
	if len(head) < 4 {
		return false
	}
	switch binary.BigEndian.Uint32(head) {
	case 0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe, 0xcafebabe, 0xbebafeca:
		return true
	}
	return false
}

// isPE matches a DOS header ("MZ") whose e_lfanew at 0x3c points at a
// "PE\0\0" signature, so a text file that happens to start with MZ is not
// taken for one.
func isPE(head []byte) bool {
	if len(head) < 0x40 || !bytes.HasPrefix(head, []byte("MZ")) {
		return false
	}
	off := int(binary.LittleEndian.Uint32(head[0x3c:]))
	return off >= 0x40 && off+4 <= len(head) && bytes.Equal(head[off:off+4], []byte("PE\x00\x00"))
}

// problems is everything wrong with the tracked files, one line each.
func problems(files []trackedFile, allowed map[string]string) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range files {
		seen[f.path] = true
		if kind := executableKind(f.mode, f.head); kind != "" {
			out = append(out, fmt.Sprintf("%s is %s: executables are built, not tracked (git rm --cached it and add it to .gitignore)", f.path, kind))
		}
		if f.size > maxSize {
			if _, ok := allowed[f.path]; !ok {
				out = append(out, fmt.Sprintf("%s is %d bytes, over %d: track something smaller, or name it in bigFixtures with why", f.path, f.size, maxSize))
			}
		} else if _, ok := allowed[f.path]; ok {
			out = append(out, fmt.Sprintf("bigFixtures names %s, which is %d bytes, not over %d: take it out of the list", f.path, f.size, maxSize))
		}
	}
	for path := range allowed {
		if !seen[path] {
			out = append(out, fmt.Sprintf("bigFixtures names %s, which is not tracked: take it out of the list", path))
		}
	}
	return out
}

func TestNoExecutableOrBigFileTracked(t *testing.T) {
	root := repoRoot(t)
	files := listTracked(t, root)
	for _, p := range problems(files, bigFixtures) {
		t.Error(p)
	}
}

// TestCommandBuildsIgnored: `go build ./cmd/NAME` at the root leaves NAME
// there; .gitignore must keep it out of git for every command there is.
func TestCommandBuildsIgnored(t *testing.T) {
	root := repoRoot(t)
	var names []string
	for _, dir := range []string{"cmd", "bench/cmd"} {
		mains, err := filepath.Glob(filepath.Join(root, dir, "*", "main.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mains {
			names = append(names, filepath.Base(filepath.Dir(m)))
		}
	}
	if len(names) < 2 {
		t.Fatalf("found %d commands under cmd/ and bench/cmd/ (%v): is the layout still cmd/NAME/main.go?", len(names), names)
	}
	for _, name := range names {
		for _, out := range []string{name, name + ".exe"} {
			cmd := exec.Command("git", "check-ignore", "--no-index", "-q", out)
			cmd.Dir = root
			err := cmd.Run()
			var exit *exec.ExitError
			switch {
			case err == nil:
			case errors.As(err, &exit) && exit.ExitCode() == 1:
				t.Errorf("%s (what go build leaves at the root for the command %s) is not in .gitignore: add /%s", out, name, out)
			default:
				t.Fatalf("git check-ignore %s: %v", out, err)
			}
		}
	}
}

// TestExecutableKind holds the detection to hand-made headers, so that a
// check that could never fire would show here.
func TestExecutableKind(t *testing.T) {
	pe := make([]byte, 0x100)
	copy(pe, "MZ")
	binary.LittleEndian.PutUint32(pe[0x3c:], 0x80)
	copy(pe[0x80:], "PE\x00\x00")
	mzText := append([]byte("MZ is how this line starts"), bytes.Repeat([]byte(" text"), 40)...)

	for _, tc := range []struct {
		name string
		mode string
		head []byte
		want string
	}{
		{"elf", "100644", []byte("\x7fELF\x02\x01\x01"), "an ELF binary"},
		{"mach-o 64 little-endian", "100644", []byte{0xcf, 0xfa, 0xed, 0xfe, 7, 0, 0, 1}, "a Mach-O binary"},
		{"mach-o universal", "100644", []byte{0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 2}, "a Mach-O binary"},
		{"pe", "100644", pe, "a PE (Windows) binary"},
		{"exec bit without #!", "100755", []byte("echo hello\n"), "a file with the exec bit that is not a #! script"},
		{"empty with exec bit", "100755", nil, "a file with the exec bit that is not a #! script"},
		{"script", "100755", []byte("#!/usr/bin/env bash\necho hi\n"), ""},
		{"text", "100644", []byte("package main\n"), ""},
		{"text starting with MZ", "100644", mzText, ""},
		{"png", "100644", []byte("\x89PNG\r\n\x1a\n"), ""},
		{"symlink", "120000", []byte("../target"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := executableKind(tc.mode, tc.head); got != tc.want {
				t.Errorf("executableKind(%s, %q) = %q, want %q", tc.mode, tc.head, got, tc.want)
			}
		})
	}
}

// TestProblems: a big file fails unless allowed, and an allowance for a file
// that is gone or small fails too.
func TestProblems(t *testing.T) {
	files := []trackedFile{
		{path: "small.txt", mode: "100644", size: 10, head: []byte("hi")},
		{path: "big.bin", mode: "100644", size: maxSize + 1, head: []byte("data")},
		{path: "limit.txt", mode: "100644", size: maxSize, head: []byte("data")},
	}
	if got := problems(files, nil); len(got) != 1 || !strings.Contains(got[0], "big.bin") {
		t.Errorf("without allowances: %q, want one problem naming big.bin", got)
	}
	if got := problems(files, map[string]string{"big.bin": "a fixture"}); len(got) != 0 {
		t.Errorf("big.bin allowed: %q, want none", got)
	}
	got := problems(files, map[string]string{"big.bin": "a fixture", "small.txt": "stale", "gone.bin": "stale"})
	if len(got) != 2 || !strings.Contains(strings.Join(got, "\n"), "small.txt") || !strings.Contains(strings.Join(got, "\n"), "gone.bin") {
		t.Errorf("stale allowances: %q, want two problems naming small.txt and gone.bin", got)
	}
}

// TestReadBlob reads git cat-file --batch's answer format, content longer
// and shorter than headLen.
func TestReadBlob(t *testing.T) {
	long := bytes.Repeat([]byte("x"), headLen+10)
	stream := "aaa blob 3\nabc\nbbb blob " + strconv.Itoa(len(long)) + "\n" + string(long) + "\nccc blob 0\n\n"
	r := bufio.NewReader(strings.NewReader(stream))
	for _, want := range []struct {
		oid  string
		size int64
		head string
	}{{"aaa", 3, "abc"}, {"bbb", int64(len(long)), string(long[:headLen])}, {"ccc", 0, ""}} {
		f := trackedFile{oid: want.oid}
		if err := readBlob(r, &f); err != nil {
			t.Fatalf("%s: %v", want.oid, err)
		}
		if f.size != want.size || string(f.head) != want.head {
			t.Errorf("%s: size %d head %d bytes, want %d and %d bytes", want.oid, f.size, len(f.head), want.size, len(want.head))
		}
	}
	if _, err := r.ReadByte(); err != io.EOF {
		t.Errorf("after the last blob: %v, want EOF", err)
	}
}

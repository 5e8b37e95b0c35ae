package toolgen

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGeneratedClientIsCurrent is the drift check for the oapi-codegen
// client: gen/abs/abs.gen.go must be exactly what oapi-codegen (the pinned
// tool dependency) makes from spec/ now.
func TestGeneratedClientIsCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go tool oapi-codegen")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	// The configuration's output and overlay paths are relative to the
	// working directory (gen/abs under go generate), so the built tool runs
	// in a scratch gen/abs whose ../../spec is the repository's spec/.
	find := exec.Command("go", "tool", "-n", "oapi-codegen")
	find.Dir = root
	bin, err := find.Output()
	if err != nil {
		t.Fatalf("go tool -n oapi-codegen: %v", err)
	}
	scratch := t.TempDir()
	dir := filepath.Join(scratch, "gen", "abs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "spec"), filepath.Join(scratch, "spec")); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "abs.gen.go")
	cmd := exec.Command(string(bytes.TrimSpace(bin)), "-config", filepath.Join(root, "spec/oapi-codegen.yaml"),
		filepath.Join(root, "spec/audiobookshelf.yaml"))
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("oapi-codegen: %v\n%s", err, b)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(root, "gen/abs/abs.gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("gen/abs/abs.gen.go is not what oapi-codegen makes from spec/ now: run make generate")
	}
}

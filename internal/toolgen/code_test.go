package toolgen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CheckCode names the step of adding a tool that was skipped: the toolset's
// package, or the tool's function in it (its plan, for a guarded tool).
func TestCheckCodeNamesTheMissingStep(t *testing.T) {
	m, err := Parse([]byte(baseManifest))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if err := CheckCode(root, m); err == nil || !strings.Contains(err.Error(), "toolset things has no package tools/things") || !strings.Contains(err.Error(), "CONTRIBUTING.md, step 2") {
		t.Errorf("no package: %v", err)
	}
	dir := filepath.Join(root, "tools", "things")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(src string) {
		if err := os.WriteFile(filepath.Join(dir, "things.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("package things\n\nfunc GetThing() {}\n\nfunc UpdateThing() {}\n")
	err = CheckCode(root, m)
	if err == nil || !strings.Contains(err.Error(), "tool update_thing: tools/things has no func PlanUpdateThing(") || strings.Contains(err.Error(), "get_thing") {
		t.Errorf("a guarded tool without its plan: %v", err)
	}
	write("package things\n\nfunc PlanUpdateThing() {}\n")
	if err := CheckCode(root, m); err == nil || !strings.Contains(err.Error(), "tool get_thing: tools/things has no func GetThing(ctx context.Context, d *kit.Deps, a toolargs.GetThing)") {
		t.Errorf("a tool without its function: %v", err)
	}
	write("package stuff\n\nfunc GetThing() {}\n\nfunc PlanUpdateThing() {}\n")
	if err := CheckCode(root, m); err == nil || !strings.Contains(err.Error(), "is package stuff") {
		t.Errorf("a package named otherwise: %v", err)
	}
	write("package things\n\nfunc GetThing() {}\n\nfunc PlanUpdateThing() {}\n")
	if err := CheckCode(root, m); err != nil {
		t.Errorf("complete: %v", err)
	}
	// check: true wants Check<Tool> beside the tool's function.
	for i := range m.Tools {
		if m.Tools[i].Name == "update_thing" {
			m.Tools[i].Check = true
		}
	}
	if err := CheckCode(root, m); err == nil || !strings.Contains(err.Error(), "tool update_thing has check: true, and tools/things has no func CheckUpdateThing(a toolargs.UpdateThing) error") {
		t.Errorf("check without its function: %v", err)
	}
	write("package things\n\nfunc GetThing() {}\n\nfunc PlanUpdateThing() {}\n\nfunc CheckUpdateThing() {}\n")
	if err := CheckCode(root, m); err != nil {
		t.Errorf("complete with a check: %v", err)
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestARM64Target: the bundle's x64 Windows executable hands off to the
// arm64 one beside it only on an Arm machine, only from the bundle's
// windows-amd64 folder, only when that executable is there, never from a
// handed-off child or itself, and not with AUDIOBOOKSHELF_MCP_STAY_X64=true.
func TestARM64Target(t *testing.T) {
	root := filepath.Join("/", "ext", "server")
	exe := filepath.Join(root, "windows-amd64", "audiobookshelf-mcp.exe")
	arm := filepath.Join(root, "windows-arm64", "audiobookshelf-mcp.exe")
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	has := func(paths ...string) func(string) bool {
		return func(p string) bool {
			for _, q := range paths {
				if p == q {
					return true
				}
			}
			return false
		}
	}
	for _, c := range []struct {
		name   string
		goarch string
		native bool
		exe    string
		getenv func(string) string
		exists func(string) bool
		want   string
	}{
		{"arm machine, bundle layout", "amd64", true, exe, env(), has(arm), arm},
		{"stay x64 false still hands off", "amd64", true, exe, env(StayX64Var, "false"), has(arm), arm},
		{"x64 machine", "amd64", false, exe, env(), has(arm), ""},
		{"already arm64", "arm64", true, arm, env(), has(arm), ""},
		{"no arm64 executable in the bundle", "amd64", true, exe, env(), has(), ""},
		{"handed-off child", "amd64", true, exe, env(handOffVar, "1"), has(arm), ""},
		{"stay x64", "amd64", true, exe, env(StayX64Var, "true"), has(arm), ""},
		{"stay x64, any case and spaces", "amd64", true, exe, env(StayX64Var, " TRUE "), has(arm), ""},
		{"not the bundle's folder (an unpacked archive)", "amd64", true, filepath.Join("/", "tools", "audiobookshelf-mcp.exe"), env(), has(filepath.Join("/", "windows-arm64", "audiobookshelf-mcp.exe")), ""},
		{"folder name in another case", "amd64", true, filepath.Join(root, "Windows-AMD64", "audiobookshelf-mcp.exe"), env(), has(arm), arm},
		{"no executable path", "amd64", true, "", env(), has(arm), ""},
	} {
		if got := arm64Target(c.goarch, c.native, c.exe, c.getenv, c.exists); got != c.want {
			t.Errorf("%s: arm64Target = %q, want %q", c.name, got, c.want)
		}
	}
}

// TestWindowsBuilds: the server type-checks for both Windows executables
// the bundle carries, from source down to the standard library, as the
// compiler would check it: the Windows-only files (arm64_windows.go,
// internal/handoff's handoff_windows.go) and every other file as Windows
// sees it; nothing else here looks at them. A type-check of the ~300
// packages, where a cross-compilation built each of them twice more (make
// release builds the real executables).
func TestWindowsBuilds(t *testing.T) {
	// Beside the other parallel tests (both at once, and while
	// TestShutdownWithACallStuck waits out the grace period).
	t.Parallel()
	for _, arch := range []string{"amd64", "arm64"} {
		t.Run(arch, func(t *testing.T) {
			t.Parallel()
			cfg := &packages.Config{
				Mode: packages.LoadAllSyntax,
				Env:  append(os.Environ(), "GOOS=windows", "GOARCH="+arch, "CGO_ENABLED=0"),
			}
			pkgs, err := packages.Load(cfg, ".")
			if err != nil {
				t.Fatalf("GOOS=windows GOARCH=%s: %v", arch, err)
			}
			checked, windowsOnly := 0, 0
			packages.Visit(pkgs, nil, func(p *packages.Package) {
				checked++
				for _, e := range p.Errors {
					t.Errorf("GOOS=windows GOARCH=%s: %s: %v", arch, p.PkgPath, e)
				}
				for _, f := range p.GoFiles {
					if strings.HasSuffix(f, "_windows.go") && strings.HasPrefix(p.PkgPath, "github.com/audiobookshelf-mcp/") {
						windowsOnly++
					}
				}
			})
			// The check saw what it is for: the Windows-only files of this
			// module, and the standard library beneath them.
			if windowsOnly < 2 || checked < 100 {
				t.Errorf("GOOS=windows GOARCH=%s: %d packages type-checked, %d Windows-only files of this module among them", arch, checked, windowsOnly)
			}
		})
	}
}

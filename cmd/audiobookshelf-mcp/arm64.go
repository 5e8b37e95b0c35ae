package main

import (
	"path/filepath"
	"strings"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/handoff"
)

// The MCP Bundle names one command for Windows: its x64 executable,
// server/windows-amd64/audiobookshelf-mcp.exe. On a Windows machine with an
// Arm CPU that executable runs under x64 emulation; it then hands off to
// the native executable the bundle carries next to it,
// server/windows-arm64/audiobookshelf-mcp.exe, with the same arguments,
// standard input, output and error and environment but for the secret
// variables, which reach it through an inherited pipe instead
// (internal/handoff), and exits with its exit code (arm64_windows.go).
// Nothing is written to stdout first: over stdio it carries only the
// protocol.
const (
	// bundleAMD64Dir and bundleARM64Dir are the folders of the two Windows
	// executables inside the bundle (internal/release.BundlePath).
	bundleAMD64Dir = "windows-amd64"
	bundleARM64Dir = "windows-arm64"
	// StayX64Var=true keeps the x64 executable running under emulation
	// (documented in the README's bundle section).
	StayX64Var = "AUDIOBOOKSHELF_MCP_STAY_X64"
	// handOffVar is set for the native child, so that it never hands off
	// in turn.
	handOffVar = handoff.Var
)

// arm64Target is the path of the native Arm executable the running one
// should hand off to, or "" to run on: only an amd64 build (goarch) running
// on an Arm machine (nativeARM64), from the bundle's windows-amd64 folder
// (exe, the running executable), whose sibling windows-arm64 folder holds
// an executable of the same name (exists), unless StayX64Var is true or
// this process is already a handed-off child.
func arm64Target(goarch string, nativeARM64 bool, exe string, getenv func(string) string, exists func(string) bool) string {
	if goarch != "amd64" || !nativeARM64 || exe == "" {
		return ""
	}
	if getenv(handOffVar) != "" || strings.EqualFold(strings.TrimSpace(getenv(StayX64Var)), "true") {
		return ""
	}
	dir := filepath.Dir(exe)
	if !strings.EqualFold(filepath.Base(dir), bundleAMD64Dir) {
		return ""
	}
	target := filepath.Join(filepath.Dir(dir), bundleARM64Dir, filepath.Base(exe))
	if strings.EqualFold(filepath.Clean(target), filepath.Clean(exe)) || !exists(target) {
		return ""
	}
	return target
}

//go:build !windows

package main

// handOffToARM64 hands off only on Windows (arm64_windows.go).
func handOffToARM64() (code int, handedOff bool) { return 0, false }

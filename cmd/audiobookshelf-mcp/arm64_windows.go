//go:build windows

package main

import (
	"debug/pe"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/handoff"
)

// nativeARM64 reports whether this machine's CPU is Arm64 (an amd64 process
// then runs under emulation). Windows before 10 1709 has no
// IsWow64Process2, and no x64 emulation on Arm either: false.
func nativeARM64() bool {
	var processMachine, nativeMachine uint16
	if err := windows.IsWow64Process2(windows.CurrentProcess(), &processMachine, &nativeMachine); err != nil {
		return false
	}
	return nativeMachine == pe.IMAGE_FILE_MACHINE_ARM64
}

func regularFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// handOffToARM64 runs the bundle's native Arm executable in place of this
// one when arm64Target says so, and returns its exit code. When it cannot
// be started, this executable runs on under emulation (handedOff false),
// after a line on stderr.
func handOffToARM64() (code int, handedOff bool) {
	if runtime.GOARCH != "amd64" {
		return 0, false
	}
	exe, err := os.Executable()
	if err != nil {
		return 0, false
	}
	target := arm64Target(runtime.GOARCH, nativeARM64(), exe, os.Getenv, regularFile)
	if target == "" {
		return 0, false
	}
	// The secret variables go through a pipe only the child inherits, not
	// its environment (where any process of the same user could read them).
	h, err := handoff.New(target, os.Args[1:], os.Environ())
	if err != nil {
		fmt.Fprintf(os.Stderr, "audiobookshelf-mcp: could not prepare the native Arm executable %s (%v); running the x64 one under emulation\n", target, err)
		return 0, false
	}
	cmd := h.Cmd
	// *os.File values: the child inherits the handles themselves, nothing
	// is copied through this process.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	// Ctrl+C reaches the child too (same console); it decides, this
	// process waits for it.
	signal.Ignore(os.Interrupt)
	if err := h.Start(); err != nil {
		if cmd.Process == nil {
			signal.Reset(os.Interrupt)
			fmt.Fprintf(os.Stderr, "audiobookshelf-mcp: could not start the native Arm executable %s (%v); running the x64 one under emulation\n", target, err)
			return 0, false
		}
		// It runs, without its settings: it says so and exits.
		fmt.Fprintf(os.Stderr, "audiobookshelf-mcp: the native Arm executable %s: %v\n", target, err)
	}
	// Read once and removed, as the server does with its own.
	for _, name := range h.Names {
		os.Unsetenv(name)
	}
	if err := killWithThisProcess(cmd.Process.Pid); err != nil {
		fmt.Fprintf(os.Stderr, "audiobookshelf-mcp: warning: the native Arm executable may outlive this process if it is killed: %v\n", err)
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, true
	case errors.As(err, &exit):
		return exit.ExitCode(), true
	default:
		fmt.Fprintf(os.Stderr, "audiobookshelf-mcp: the native Arm executable %s: %v\n", target, err)
		return 1, true
	}
}

// killWithThisProcess puts the process pid into a job object that ends it
// when this process ends, however it ends (a client that stops its server
// by terminating the process it started would otherwise leave the child
// running). The job's handle stays open for this process's lifetime.
func killWithThisProcess(pid int) error {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return err
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation, uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return err
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		windows.CloseHandle(job)
		return err
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		windows.CloseHandle(job)
		return err
	}
	return nil
}

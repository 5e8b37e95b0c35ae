//go:build windows

package handoff

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"golang.org/x/sys/windows"
)

// inherit lets the child inherit the read end r, and only that child: its
// handle is marked inheritable and listed in AdditionalInheritedHandles,
// which Go passes to CreateProcess as the child's whole list of inherited
// handles with its standard ones; the write end w is marked not
// inheritable (os.Pipe's handles are inheritable in some Go versions),
// so that no child can hold it open and keep the pipe from ending. An
// inherited handle keeps its value in the child, which is returned.
func inherit(cmd *exec.Cmd, r, w *os.File) (string, error) {
	if err := windows.SetHandleInformation(windows.Handle(w.Fd()), windows.HANDLE_FLAG_INHERIT, 0); err != nil {
		return "", err
	}
	h := windows.Handle(r.Fd())
	if err := windows.SetHandleInformation(h, windows.HANDLE_FLAG_INHERIT, windows.HANDLE_FLAG_INHERIT); err != nil {
		return "", err
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.AdditionalInheritedHandles = append(cmd.SysProcAttr.AdditionalInheritedHandles, syscall.Handle(h))
	return strconv.FormatUint(uint64(h), 10), nil
}

// open opens the inherited handle whose value is v; never one of the
// standard handles.
func open(v string) (*os.File, error) {
	n, err := strconv.ParseUint(v, 10, 64)
	h := syscall.Handle(n)
	if err != nil || n == 0 || h == syscall.InvalidHandle || h == syscall.Stdin || h == syscall.Stdout || h == syscall.Stderr {
		return nil, errors.New("not the value of an inherited handle")
	}
	f := os.NewFile(uintptr(h), "handed-over settings")
	if f == nil {
		return nil, errors.New("not a handle")
	}
	return f, nil
}

//go:build !windows

package handoff

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
)

// inherit makes the read end r the child's next extra file descriptor (3
// for the first) and returns its number. os.Pipe's descriptors are closed
// on exec, so no child holds the write end w.
func inherit(cmd *exec.Cmd, r, w *os.File) (string, error) {
	cmd.ExtraFiles = append(cmd.ExtraFiles, r)
	return strconv.Itoa(2 + len(cmd.ExtraFiles)), nil
}

// open opens the inherited file descriptor numbered v: 3 or above (0, 1
// and 2 are standard input, output and error).
func open(v string) (*os.File, error) {
	fd, err := strconv.ParseUint(v, 10, 31)
	if err != nil || fd < 3 {
		return nil, errors.New("not the number of an inherited file descriptor (3 or above)")
	}
	f := os.NewFile(uintptr(fd), "handed-over settings")
	if f == nil {
		return nil, errors.New("not a file descriptor")
	}
	return f, nil
}

package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/handoff"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// waitQuick waits for the started cmd and returns its exit code.
func waitQuick(t *testing.T, cmd *exec.Cmd, stdout, stderr *bytes.Buffer) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("the server did not end\n%s%s", stdout, stderr)
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0
}

// TestHandedOffServerGetsItsKeyThroughThePipe: the server started as the
// bundle's x64 executable starts the Arm one (internal/handoff), with the
// API key in no variable of its environment, reads it from the pipe before
// its configuration: --check reaches the stand-in with it.
func TestHandedOffServerGetsItsKeyThroughThePipe(t *testing.T) {
	sd := standin.Start(t, standin.Options{})
	h, err := handoff.New(binary, []string{"--check"}, standinEnv(sd))
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range h.Cmd.Env {
		if strings.Contains(kv, standin.DefaultAPIKey) || strings.HasPrefix(kv, "AUDIOBOOKSHELF_API_KEY=") {
			t.Fatal("the key is in the server's environment")
		}
	}
	var stdout, stderr bytes.Buffer
	h.Cmd.Stdout, h.Cmd.Stderr = &stdout, &stderr
	if err := h.Start(); err != nil {
		t.Fatal(err)
	}
	if code := waitQuick(t, h.Cmd, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "OK: the tools can reach it") || !strings.Contains(stdout.String(), "user:           root (root)") {
		t.Fatalf("--check, handed off: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	if strings.Contains(stdout.String()+stderr.String(), standin.DefaultAPIKey) {
		t.Error("the key is in the output")
	}
}

// TestHandedOffServerWithoutItsSettingsStops: a handed-off server whose
// pipe brings nothing (its parent wrote nothing and ended) stops with a
// clear line, exit 1, and serves nothing; so does one told to read from
// standard input.
func TestHandedOffServerWithoutItsSettingsStops(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary)
	cmd.Env = baseEnv(handoff.Var+"=1", handoff.HandleVar+"=3", "AUDIOBOOKSHELF_URL=http://127.0.0.1:1")
	cmd.ExtraFiles = []*os.File{r}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	w.Close()
	code := waitQuick(t, cmd, &stdout, &stderr)
	want := "audiobookshelf-mcp: AUDIOBOOKSHELF_MCP_HANDED_OFF is set, but the settings the parent process hands over could not be read: reading the settings handed over through AUDIOBOOKSHELF_MCP_SECRETS_HANDLE=3: the pipe was closed with nothing written"
	if code != 1 || !strings.HasPrefix(stderr.String(), want) || stdout.Len() != 0 {
		t.Errorf("exit %d\nstdout %q\nstderr %q\nwant stderr beginning %q", code, stdout.String(), stderr.String(), want)
	}

	code, out, errOut := runQuick(t, baseEnv(handoff.Var+"=1", handoff.HandleVar+"=0"))
	if code != 1 || !strings.Contains(errOut, "AUDIOBOOKSHELF_MCP_SECRETS_HANDLE=\"0\": not the number of an inherited file descriptor") || out != "" {
		t.Errorf("handle 0: exit %d\nstdout %q\nstderr %q", code, out, errOut)
	}
}

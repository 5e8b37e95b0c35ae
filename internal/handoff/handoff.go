// Package handoff starts this server's executable as a child process in
// place of the running one (the bundle's x64 Windows executable does, for
// the native Arm one beside it) without putting a secret in the child's
// environment, where any process of the same user could read it.
//
// The parent takes the secret variables (config.SecretVars) out of the
// child's environment and sets Var=1 and HandleVar, the number of the read
// end of an anonymous pipe that only this child inherits (a file
// descriptor; on Windows a handle value). After starting the child it
// writes the secrets to the pipe as one JSON object and closes it. The
// child, first thing (Receive), reads that object until the end of the
// pipe, within a bound, closes it, and sets the secrets in its own
// environment, from which config.FromEnv reads them as it would have from
// the environment it was started with (and removes the key and token).
//
// Only how the read end is inherited and opened differs between systems
// (handoff_windows.go, handoff_other.go).
package handoff

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
)

const (
	// Var=1 marks a handed-off child: it never hands off in turn, and it
	// reads its secrets from HandleVar's pipe.
	Var = "AUDIOBOOKSHELF_MCP_HANDED_OFF"
	// HandleVar is the number of the inherited read end the secrets come
	// through. It holds that number only, never a secret.
	HandleVar = "AUDIOBOOKSHELF_MCP_SECRETS_HANDLE"
	// Bound is how long a child waits for its secrets. The parent writes
	// them as soon as the child is started, so they are normally waiting
	// in the pipe before the child looks.
	Bound = 10 * time.Second
	// maxPayload bounds what a child reads from the pipe.
	maxPayload = 1 << 20
)

// HandOff is a child to start with its secrets handed over through a pipe.
type HandOff struct {
	// Cmd runs the child; set its Stdin, Stdout and Stderr before Start.
	Cmd *exec.Cmd
	// Names are the secret variables handed over (those that were set),
	// for the parent to remove from its own environment once the child
	// runs.
	Names   []string
	payload []byte
	r, w    *os.File
}

// New prepares the child that runs target with args in environ (an
// os.Environ-style list) without its secret variables, which Start hands
// over through the pipe instead.
func New(target string, args []string, environ []string) (*HandOff, error) {
	env, secrets := Split(environ)
	payload, err := json.Marshal(secrets)
	if err != nil {
		return nil, err
	}
	h := &HandOff{Cmd: exec.Command(target, args...), payload: payload}
	for _, name := range config.SecretVars {
		if _, ok := secrets[name]; ok {
			h.Names = append(h.Names, name)
		}
	}
	if h.r, h.w, err = os.Pipe(); err != nil {
		return nil, fmt.Errorf("a pipe for the hand-off: %w", err)
	}
	handle, err := inherit(h.Cmd, h.r, h.w)
	if err != nil {
		h.r.Close()
		h.w.Close()
		return nil, fmt.Errorf("passing the pipe to the child: %w", err)
	}
	h.Cmd.Env = append(env, Var+"=1", HandleVar+"="+handle)
	return h, nil
}

// Start starts the child, closes this process's copy of the pipe's read
// end, writes the secrets and closes the write end, so that the child
// reads to the end. When the child could not be started, Cmd.Process is
// nil; an error with Cmd.Process set means the child runs but could not be
// given its secrets (it then exits saying so). The error names no secret.
func (h *HandOff) Start() error {
	err := h.Cmd.Start()
	h.r.Close()
	if err != nil {
		h.w.Close()
		return err
	}
	_, err = h.w.Write(h.payload)
	if cerr := h.w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("handing the settings to the child: %w", err)
	}
	return nil
}

// Split takes the secret variables out of environ: env is the rest, minus
// any Var and HandleVar of its own, and secrets are the secret variables
// that were set (empty ones too), by their names in config.SecretVars. On
// Windows names are matched in any case, as the system reads them.
func Split(environ []string) (env []string, secrets map[string]string) {
	secrets = map[string]string{}
	for _, kv := range environ {
		name, value := kv, ""
		// On Windows a name may begin with '=' (=C:=C:\dir).
		if i := strings.Index(kv[min(1, len(kv)):], "="); i >= 0 {
			name, value = kv[:i+1], kv[i+2:]
		}
		if secret, ok := secretName(name); ok {
			secrets[secret] = value // the last one counts, as for exec
			continue
		}
		if sameName(name, Var) || sameName(name, HandleVar) {
			continue
		}
		env = append(env, kv)
	}
	return env, secrets
}

func secretName(name string) (string, bool) {
	for _, s := range config.SecretVars {
		if sameName(name, s) {
			return s, true
		}
	}
	return "", false
}

func sameName(a, b string) bool {
	if runtime.GOOS == "windows" {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// Env is what Receive reads and changes: the process's environment, or a
// stand-in in tests.
type Env struct {
	Getenv   func(string) string
	Setenv   func(string, string) error
	Unsetenv func(string) error
}

// ProcessEnv is this process's environment.
var ProcessEnv = Env{os.Getenv, os.Setenv, os.Unsetenv}

// Receive is the child's side, to run before the configuration is read.
// When Var and HandleVar are both set, it reads the secrets from the pipe
// HandleVar names until its end, within bound, closes it and sets each in
// env; HandleVar is removed either way. Without Var, or without HandleVar
// (a child of an older parent, or Var set by hand), it hands nothing over.
// The error says what failed and names no secret value.
func Receive(env Env, bound time.Duration) error {
	handle := env.Getenv(HandleVar)
	if handle == "" {
		return nil
	}
	_ = env.Unsetenv(HandleVar)
	if env.Getenv(Var) == "" {
		return nil
	}
	f, err := open(handle)
	if err != nil {
		return fmt.Errorf("%s=%q: %w", HandleVar, handle, err)
	}
	secrets, err := read(f, bound)
	if err != nil {
		return fmt.Errorf("reading the settings handed over through %s=%s: %w", HandleVar, handle, err)
	}
	for name, value := range secrets {
		if err := env.Setenv(name, value); err != nil {
			return fmt.Errorf("setting %s: %w", name, err)
		}
	}
	return nil
}

// read reads one JSON object of secret variables from f until its end,
// within bound, and closes f.
func read(f *os.File, bound time.Duration) (map[string]string, error) {
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		b, err := io.ReadAll(io.LimitReader(f, maxPayload+1))
		done <- result{b, err}
	}()
	var res result
	select {
	case res = <-done:
	case <-time.After(bound):
		f.Close()
		return nil, fmt.Errorf("nothing came within %s (the pipe was not closed)", bound)
	}
	f.Close()
	if res.err != nil {
		return nil, res.err
	}
	if len(res.b) > maxPayload {
		return nil, fmt.Errorf("more than %d bytes came", maxPayload)
	}
	if len(res.b) == 0 {
		return nil, errors.New("the pipe was closed with nothing written (the parent ended or could not write)")
	}
	var secrets map[string]string
	if err := json.Unmarshal(res.b, &secrets); err != nil {
		// The error of encoding/json could quote what it read: not shown.
		return nil, fmt.Errorf("what came (%d bytes) is not a JSON object of strings", len(res.b))
	}
	for name := range secrets {
		if s, ok := secretName(name); !ok || s != name {
			// Not quoted: whatever it is, it is not shown.
			return nil, fmt.Errorf("it names a variable other than those handed over this way (%s)", strings.Join(config.SecretVars, ", "))
		}
	}
	return secrets, nil
}

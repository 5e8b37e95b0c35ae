package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/app"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
)

// These tests run the built binary, as a client or a person would.

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "abs-mcp-bin")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "audiobookshelf-mcp")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// TestBinaryLinksNoTestCode: the stand-in is linked for --demo, but the test
// framework must not come with it (its package init, its flags, its size on
// every start-up).
func TestBinaryLinksNoTestCode(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 {
		t.Fatalf("go list -deps listed %d packages; want the whole graph", len(deps))
	}
	for _, p := range deps {
		if p == "testing" || p == "net/http/httptest" || strings.HasSuffix(p, "/internal/apptest") {
			t.Errorf("the binary links %s", p)
		}
	}
}

// baseEnv is a clean environment: no configuration leaks in from the
// machine running the tests.
func baseEnv(extra ...string) []string {
	return append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.TempDir()}, extra...)
}

// runQuick runs the binary with stdin closed and returns its exit code,
// stdout and stderr.
func runQuick(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stdout.String(), stderr.String()
}

func TestVersionAndHelp(t *testing.T) {
	code, out, _ := runQuick(t, baseEnv(), "--version")
	if code != 0 || !strings.HasPrefix(out, "audiobookshelf-mcp ") {
		t.Errorf("--version: %d %q", code, out)
	}
	code, _, errOut := runQuick(t, baseEnv("AUDIOBOOKSHELF_API_KEY=secret-key-123"), "--help")
	if code != 0 {
		t.Errorf("--help exit %d", code)
	}
	for _, want := range []string{"AUDIOBOOKSHELF_URL", "AUDIOBOOKSHELF_API_KEY", "ELICITATION", "--demo"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("--help does not mention %s:\n%s", want, errOut)
		}
	}
	if strings.Contains(errOut, "secret-key-123") {
		t.Error("--help shows the API key")
	}
	code, _, errOut = runQuick(t, baseEnv(), "--bogus")
	if code != 2 {
		t.Errorf("an unknown flag: exit %d, want 2 (%s)", code, errOut)
	}
}

func TestElicitationVariable(t *testing.T) {
	for _, bad := range []string{"1", "0", "off", "yes", "TRUE", "False", ""} {
		code, out, errOut := runQuick(t, baseEnv("ELICITATION="+bad))
		if code != 1 {
			t.Errorf("ELICITATION=%q: exit %d, want 1", bad, code)
		}
		if !strings.Contains(errOut, "ELICITATION") || !strings.Contains(errOut, "true or false") {
			t.Errorf("ELICITATION=%q: the message must name the variable and both values: %q", bad, errOut)
		}
		if out != "" {
			t.Errorf("ELICITATION=%q: wrote to stdout: %q", bad, out)
		}
	}
	const line = "audiobookshelf-mcp: ELICITATION=false — guarded tools fall back to the two-call token"
	// With stdin closed the server starts, prints its lines and ends.
	code, _, errOut := runQuick(t, baseEnv("ELICITATION=false"))
	if code != 0 {
		t.Fatalf("ELICITATION=false: exit %d: %s", code, errOut)
	}
	if n := strings.Count(errOut, line); n != 1 {
		t.Errorf("ELICITATION=false must print exactly one line %q, got %d in:\n%s", line, n, errOut)
	}
	for _, l := range strings.Split(errOut, "\n") {
		if strings.Contains(l, "ELICITATION=false") && l != line {
			t.Errorf("a line mentions ELICITATION=false but is not the exact line: %q", l)
		}
	}
	for _, v := range []string{"true", ""} {
		env := baseEnv()
		if v != "" {
			env = baseEnv("ELICITATION=" + v)
		}
		_, _, errOut := runQuick(t, env)
		if strings.Contains(errOut, "ELICITATION") {
			t.Errorf("ELICITATION=%q: nothing should be said about it: %s", v, errOut)
		}
	}
}

func TestBadConfigurationStops(t *testing.T) {
	cases := map[string]string{
		"AUDIOBOOKSHELF_READ_ONLY=yes":                             "AUDIOBOOKSHELF_READ_ONLY",
		"AUDIOBOOKSHELF_URL=ftp://x":                               "AUDIOBOOKSHELF_URL",
		"AUDIOBOOKSHELF_URL=https://u:p@h":                         "user:password@",
		"AUDIOBOOKSHELF_TOOLSETS=colections":                       "valid toolsets",
		"AUDIOBOOKSHELF_STATE_KEY=short":                           "AUDIOBOOKSHELF_STATE_KEY",
		"AUDIOBOOKSHELF_TIMEOUT=forever":                           "AUDIOBOOKSHELF_TIMEOUT",
		"AUDIOBOOKSHELF_INSECURE_TLS=1":                            "AUDIOBOOKSHELF_INSECURE_TLS",
		"AUDIOBOOKSHELF_MAX_RESULT_CHARS=40k":                      "AUDIOBOOKSHELF_MAX_RESULT_CHARS",
		"AUDIOBOOKSHELF_APPROVAL_STORE=":                           "AUDIOBOOKSHELF_APPROVAL_STORE",
		"AUDIOBOOKSHELF_APPROVAL_STORE=Memory":                     "must be memory",
		"AUDIOBOOKSHELF_APPROVAL_STORE=valkey://h:6379":            "redis://",
		"AUDIOBOOKSHELF_APPROVAL_STORE=redis://u:s3cret@h:6379/zz": "not a URL of a Redis",
	}
	for env, want := range cases {
		code, _, errOut := runQuick(t, baseEnv(env))
		if code != 1 || !strings.Contains(errOut, want) {
			t.Errorf("%s: exit %d, stderr %q (want 1 and %q)", env, code, errOut, want)
		}
		if strings.Contains(errOut, "s3cret") {
			t.Errorf("%s: the password is on stderr: %s", env, errOut)
		}
	}
	_, _, errOut := runQuick(t, baseEnv("AUDIOBOOKSHELF_URL=http://abs.lan:13378"))
	if !strings.Contains(errOut, "unencrypted") {
		t.Errorf("plain http to a LAN host must warn: %s", errOut)
	}
	_, _, errOut = runQuick(t, baseEnv("AUDIOBOOKSHELF_URL=http://127.0.0.1:13378"))
	if strings.Contains(errOut, "unencrypted") {
		t.Errorf("plain http to loopback must not warn: %s", errOut)
	}
}

// session is the binary speaking MCP over stdio, driven by raw JSON-RPC.
type session struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *apptest.SyncBuffer
	id     int
}

func start(t *testing.T, env []string, args ...string) *session {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = env
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &apptest.SyncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &session{t: t, cmd: cmd, in: in, out: bufio.NewReaderSize(outPipe, 1<<20), stderr: stderr}
	t.Cleanup(func() {
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Error("the server did not exit when its stdin closed")
		}
	})
	return s
}

func (s *session) send(method string, params any) {
	s.id++
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.id, "method": method, "params": params})
	fmt.Fprintf(s.in, "%s\n", b)
}

func (s *session) notify(method string) {
	fmt.Fprintf(s.in, `{"jsonrpc":"2.0","method":%q}`+"\n", method)
}

// recv reads the next response (skipping notifications) as raw JSON.
func (s *session) recv() map[string]json.RawMessage {
	s.t.Helper()
	type line struct {
		b   []byte
		err error
	}
	for {
		ch := make(chan line, 1)
		go func() { b, err := s.out.ReadBytes('\n'); ch <- line{b, err} }()
		select {
		case l := <-ch:
			if l.err != nil {
				s.t.Fatalf("reading stdout: %v (stderr: %s)", l.err, s.stderr)
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal(l.b, &m); err != nil {
				s.t.Fatalf("stdout carried something that is not JSON-RPC: %q", l.b)
			}
			if _, ok := m["id"]; ok {
				return m
			}
		case <-time.After(15 * time.Second):
			s.t.Fatalf("no answer within 15s (stderr: %s)", s.stderr)
		}
	}
}

func (s *session) initialize() {
	s.send("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "raw", "version": "1"}})
	if r := s.recv(); r["result"] == nil {
		s.t.Fatalf("initialize failed: %s", r["error"])
	}
	s.notify("notifications/initialized")
}

func TestStdioToolsListWithoutConfiguration(t *testing.T) {
	s := start(t, baseEnv())
	s.initialize()
	s.send("tools/list", map[string]any{})
	r := s.recv()
	var res struct {
		Tools []struct {
			Name        string                     `json:"name"`
			Annotations map[string]json.RawMessage `json:"annotations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(r["result"], &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != defaultTools() { // the toolsets on by default
		t.Fatalf("tools/list over stdio: %d tools, want %d", len(res.Tools), defaultTools())
	}
	for _, tool := range res.Tools {
		readOnly := string(tool.Annotations["readOnlyHint"]) == "true"
		for _, k := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
			v := string(tool.Annotations[k])
			if k == "destructiveHint" && readOnly && v != "false" {
				t.Errorf("%s: a read-only tool says %s %q, want false", tool.Name, k, v)
			}
			if v != "true" && v != "false" {
				t.Errorf("%s: %s is %q in the wire JSON", tool.Name, k, v)
			}
		}
	}
	// Unconfigured, a call explains the setup instead of failing the protocol.
	s.send("tools/call", map[string]any{"name": "list_libraries", "arguments": map[string]any{}})
	r = s.recv()
	if !strings.Contains(string(r["result"]), "AUDIOBOOKSHELF_URL is not set") {
		t.Errorf("an unconfigured call: %s %s", r["result"], r["error"])
	}
	if !strings.Contains(s.stderr.String(), "not configured") {
		t.Errorf("the startup line must say the server is not configured: %s", s.stderr)
	}
}

func TestDemoMode(t *testing.T) {
	s := start(t, baseEnv(), "--demo")
	s.initialize()
	s.send("tools/call", map[string]any{"name": "list_libraries", "arguments": map[string]any{}})
	r := s.recv()
	if !strings.Contains(string(r["result"]), `\"name\":\"Books\"`) || !strings.Contains(string(r["result"]), "Podcasts") {
		t.Errorf("the demo's libraries: %s", r["result"])
	}
	if !strings.Contains(s.stderr.String(), "DEMO MODE") || !strings.Contains(s.stderr.String(), "nothing is written") {
		t.Errorf("the demo must say so on stderr: %s", s.stderr)
	}
}

func TestReadOnlyModeOverStdio(t *testing.T) {
	s := start(t, baseEnv("AUDIOBOOKSHELF_READ_ONLY=true"), "--demo")
	s.initialize()
	s.send("tools/list", map[string]any{})
	var res struct {
		Tools []json.RawMessage `json:"tools"`
	}
	json.Unmarshal(s.recv()["result"], &res)
	if want := len(app.Listed(true, nil)); len(res.Tools) != want {
		t.Errorf("read-only mode lists %d tools, want %d", len(res.Tools), want)
	}
	if !strings.Contains(s.stderr.String(), "read-only") {
		t.Errorf("the startup line must say read-only mode: %s", s.stderr)
	}
}

// TestPipedRequestsAreAnswered: requests piped in with stdin then closed —
// `printf '…' | audiobookshelf-mcp --demo` — are all answered before the
// process exits 0, whatever their id's type, a call to Audiobookshelf
// included.
func TestPipedRequestsAreAnswered(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "--demo")
	cmd.Env = baseEnv()
	cmd.Stdin = strings.NewReader(strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"list_items_in_progress","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search_library","arguments":{"library_id":"no-such-library","q":"x"}}}`,
	}, "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("exit: %v\nstderr: %s", err, stderr.String())
	}
	answered := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("stdout line is not JSON-RPC: %q", line)
		}
		if m.Result == nil {
			t.Errorf("answer %s has no result: %s", m.ID, line)
		}
		answered[string(m.ID)] = true
	}
	for _, id := range []string{`1`, `2`, `"three"`, `4`} {
		if !answered[id] {
			t.Errorf("request %s was not answered; stdout:\n%s", id, out)
		}
	}
}

// TestStdioSurvivesBadLines: the lines a broken or hostile client may send
// over stdio each get a JSON-RPC error answer, and the process goes on to
// answer the request after them and exits 0 at the end of input. Before,
// the first of them ended the process with exit 1 and no answer.
func TestStdioSurvivesBadLines(t *testing.T) {
	bad := []string{
		`garbage`, `[]`, `{}`, `123`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":Infinity}}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":NaN}}`,
		`{"jsonrpc":"1.0","id":2,"method":"ping"}`,
		`{"id":3,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1e400,"method":"ping"}`,
		strings.Repeat("[", 1001) + strings.Repeat("]", 1001),
		`{"jsonrpc":"2.0","id":4,"method":"tools/list"`, // cut short
	}
	lines := append([]string{
		`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	}, bad...)
	lines = append(lines, `{"jsonrpc":"2.0","id":"after","method":"tools/list"}`)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "--demo")
	cmd.Env = baseEnv()
	cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("exit: %v\nstderr: %s", err, stderr.String())
	}
	errors, after := 0, false
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("stdout line is not JSON-RPC: %q", line)
		}
		switch {
		case m.Error != nil && (m.Error.Code == -32700 || m.Error.Code == -32600):
			errors++
		case string(m.ID) == `"after"` && m.Result != nil:
			after = true
		}
	}
	if errors != len(bad) || !after {
		t.Errorf("%d error answers for %d bad lines, the request after them answered: %v; stdout:\n%s", errors, len(bad), after, out)
	}
}

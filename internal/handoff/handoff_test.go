package handoff

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
)

// childVar makes the test binary, started again by a test below, play the
// handed-off child (TestMain) and write its report to the file it names.
const childVar = "HANDOFF_TEST_CHILD_REPORT"

func TestMain(m *testing.M) {
	if path := os.Getenv(childVar); path != "" {
		os.Exit(child(path))
	}
	os.Exit(m.Run())
}

// report is what the child saw, from inside.
type report struct {
	// Initial is the environment the child was started with; Proc is the
	// same as the system shows it to other processes (/proc/self/environ,
	// where there is one).
	Initial, Proc []string
	ReceiveErr    string
	// AfterReceive is the environment once the secrets are in, and
	// AfterConfig once config.FromEnv has read them.
	AfterReceive, AfterConfig []string
	Config                    json.RawMessage
	ConfigErr                 string
}

// child does what the server's main does first when handed off: Receive,
// then config.FromEnv on its own environment.
func child(path string) int {
	var r report
	r.Initial = os.Environ()
	if b, err := os.ReadFile("/proc/self/environ"); err == nil {
		r.Proc = strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	}
	if err := Receive(ProcessEnv, Bound); err != nil {
		r.ReceiveErr = err.Error()
	}
	r.AfterReceive = os.Environ()
	cfg, err := config.FromEnv(config.Getenv())
	if err != nil {
		r.ConfigErr = err.Error()
	}
	r.AfterConfig = os.Environ()
	r.Config, _ = json.Marshal(cfg)
	b, _ := json.Marshal(r)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return 3
	}
	return 0
}

func randomHex(t *testing.T, n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// cleanEnviron is this process's environment without any of the server's
// variables (so the machine's own settings do not count).
func cleanEnviron() []string {
	var env []string
	for _, kv := range os.Environ() {
		up := strings.ToUpper(kv)
		if strings.HasPrefix(up, "AUDIOBOOKSHELF_") || strings.HasPrefix(up, "ELICITATION=") || strings.HasPrefix(up, childVar+"=") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// configOf is what config.FromEnv makes of environ, as a server started
// with it directly would read it.
func configOf(environ []string) (string, string) {
	vars := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	cfg, err := config.FromEnv(func(k string) string { return vars[k] }, func(k string) (string, bool) { v, ok := vars[k]; return v, ok }, nil)
	b, _ := json.Marshal(cfg)
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	return string(b), msg
}

// TestSecretsReachTheChildThroughThePipe starts this test binary as a
// handed-off child, as the bundle's x64 executable starts the Arm one: the
// child's environment, as it was started and as the system shows it, holds
// none of the secret variables (neither name nor value), the child gets
// each secret exactly through the inherited pipe, and it ends up with the
// configuration a server started directly with the whole environment has.
func TestSecretsReachTheChildThroughThePipe(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	stateKey := make([]byte, 32)
	rand.Read(stateKey)
	key := "abs-key-" + randomHex(t, 12)
	token := "mcp-token-" + randomHex(t, 12)
	store := "redis://:pw-" + randomHex(t, 8) + "@127.0.0.1:6379/0"
	all := []string{
		"AUDIOBOOKSHELF_API_KEY=" + key,
		"AUDIOBOOKSHELF_MCP_TOKEN=" + token,
		"AUDIOBOOKSHELF_STATE_KEY=" + base64.StdEncoding.EncodeToString(stateKey),
		"AUDIOBOOKSHELF_APPROVAL_STORE=" + store,
	}
	plain := []string{"AUDIOBOOKSHELF_URL=http://127.0.0.1:13378", "AUDIOBOOKSHELF_TIMEOUT=45s", "AUDIOBOOKSHELF_READ_ONLY=true"}
	for _, c := range []struct {
		name      string
		vars      []string
		wantNames []string
		configErr string
	}{
		{"every secret", append(slices.Clone(plain), all...), config.SecretVars, ""},
		{"no secret", plain, nil, ""},
		{"the key, and an empty token (refused as it would be)", append(slices.Clone(plain), all[0], "AUDIOBOOKSHELF_MCP_TOKEN="), config.SecretVars[:2], "AUDIOBOOKSHELF_MCP_TOKEN"},
	} {
		t.Run(c.name, func(t *testing.T) {
			// A file of its own rather than t.TempDir, whose removal Wine
			// (where this test also runs, for the Windows side) cannot do.
			f, err := os.CreateTemp("", "handoff-report-*.json")
			if err != nil {
				t.Fatal(err)
			}
			f.Close()
			reportPath := f.Name()
			t.Cleanup(func() { os.Remove(reportPath) })
			environ := append(cleanEnviron(), c.vars...)
			environ = append(environ, childVar+"="+reportPath)
			h, err := New(exe, []string{"-test.run=^$"}, environ)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(h.Names, c.wantNames) {
				t.Errorf("Names = %v, want %v", h.Names, c.wantNames)
			}
			var out bytes.Buffer
			h.Cmd.Stdout, h.Cmd.Stderr = &out, &out
			if err := h.Start(); err != nil {
				t.Fatalf("Start: %v", err)
			}
			done := make(chan error, 1)
			go func() { done <- h.Cmd.Wait() }()
			select {
			case err = <-done:
			case <-time.After(2 * time.Minute):
				h.Cmd.Process.Kill()
				t.Fatalf("the child did not end\n%s", out.String())
			}
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out.String())
			}
			b, err := os.ReadFile(reportPath)
			if err != nil {
				t.Fatalf("no report from the child: %v\n%s", err, out.String())
			}
			var r report
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatal(err)
			}
			if r.ReceiveErr != "" {
				t.Fatalf("Receive in the child: %s", r.ReceiveErr)
			}

			// The child's environment, as started: no secret, the hand-off
			// variables, and the rest as given.
			if runtime.GOOS == "linux" && len(r.Proc) == 0 {
				t.Error("the child could not read /proc/self/environ")
			}
			for what, env := range map[string][]string{"environment it was started with": r.Initial, "/proc/self/environ": r.Proc} {
				for _, kv := range env {
					for _, name := range config.SecretVars {
						if strings.HasPrefix(strings.ToUpper(kv), name+"=") {
							t.Errorf("the child's %s holds %s", what, name)
						}
					}
					for _, s := range c.vars {
						if name, value, _ := strings.Cut(s, "="); value != "" && slices.Contains(config.SecretVars, name) && strings.Contains(kv, value) {
							t.Errorf("the child's %s holds the value of %s", what, name)
						}
					}
				}
			}
			for _, want := range append(slices.Clone(plain), Var+"=1") {
				if !slices.Contains(r.Initial, want) {
					t.Errorf("the child was not started with %s", want)
				}
			}
			if !slices.ContainsFunc(r.Initial, func(kv string) bool { return strings.HasPrefix(kv, HandleVar+"=") }) {
				t.Errorf("the child was not told where to read (%s)", HandleVar)
			}

			// Once received: each secret exactly, in its environment, and
			// the handle variable gone.
			for _, s := range c.vars {
				if name, _, _ := strings.Cut(s, "="); slices.Contains(config.SecretVars, name) && !slices.Contains(r.AfterReceive, s) {
					t.Errorf("the child did not get %s exactly", name)
				}
			}
			for _, kv := range r.AfterReceive {
				if strings.HasPrefix(kv, HandleVar+"=") {
					t.Errorf("%s is still in the child's environment after Receive", HandleVar)
				}
			}

			// The same configuration as a server started directly with
			// every variable, and the key and the token removed once read.
			wantConfig, wantErr := configOf(append(cleanEnviron(), c.vars...))
			if string(r.Config) != wantConfig || r.ConfigErr != wantErr {
				t.Errorf("the child's configuration\n%s (%s)\nwant, as a server started directly\n%s (%s)", r.Config, r.ConfigErr, wantConfig, wantErr)
			}
			if c.configErr != "" && !strings.Contains(r.ConfigErr, c.configErr) {
				t.Errorf("config error %q, want one naming %s", r.ConfigErr, c.configErr)
			}
			if c.configErr == "" && r.ConfigErr != "" {
				t.Errorf("config error in the child: %s", r.ConfigErr)
			}
			for _, kv := range r.AfterConfig {
				for _, name := range []string{"AUDIOBOOKSHELF_API_KEY", "AUDIOBOOKSHELF_MCP_TOKEN"} {
					if strings.HasPrefix(kv, name+"=") {
						t.Errorf("the child's environment still holds %s after the configuration was read", name)
					}
				}
			}
			if len(c.wantNames) == 4 {
				var cfg config.Config
				if err := json.Unmarshal(r.Config, &cfg); err != nil {
					t.Fatal(err)
				}
				if cfg.APIKey != key || cfg.MCPToken != token || !bytes.Equal(cfg.StateKey, stateKey) || cfg.ApprovalStore != store {
					t.Error("the child's configuration does not hold the secrets that were handed over")
				}
			}
		})
	}
}

// TestSplit: the secret variables are taken out, with their values as
// set (an empty one too; the last of two), and any hand-off variables of
// the parent's own are dropped; the rest stays in order.
func TestSplit(t *testing.T) {
	env, secrets := Split([]string{
		"PATH=/bin",
		"AUDIOBOOKSHELF_API_KEY=first",
		"AUDIOBOOKSHELF_URL=http://x",
		"AUDIOBOOKSHELF_MCP_TOKEN=",
		Var + "=1",
		HandleVar + "=7",
		"AUDIOBOOKSHELF_API_KEY=k=with=equals",
		"NOEQUALS",
	})
	wantEnv := []string{"PATH=/bin", "AUDIOBOOKSHELF_URL=http://x", "NOEQUALS"}
	if !slices.Equal(env, wantEnv) {
		t.Errorf("env = %q, want %q", env, wantEnv)
	}
	if len(secrets) != 2 || secrets["AUDIOBOOKSHELF_API_KEY"] != "k=with=equals" || secrets["AUDIOBOOKSHELF_MCP_TOKEN"] != "" {
		t.Errorf("secrets = %q", secrets)
	}
	// Another case of a name is the same variable on Windows only.
	_, secrets = Split([]string{"audiobookshelf_api_key=lower"})
	if _, got := secrets["AUDIOBOOKSHELF_API_KEY"]; got != (runtime.GOOS == "windows") {
		t.Errorf("a lower-case name on %s: secrets = %q", runtime.GOOS, secrets)
	}
}

// fakeEnv is an Env over a map.
type fakeEnv map[string]string

func (m fakeEnv) env() Env {
	return Env{
		Getenv:   func(k string) string { return m[k] },
		Setenv:   func(k, v string) error { m[k] = v; return nil },
		Unsetenv: func(k string) error { delete(m, k); return nil },
	}
}

// TestReceiveOnlyWhenHandedOff: without Var, or without HandleVar,
// Receive reads nothing and changes nothing but removing HandleVar; a
// handle that cannot be ours is refused, naming the variable.
func TestReceiveOnlyWhenHandedOff(t *testing.T) {
	for _, m := range []fakeEnv{
		{"AUDIOBOOKSHELF_API_KEY": "k"},
		{Var: "1", "AUDIOBOOKSHELF_API_KEY": "k"},
		{HandleVar: "5", "AUDIOBOOKSHELF_API_KEY": "k"},
	} {
		before := len(m)
		_, hadHandle := m[HandleVar]
		if err := Receive(m.env(), time.Minute); err != nil {
			t.Errorf("%v: %v", m, err)
		}
		if _, ok := m[HandleVar]; ok || m["AUDIOBOOKSHELF_API_KEY"] != "k" {
			t.Errorf("after Receive: %v", m)
		}
		if hadHandle {
			before--
		}
		if len(m) != before {
			t.Errorf("Receive changed the environment: %v", m)
		}
	}
	bad := []string{"abc", "0", "-1", "99999999999999999999999"}
	if runtime.GOOS != "windows" {
		bad = append(bad, "1", "2")
	}
	for _, h := range bad {
		m := fakeEnv{Var: "1", HandleVar: h}
		err := Receive(m.env(), time.Minute)
		if err == nil || !strings.Contains(err.Error(), HandleVar) {
			t.Errorf("handle %q: %v, want an error naming %s", h, err, HandleVar)
		}
	}
}

// TestReadFailures: a pipe closed with nothing written, something that is
// not the JSON object, a variable that is not a secret one, too much, and
// a pipe never closed all fail, without quoting what came; what was read
// is closed.
func TestReadFailures(t *testing.T) {
	const secret = "s3cret-value-that-must-not-show"
	for _, c := range []struct {
		name, payload, want string
		leaveOpen           bool
	}{
		{"nothing", "", "nothing written", false},
		{"not JSON", `{"AUDIOBOOKSHELF_API_KEY": "` + secret, "not a JSON object", false},
		{"not strings", `{"AUDIOBOOKSHELF_API_KEY": 12}`, "not a JSON object", false},
		{"another variable", `{"PATH": "` + secret + `", "` + secret + `": "x"}`, "other than those handed over", false},
		{"a name in another case", `{"audiobookshelf_api_key": "` + secret + `"}`, "other than those handed over", false},
		{"too much", `{"AUDIOBOOKSHELF_API_KEY": "` + strings.Repeat("k", maxPayload) + `"}`, "more than", false},
		{"never closed", `{"AUDIOBOOKSHELF_API_KEY": "` + secret + `"}`, "nothing came within", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			go func() {
				w.Write([]byte(c.payload))
				if !c.leaveOpen {
					w.Close()
				}
			}()
			// A bound far from any time a read takes, as a hang guard; only
			// the pipe never closed waits for it, and it fails the same
			// however fast the machine is, so it gets a short one.
			bound := 2 * time.Minute
			if c.leaveOpen {
				bound = 200 * time.Millisecond
			}
			secrets, err := read(r, bound)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("read: %v %v, want an error saying %q", secrets, err, c.want)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("the error quotes what came: %v", err)
			}
			if _, err := r.Read(make([]byte, 1)); !errors.Is(err, os.ErrClosed) {
				t.Errorf("the read end is not closed: %v", err)
			}
		})
	}
	// The object as the parent writes it.
	r, w, _ := os.Pipe()
	go func() { w.Write([]byte(`{"AUDIOBOOKSHELF_API_KEY":"k","AUDIOBOOKSHELF_MCP_TOKEN":""}`)); w.Close() }()
	secrets, err := read(r, 10*time.Second)
	if err != nil || len(secrets) != 2 || secrets["AUDIOBOOKSHELF_API_KEY"] != "k" {
		t.Errorf("read: %v %v", secrets, err)
	}
}

// TestStartFails: a child that cannot be started leaves Cmd.Process nil
// (the caller runs on itself) and the pipe closed.
func TestStartFails(t *testing.T) {
	h, err := New(filepath.Join(os.TempDir(), "handoff-"+randomHex(t, 8), "missing"), nil, []string{"AUDIOBOOKSHELF_API_KEY=k"})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Start(); err == nil || h.Cmd.Process != nil {
		t.Errorf("Start: %v, process %v", err, h.Cmd.Process)
	}
	if _, err := h.w.Write([]byte("x")); !errors.Is(err, os.ErrClosed) {
		t.Errorf("the write end is not closed: %v", err)
	}
}

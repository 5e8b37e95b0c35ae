package reliability

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/registry"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

const (
	// secretKey is the API key: it must show up nowhere.
	secretKey = "abs-key-5e1f0c2a9b7d4e3f8a6c1d2e"
	// secretToken is the MCP endpoint's bearer token.
	secretToken = "mcp-token-9a8b7c6d5e4f3a2b1c0d"
	// headerCanary is in every response header Audiobookshelf sends in the
	// faults below: errors must not echo headers.
	headerCanary = "hdr-canary-41d2e7"
)

// leaks says which secret (or header canary) s carries.
func leaks(s string) []string {
	var out []string
	for _, x := range []string{secretKey, secretToken, headerCanary, secretKey[len(secretKey)-12:]} {
		if strings.Contains(s, x) {
			out = append(out, x)
		}
	}
	return out
}

// TestKeysReadOnceAndRemoved: the API key and the MCP token are taken from
// the process environment and removed from it when the configuration is
// read, so a second read (or a child process) finds nothing.
func TestKeysReadOnceAndRemoved(t *testing.T) {
	t.Setenv("AUDIOBOOKSHELF_API_KEY", secretKey)
	t.Setenv("AUDIOBOOKSHELF_MCP_TOKEN", secretToken)
	cfg, err := config.FromEnv(config.Getenv())
	if err != nil || cfg.APIKey != secretKey || cfg.MCPToken != secretToken {
		t.Fatalf("FromEnv: %v (key read: %v, token read: %v)", err, cfg.APIKey == secretKey, cfg.MCPToken == secretToken)
	}
	for _, name := range []string{"AUDIOBOOKSHELF_API_KEY", "AUDIOBOOKSHELF_MCP_TOKEN"} {
		if _, ok := os.LookupEnv(name); ok {
			t.Errorf("%s is still in the environment", name)
		}
	}
	for _, kv := range os.Environ() {
		if l := leaks(kv); len(l) > 0 {
			t.Errorf("the environment still carries a secret: %s=…", strings.SplitN(kv, "=", 2)[0])
		}
	}
	again, _ := config.FromEnv(config.Getenv())
	if again.APIKey != "" || again.MCPToken != "" {
		t.Error("a second read found the secrets")
	}
	if err == nil {
		// No value of the key stops the server or shows in a message.
		for _, v := range []string{secretKey, " " + secretKey + "\n"} {
			t.Setenv("AUDIOBOOKSHELF_API_KEY", v)
			t.Setenv("AUDIOBOOKSHELF_TIMEOUT", "never")
			_, err := config.FromEnv(config.Getenv())
			if err == nil || len(leaks(err.Error())) > 0 {
				t.Errorf("configuration error %v", err)
			}
		}
	}
}

// secretFaults are Audiobookshelf answers that try to make an error repeat
// the key or a header: the request's Authorization header echoed in the
// body, and the canary in every header sent.
func secretFaults() map[string]func(http.ResponseWriter, *http.Request) bool {
	echo := func(code int, ctype, format string) func(http.ResponseWriter, *http.Request) bool {
		return func(w http.ResponseWriter, r *http.Request) bool {
			h := w.Header()
			h.Set("Content-Type", ctype)
			h.Set("X-Canary", headerCanary)
			h.Set("Set-Cookie", "connect.sid="+headerCanary+"; HttpOnly")
			h.Set("WWW-Authenticate", `Bearer realm="`+headerCanary+`", error="invalid_token"`)
			h.Set("X-Echo-Authorization", r.Header.Get("Authorization"))
			if code/100 == 3 {
				h.Set("Location", "http://"+headerCanary+".example/?token="+secretKey)
			}
			w.WriteHeader(code)
			fmt.Fprintf(w, format, r.Header.Get("Authorization"))
			return true
		}
	}
	return map[string]func(http.ResponseWriter, *http.Request) bool{
		"401 echo":          echo(401, "text/plain", "Unauthorized: %s"),
		"403 echo":          echo(403, "text/plain", "Forbidden for %s"),
		"404 echo":          echo(404, "text/plain", "Not found (auth %s)"),
		"400 JSON echo":     echo(400, "application/json", `{"error":"bad header %s"}`),
		"500 echo":          echo(500, "text/plain", "TypeError at request with Authorization: %s"),
		"502 HTML echo":     echo(502, "text/html", "<html><body>upstream failed; request headers: Authorization: %s</body></html>"),
		"503 echo":          echo(503, "text/plain", "busy %s"),
		"302 redirect":      echo(302, "text/plain", "see elsewhere %s"),
		"200 HTML echo":     echo(200, "text/html", "<!doctype html><p>%s</p>"),
		"200 JSON with key": echo(200, "application/json", `{"id":"x","name":"%s","token":"x"}`),
		"200 not JSON":      echo(200, "text/plain", "%s"),
		"closed": func(w http.ResponseWriter, r *http.Request) bool {
			c, _, _ := w.(http.Hijacker).Hijack()
			c.Close()
			return true
		},
		"truncated with key": hijack(func(c net.Conn) {
			fmt.Fprintf(c, "HTTP/1.1 500 X\r\nX-Canary: %s\r\nContent-Length: 999\r\n\r\nkey %s", headerCanary, secretKey)
		}),
	}
}

// toolArgs are arguments each tool accepts, on the sample library.
func toolArgs(t *testing.T) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, tool := range registry.All {
		s := checkedSchema(t, tool.Name)
		args := validArgs(tool.Name, s)
		if _, ok := s.Properties["detail"]; ok {
			args["detail"] = "full"
		}
		out[tool.Name] = args
	}
	return out
}

// TestAPIKeyNeverShown runs every tool through every error path with a
// distinctive API key — Audiobookshelf echoing the Authorization header in
// its bodies and a canary in its headers, refusing, redirecting, closing,
// panicking — and searches everything the server produced for the key and
// the canary: results (text and structured), and the log.
func TestAPIKeyNeverShown(t *testing.T) {
	t.Parallel()
	args := toolArgs(t)
	var outputs []string
	record := func(what string, res *mcp.CallToolResult, err error) {
		if err != nil {
			outputs = append(outputs, what+": "+err.Error())
			return
		}
		sc, _ := json.Marshal(res.StructuredContent)
		outputs = append(outputs, what+": "+apptest.Text(res)+" "+string(sc))
	}
	e := apptest.Start(t, apptest.Options{Standin: sd.Options{APIKey: secretKey}, Elicit: approve})
	var mu sync.Mutex
	paths := 0
	// all calls every tool at once (the retries' backoff overlaps).
	all := func(label string, call func(string) (*mcp.CallToolResult, error)) {
		var wg sync.WaitGroup
		for _, tool := range registry.All {
			wg.Go(func() {
				res, err := call(tool.Name)
				mu.Lock()
				defer mu.Unlock()
				record(label+" "+tool.Name, res, err)
				paths++
			})
		}
		wg.Wait()
	}
	run := func(label string) {
		all(label, func(name string) (*mcp.CallToolResult, error) { return e.CallErr(name, args[name]) })
	}
	faults := secretFaults()
	for name, f := range faults {
		e.Standin.SetFault(f)
		run(name)
	}
	e.Standin.SetFault(nil)
	run("healthy")
	logs := e.Log()

	// Unreachable, and a transport that panics.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	refused := "http://" + ln.Addr().String()
	ln.Close()
	e2 := apptest.Start(t, apptest.Options{Config: func(c *config.Config) { c.URL, c.APIKey = refused, secretKey }})
	all("refused", func(name string) (*mcp.CallToolResult, error) { return e2.CallErr(name, args[name]) })
	logs += e2.Log()
	e3 := apptest.Start(t, apptest.Options{Standin: sd.Options{APIKey: secretKey},
		Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			panic("transport failed on " + r.Method + " " + r.URL.Path)
		})})
	all("panic", func(name string) (*mcp.CallToolResult, error) { return e3.CallErr(name, args[name]) })
	logs += e3.Log()
	if !strings.Contains(logs, "tool panicked") {
		t.Error("the panicking transport did not reach the panic path")
	}

	for _, o := range append(outputs, logs) {
		if l := leaks(o); len(l) > 0 {
			i := strings.Index(o, l[0])
			t.Errorf("output carries %q: …%s…", l[0], o[max(0, i-200):min(len(o), i+60)])
		}
	}
	for _, r := range e.Standin.Requests() {
		if strings.Contains(r.RawPath+r.RawQuery, secretKey) {
			t.Errorf("the key went into a URL: %s?%s", r.RawPath, r.RawQuery)
		}
	}
	t.Logf("%d tool calls on %d error paths and the healthy one searched", paths, len(faults)+2)
	if !t.Failed() {
		figure(t, "tool calls searched for the API key, in process", paths)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// binary builds cmd/audiobookshelf-mcp once for this test binary.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "abs-reliability")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "audiobookshelf-mcp")
		out, err := exec.Command("go", "build", "-o", binPath, "../../cmd/audiobookshelf-mcp").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

func childEnv(extra ...string) []string {
	return append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.TempDir(),
		"AUDIOBOOKSHELF_API_KEY=" + secretKey, "AUDIOBOOKSHELF_MCP_TOKEN=" + secretToken}, extra...)
}

// TestBinaryNeverShowsTheKey runs the built binary with the key and the MCP
// token in its environment: --help, --version, the reference subcommands,
// every kind of start-up error, a stdio session that calls every tool
// against an Audiobookshelf that echoes the key, and an HTTP endpoint asked
// with a wrong token. No output of the process carries either secret.
func TestBinaryNeverShowsTheKey(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	var all strings.Builder
	quick := func(env []string, args ...string) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env = env
		out, _ := cmd.CombinedOutput()
		fmt.Fprintf(&all, "$ %v\n%s\n", args, out)
	}
	quick(childEnv(), "--help")
	quick(childEnv(), "--version")
	quick(childEnv(), "tools")
	quick(childEnv(), "guards")
	quick(childEnv(), "--nope")
	quick(childEnv(), "--stateless")
	quick(childEnv(), "extra-argument")
	quick(childEnv("AUDIOBOOKSHELF_TIMEOUT=never"))
	quick(childEnv("AUDIOBOOKSHELF_URL=http://root:" + secretKey + "@abs.example"))
	quick(childEnv("AUDIOBOOKSHELF_URL=http://abs.example/?token=" + secretKey))
	quick(childEnv("AUDIOBOOKSHELF_STATE_KEY=" + secretKey))
	quick([]string{"PATH=" + os.Getenv("PATH"), "AUDIOBOOKSHELF_MCP_TOKEN=short " + secretToken}, "--http", "127.0.0.1:0")
	if !strings.Contains(all.String(), "AUDIOBOOKSHELF_API_KEY") {
		t.Errorf("--help does not list AUDIOBOOKSHELF_API_KEY:\n%s", all.String())
	}

	// A stdio session against an Audiobookshelf that echoes the key.
	s := sd.Start(t, sd.Options{APIKey: secretKey})
	cmd := exec.Command(bin)
	cmd.Env = childEnv("AUDIOBOOKSHELF_URL="+s.URL(), "AUDIOBOOKSHELF_TOOLSETS=all")
	var stderr apptest.SyncBuffer
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "reliability", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: approve})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	args := toolArgs(t)
	calls := 0
	for _, fault := range []string{"401 echo", "500 echo", "502 HTML echo", "200 JSON with key", ""} {
		s.SetFault(secretFaults()[fault])
		var mu sync.Mutex
		var wg sync.WaitGroup
		for _, tool := range registry.All {
			wg.Go(func() {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool.Name, Arguments: args[tool.Name]})
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					fmt.Fprintf(&all, "%s: %v\n", tool.Name, err)
					return
				}
				sc, _ := json.Marshal(res.StructuredContent)
				fmt.Fprintf(&all, "%s: %s %s\n", tool.Name, apptest.Text(res), sc)
				calls++
			})
		}
		wg.Wait()
	}
	cs.Close()
	cmd.Wait()
	all.WriteString(stderr.String())
	if calls != 5*len(registry.All) {
		t.Errorf("only %d of %d calls answered", calls, 5*len(registry.All))
	}

	// HTTP with the token: a request with a wrong one is refused without
	// the right one in the answer or the log.
	hcmd := exec.Command(bin, "--http", "127.0.0.1:0")
	hcmd.Env = childEnv("AUDIOBOOKSHELF_URL=" + s.URL())
	pr, pw := io.Pipe()
	hcmd.Stderr = pw
	if err := hcmd.Start(); err != nil {
		t.Fatal(err)
	}
	var herr apptest.SyncBuffer
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			herr.Write([]byte(line + "\n"))
			if u, ok := strings.CutPrefix(line, "audiobookshelf-mcp: listening on "); ok {
				addr <- u
			}
		}
	}()
	select {
	case u := <-addr:
		for i, auth := range []string{"", "Bearer wrong-token-0000000000", "Bearer " + secretToken[:10], "Basic " + secretToken} {
			req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if auth != "" {
				req.Header.Set("Authorization", auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("request %d with a wrong Authorization: %d", i, resp.StatusCode)
			}
			var hdr bytes.Buffer
			resp.Header.Write(&hdr)
			fmt.Fprintf(&all, "HTTP request %d: %d %s %s\n", i, resp.StatusCode, hdr.String(), body)
		}
	case <-time.After(20 * time.Second):
		t.Errorf("--http did not start:\n%s", herr.String())
	}
	hcmd.Process.Signal(syscall.SIGTERM)
	hcmd.Wait()
	pw.Close()
	time.Sleep(50 * time.Millisecond)
	all.WriteString(herr.String())

	out := all.String()
	for _, secret := range []string{secretKey, secretToken, headerCanary, secretKey[len(secretKey)-12:], secretToken[len(secretToken)-12:]} {
		if i := strings.Index(out, secret); i >= 0 {
			t.Errorf("the binary's output carries %q: …%s…", secret, out[max(0, i-300):min(len(out), i+40)])
		}
	}
	t.Logf("%d bytes of output searched, %d tool calls over stdio", len(out), calls)
	if !t.Failed() {
		figure(t, "tool calls searched for the API key, over stdio from the binary", calls)
	}
}

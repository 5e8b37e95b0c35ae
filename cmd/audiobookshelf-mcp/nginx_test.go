package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// The example lines that a test run replaces with its own addresses.
const (
	exampleUpstream = "server 127.0.0.1:8000;"
	exampleListen   = "listen 8080;"
)

// startNginx runs nginx in the foreground with docs/examples/nginx.conf,
// its upstream pointed at upstream and listening on a free loopback port,
// inside a minimal main configuration (no other proxy setting). It returns
// the address nginx listens on. Without nginx installed the test is
// skipped, except in CI, where .ci/run installs it.
func startNginx(t *testing.T, upstream string) string {
	t.Helper()
	bin, err := exec.LookPath("nginx")
	if err != nil {
		for _, p := range []string{"/usr/sbin/nginx", "/usr/local/sbin/nginx"} {
			if _, serr := os.Stat(p); serr == nil {
				bin, err = p, nil
			}
		}
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("nginx is not installed; .ci/run installs it (apt-get install nginx)")
		}
		t.Skip("nginx is not installed (apt-get install nginx); CI installs it and runs this test")
	}
	example, err := os.ReadFile("../../docs/examples/nginx.conf")
	if err != nil {
		t.Fatal(err)
	}
	conf := string(example)
	for _, line := range []string{exampleUpstream, exampleListen} {
		if strings.Count(conf, line) != 1 {
			t.Fatalf("docs/examples/nginx.conf must hold %q once (the test points it at its own addresses)", line)
		}
	}
	dir := t.TempDir()
	for range 5 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		site := strings.Replace(strings.Replace(conf, exampleUpstream, "server "+upstream+";", 1), exampleListen, "listen "+addr+";", 1)
		if err := os.WriteFile(filepath.Join(dir, "site.conf"), []byte(site), 0o644); err != nil {
			t.Fatal(err)
		}
		main := fmt.Sprintf(`daemon off;
master_process off;
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log;
events { worker_connections 64; }
http {
    access_log off;
    client_body_temp_path %[1]s/body;
    proxy_temp_path %[1]s/proxy;
    fastcgi_temp_path %[1]s/fastcgi;
    uwsgi_temp_path %[1]s/uwsgi;
    scgi_temp_path %[1]s/scgi;
    include %[1]s/site.conf;
}
`, dir)
		if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(main), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "-p", dir, "-c", filepath.Join(dir, "nginx.conf"), "-e", filepath.Join(dir, "error.log"))
		var out apptest.SyncBuffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatalf("starting nginx: %v", err)
		}
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		t.Cleanup(func() {
			select {
			case <-done:
			default:
				cmd.Process.Kill()
				<-done
			}
		})
		deadline := time.Now().Add(15 * time.Second)
		for time.Now().Before(deadline) {
			if c, err := net.Dial("tcp", addr); err == nil {
				c.Close()
				return addr
			}
			select {
			case <-done:
				deadline = time.Time{} // exited: the port was taken, or the configuration is wrong
			case <-time.After(50 * time.Millisecond):
			}
		}
		log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
		t.Logf("nginx did not start: %s%s", out.String(), log)
	}
	t.Fatal("nginx did not start with docs/examples/nginx.conf")
	return ""
}

// TestNginxExample: nginx with docs/examples/nginx.conf (nginx's proxy
// defaults: HTTP/1.0 to the upstream, buffering on) in front of --http. A
// 2025-11-25 client's guarded call gets its question pushed through nginx
// and the approval works; an OAuth discovery path gets the server's hint,
// not nginx's 404 page. (Without X-Accel-Buffering: no on the event stream,
// nginx held the question back and the call never came back.)
func TestNginxExample(t *testing.T) {
	const token = "nginx-example-token-5b1f0c"
	sd := standin.Start(t, standin.Options{})
	p := startHTTP(t, baseEnv("AUDIOBOOKSHELF_URL="+sd.URL(), "AUDIOBOOKSHELF_API_KEY="+standin.DefaultAPIKey,
		"AUDIOBOOKSHELF_MCP_TOKEN="+token, "AUDIOBOOKSHELF_MCP_ALLOWED_HOSTS=audiobookshelf_mcp", "AUDIOBOOKSHELF_TOOLSETS=all"), "--http", "127.0.0.1:0")
	front := "http://" + startNginx(t, p.addr)

	// Discovery, as an OAuth client tries it before anything else.
	for _, path := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server", "/mcp/.well-known/openid-configuration"} {
		resp, err := http.Get(front + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") ||
			!strings.Contains(string(body), "does not use OAuth") || !strings.Contains(string(body), "AUDIOBOOKSHELF_MCP_TOKEN") {
			t.Errorf("%s through nginx: %d %s %q, want the server's hint", path, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	}

	// Connecting and calling run apart from the test: a stream nginx holds
	// back stops a client that waits for it (go-sdk's Connect waits for
	// the session's GET stream, beyond its context), and the test must
	// end, failing, rather than hang.
	asked := make(chan string, 1)
	type outcome struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		cs, err := apptest.ConnectHTTP(t, front+"/mcp", "2025-11-25", &http.Client{Transport: bearerClient{token}},
			&mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked <- req.Params.Message
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
			}})
		if err != nil {
			done <- outcome{nil, fmt.Errorf("connecting through nginx: %w", err)}
			return
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_playlist", Arguments: map[string]any{"playlist_id": standin.PlaylistCommute}})
		done <- outcome{res, err}
	}()
	var got outcome
	select {
	case got = <-done:
	case <-time.After(2 * time.Minute): // longer than any client waits on its defaults (60s)
		t.Fatal("no answer through nginx within 2 minutes: it held the event stream back")
	}
	select {
	case msg := <-asked:
		if !strings.Contains(msg, standin.PlaylistCommute) {
			t.Errorf("the question does not name the playlist: %q", msg)
		}
	default:
		t.Fatalf("the question never reached the client through nginx (call: %v, %v)", got.err, got.res)
	}
	if got.err != nil || got.res.IsError {
		t.Fatalf("the approved call through nginx: %v %s", got.err, apptest.Text(got.res))
	}
	if _, ok := sd.Playlist(standin.PlaylistCommute); ok {
		t.Error("the approved delete_playlist did not delete the playlist")
	}
}

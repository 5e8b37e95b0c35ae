package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/apptest"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// TestMCPAuthVariable: AUDIOBOOKSHELF_MCP_AUTH. auto with --http, a URL and
// no key serves each person with their own key; per-person refuses a
// server key, an MCP token and stdio, and may listen beyond loopback (each
// request is authenticated by Audiobookshelf); server-key keeps one key for
// everyone; any other value stops the server.
func TestMCPAuthVariable(t *testing.T) {
	sd := standin.Start(t, standin.Options{})
	url := "AUDIOBOOKSHELF_URL=" + sd.URL()

	// auto: a URL, no key, no token, --http: per person.
	p := startHTTP(t, baseEnv(url, "AUDIOBOOKSHELF_TOOLSETS=all"), "--http", "127.0.0.1:0", "--stateless")
	if !strings.Contains(p.stderr.String(), "per person: each request must bring its person's own Audiobookshelf API key") {
		t.Errorf("auto did not choose per person: %s", p.stderr)
	}
	if _, err := p.client("2026-07-28", nil, nil); err == nil {
		t.Error("connected without a key")
	}
	for key, user := range map[string]string{standin.DefaultAPIKey: "root", standin.PartnerAPIKey: "partner"} {
		cs, err := p.client("2026-07-28", &http.Client{Transport: bearerClient{key}}, nil)
		if err != nil {
			t.Fatalf("%s: %v", user, err)
		}
		if r := apptest.CallOn(t, cs, "get_me", nil); r.IsError || !strings.Contains(apptest.Text(r), `"username":"`+user+`"`) {
			t.Errorf("%s's get_me: %s", user, apptest.Text(r))
		}
	}
	if code := p.stop(); code != 0 {
		t.Errorf("exit %d", code)
	}
	for _, key := range []string{standin.DefaultAPIKey, standin.PartnerAPIKey} {
		if strings.Contains(p.stderr.String(), key) {
			t.Error("a person's key is on stderr")
		}
	}

	// per-person on every interface starts: each request brings a key
	// that Audiobookshelf checks.
	p = startHTTP(t, baseEnv(url, "AUDIOBOOKSHELF_TOOLSETS=all", "AUDIOBOOKSHELF_MCP_AUTH=per-person"), "--http", "0.0.0.0:0", "--stateless")
	if errOut := p.stderr.String(); strings.Contains(errOut, "Not starting") || !strings.Contains(errOut, "per person") {
		t.Errorf("per-person on 0.0.0.0: %s", errOut)
	}
	p.stop()

	// The demo, per person: the sample's people with their keys.
	p = startHTTP(t, baseEnv("AUDIOBOOKSHELF_MCP_AUTH=per-person", "AUDIOBOOKSHELF_TOOLSETS=all"), "--http", "127.0.0.1:0", "--demo")
	cs, err := p.client("2025-11-25", &http.Client{Transport: bearerClient{standin.ListenerAPIKey}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := apptest.CallOn(t, cs, "get_me", nil); !strings.Contains(apptest.Text(r), `"username":"listener"`) {
		t.Errorf("demo per person: %s", apptest.Text(r))
	}
	p.stop()

	// What cannot go with per-person stops the server, saying what to unset.
	for _, c := range []struct {
		env  []string
		args []string
		want string
	}{
		{baseEnv(url, "AUDIOBOOKSHELF_MCP_AUTH=per-person", "AUDIOBOOKSHELF_MCP_TOKEN=0123456789abcdef0123"), []string{"--http", "127.0.0.1:0"}, "Unset AUDIOBOOKSHELF_MCP_TOKEN"},
		{baseEnv(url, "AUDIOBOOKSHELF_MCP_AUTH=per-person", "AUDIOBOOKSHELF_API_KEY=k"), []string{"--http", "127.0.0.1:0"}, "Unset AUDIOBOOKSHELF_API_KEY"},
		{baseEnv(url, "AUDIOBOOKSHELF_MCP_AUTH=per-person"), nil, "needs --http"},
		{baseEnv("AUDIOBOOKSHELF_MCP_AUTH=per-person"), []string{"--http", "127.0.0.1:0"}, "needs AUDIOBOOKSHELF_URL"},
		{baseEnv(url, "AUDIOBOOKSHELF_MCP_AUTH=everyone"), []string{"--http", "127.0.0.1:0"}, "must be one of auto, per-person, server-key"},
	} {
		code, _, errOut := runQuick(t, c.env, c.args...)
		if code != 1 || !strings.Contains(errOut, c.want) || strings.Contains(errOut, "0123456789abcdef0123") || listeningLine.MatchString(errOut) {
			t.Errorf("%v %v: exit %d: %s", c.env[2:], c.args, code, errOut)
		}
	}

	// server-key: one key for everyone, as before; without one, calls
	// explain the setup.
	p = startHTTP(t, baseEnv(url, "AUDIOBOOKSHELF_TOOLSETS=all", "AUDIOBOOKSHELF_MCP_AUTH=server-key"), "--http", "127.0.0.1:0", "--stateless")
	if errOut := p.stderr.String(); strings.Contains(errOut, "per person") || !strings.Contains(errOut, "no AUDIOBOOKSHELF_API_KEY") {
		t.Errorf("server-key: %s", errOut)
	}
	cs, err = p.client("2026-07-28", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := apptest.CallOn(t, cs, "get_me", nil); !r.IsError || !strings.Contains(apptest.Text(r), "AUDIOBOOKSHELF_API_KEY is not set") {
		t.Errorf("server-key without a key: %s", apptest.Text(r))
	}
	p.stop()
}

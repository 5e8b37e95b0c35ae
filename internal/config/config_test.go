package config

import (
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"
)

func env(m map[string]string) (func(string) string, func(string) (string, bool)) {
	return func(k string) string { return m[k] }, func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func parse(t *testing.T, m map[string]string) (*Config, error) {
	t.Helper()
	g, l := env(m)
	return FromEnv(g, l, nil)
}

func TestDefaults(t *testing.T) {
	c, err := parse(t, map[string]string{})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Elicitation || c.ReadOnly || c.URL != "" || c.APIKey != "" || c.Toolsets != nil || c.StateKey != nil || c.InsecureTLS {
		t.Errorf("defaults: %+v", c)
	}
}

func TestBooleansAreExactlyTrueOrFalse(t *testing.T) {
	for _, name := range []string{"ELICITATION", "AUDIOBOOKSHELF_READ_ONLY", "AUDIOBOOKSHELF_INSECURE_TLS"} {
		for _, bad := range []string{"1", "0", "off", "on", "yes", "no", "TRUE", "False", "", " true"} {
			_, err := parse(t, map[string]string{name: bad})
			if err == nil {
				t.Errorf("%s=%q was accepted", name, bad)
				continue
			}
			if !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "true or false") {
				t.Errorf("%s=%q: error %q must name the variable and both values", name, bad, err)
			}
		}
	}
	c, err := parse(t, map[string]string{"ELICITATION": "false", "AUDIOBOOKSHELF_READ_ONLY": "true"})
	if err != nil || c.Elicitation || !c.ReadOnly {
		t.Errorf("ELICITATION=false READ_ONLY=true: %+v %v", c, err)
	}
}

func TestURL(t *testing.T) {
	cases := []struct {
		in, want, warn, err string
	}{
		{"http://127.0.0.1:13378/", "http://127.0.0.1:13378", "", ""},
		{"https://abs.example.org//", "https://abs.example.org", "", ""},
		{"https://abs.example.org/audiobookshelf/", "https://abs.example.org/audiobookshelf", "", ""},
		{"http://localhost:3333", "http://localhost:3333", "", ""},
		{"http://[::1]:3333", "http://[::1]:3333", "", ""},
		{"http://abs.lan:13378", "http://abs.lan:13378", "unencrypted", ""},
		{"ftp://abs.example.org", "", "", "http:// or https://"},
		{"abs.example.org", "", "", "http:// or https://"},
		{"https://user:secret@abs.example.org", "", "", "user:password@"},
		{"https://abs.example.org/?token=abc", "", "", "query"},
	}
	for _, c := range cases {
		got, warn, err := ParseURL(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), "abc") {
				t.Errorf("%q: err %v, want one containing %q and no secret", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want || (c.warn == "") != (warn == "") || !strings.Contains(warn, c.warn) {
			t.Errorf("%q: got %q warn %q err %v, want %q warn %q", c.in, got, warn, err, c.want, c.warn)
		}
	}
}

func TestAPIKeyIsRemovedFromTheEnvironment(t *testing.T) {
	t.Setenv("AUDIOBOOKSHELF_API_KEY", "k-123")
	g, l, u := Getenv()
	c, err := FromEnv(g, l, u)
	if err != nil {
		t.Fatal(err)
	}
	if c.APIKey != "k-123" {
		t.Errorf("key not read: %q", c.APIKey)
	}
	if _, ok := os.LookupEnv("AUDIOBOOKSHELF_API_KEY"); ok {
		t.Error("the API key is still in the process environment, where child processes would inherit it")
	}
}

func TestToolsets(t *testing.T) {
	got, err := ParseToolsets("collections, playlists")
	if err != nil || strings.Join(got, ",") != "collections,playlists" {
		t.Errorf("got %v %v", got, err)
	}
	for _, bad := range []string{"colections", "", ",", "collections,nope"} {
		_, err := ParseToolsets(bad)
		if err == nil || !strings.Contains(err.Error(), "libraries, items, me") {
			t.Errorf("%q: %v must list the valid toolsets", bad, err)
		}
	}
}

func TestStateKeyAndTimeout(t *testing.T) {
	if _, err := parse(t, map[string]string{"AUDIOBOOKSHELF_STATE_KEY": "c2hvcnQ="}); err == nil || !strings.Contains(err.Error(), "AUDIOBOOKSHELF_STATE_KEY") {
		t.Errorf("a short key must be refused naming the variable: %v", err)
	}
	c, err := parse(t, map[string]string{"AUDIOBOOKSHELF_STATE_KEY": "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="})
	if err != nil || len(c.StateKey) != 32 {
		t.Errorf("a 32-byte key: %v %d", err, len(c.StateKey))
	}
	for _, bad := range []string{"0", "30", "500ms", "11m", "soon"} {
		if _, err := parse(t, map[string]string{"AUDIOBOOKSHELF_TIMEOUT": bad}); err == nil || !strings.Contains(err.Error(), "AUDIOBOOKSHELF_TIMEOUT") {
			t.Errorf("timeout %q: %v", bad, err)
		}
	}
}

// TestDocsConfigurationTable keeps the variable table of
// docs/configuration.md the same as Vars.
func TestDocsConfigurationTable(t *testing.T) {
	b, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i, j := strings.Index(s, "<!-- config:start -->\n"), strings.Index(s, "<!-- config:end -->")
	if i < 0 || j < i {
		t.Fatal("docs/configuration.md lacks the config:start/config:end markers")
	}
	var want strings.Builder
	want.WriteString("| variable | default | allowed | invalid value | meaning |\n|---|---|---|---|---|\n")
	for _, v := range Vars {
		fmt.Fprintf(&want, "| `%s` | %s | %s | %s | %s |\n", v.Name, v.Default, v.Allowed, v.Invalid, v.Meaning)
	}
	if got := s[i+len("<!-- config:start -->\n") : j]; got != want.String() {
		t.Errorf("docs/configuration.md's variable table is not internal/config.Vars; it should read:\n%s", want.String())
	}
}

func TestMCPToken(t *testing.T) {
	t.Setenv("AUDIOBOOKSHELF_MCP_TOKEN", "0123456789abcdef-token")
	g, l, u := Getenv()
	c, err := FromEnv(g, l, u)
	if err != nil || c.MCPToken != "0123456789abcdef-token" {
		t.Fatalf("token not read: %q %v", c.MCPToken, err)
	}
	if _, ok := os.LookupEnv("AUDIOBOOKSHELF_MCP_TOKEN"); ok {
		t.Error("the MCP token is still in the process environment")
	}
	for _, bad := range []string{"", "short-secret", "0123456789abcdef with space", "0123456789abcdef\u00e9", "0123456789abcdef\n"} {
		_, err := parse(t, map[string]string{"AUDIOBOOKSHELF_MCP_TOKEN": bad})
		if err == nil {
			t.Errorf("%q was accepted", bad)
			continue
		}
		if !strings.Contains(err.Error(), "AUDIOBOOKSHELF_MCP_TOKEN") {
			t.Errorf("%q: %v must name the variable", bad, err)
		}
		if bad != "" && strings.Contains(err.Error(), bad) {
			t.Errorf("the error repeats the token: %v", err)
		}
	}
	c, err = parse(t, map[string]string{})
	if err != nil || c.MCPToken != "" {
		t.Errorf("unset: %q %v", c.MCPToken, err)
	}
}

func TestLogLevel(t *testing.T) {
	c, err := parse(t, map[string]string{})
	if err != nil || c.LogLevel != slog.LevelInfo {
		t.Errorf("default log level %v (%v), want info", c.LogLevel, err)
	}
	want := map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}
	for _, name := range LogLevels {
		c, err := parse(t, map[string]string{"AUDIOBOOKSHELF_LOG_LEVEL": name})
		if err != nil || c.LogLevel != want[name] {
			t.Errorf("AUDIOBOOKSHELF_LOG_LEVEL=%s: %v (%v), want %v", name, c.LogLevel, err, want[name])
		}
	}
	if len(want) != len(LogLevels) {
		t.Errorf("LogLevels %v", LogLevels)
	}
	for _, bad := range []string{"", "INFO", "warning", "trace", "0", " info"} {
		_, err := parse(t, map[string]string{"AUDIOBOOKSHELF_LOG_LEVEL": bad})
		if err == nil || !strings.Contains(err.Error(), "AUDIOBOOKSHELF_LOG_LEVEL") || !strings.Contains(err.Error(), "debug, info, warn, error") {
			t.Errorf("AUDIOBOOKSHELF_LOG_LEVEL=%q: %v, want an error naming the variable and the four levels", bad, err)
		}
	}
}

func TestMaxResultChars(t *testing.T) {
	c, err := parse(t, map[string]string{})
	if err != nil || c.MaxResultChars != 40000 {
		t.Errorf("unset: %d %v, want the default 40000", c.MaxResultChars, err)
	}
	c, err = parse(t, map[string]string{"AUDIOBOOKSHELF_MAX_RESULT_CHARS": "25000"})
	if err != nil || c.MaxResultChars != 25000 {
		t.Errorf("25000: %d %v", c.MaxResultChars, err)
	}
	for _, ok := range []string{"10000", "1000000"} {
		if _, err := parse(t, map[string]string{"AUDIOBOOKSHELF_MAX_RESULT_CHARS": ok}); err != nil {
			t.Errorf("%q is within the bounds: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "9999", "1000001", "40k", "40,000", " 40000", "+40000", "-1", "4e4", "99999999999999999999"} {
		if _, err := parse(t, map[string]string{"AUDIOBOOKSHELF_MAX_RESULT_CHARS": bad}); err == nil || !strings.Contains(err.Error(), "AUDIOBOOKSHELF_MAX_RESULT_CHARS") || !strings.Contains(err.Error(), "10000 to 1000000") {
			t.Errorf("%q: %v, want a refusal naming the variable and the bounds", bad, err)
		}
	}
}

// TestSecretVarsAreVariables: every secret variable is one the server
// reads, and the key, the token, the state key and the store's URL are
// among them.
func TestSecretVarsAreVariables(t *testing.T) {
	read := map[string]bool{}
	for _, v := range Vars {
		read[v.Name] = true
	}
	secret := map[string]bool{}
	for _, name := range SecretVars {
		if !read[name] {
			t.Errorf("SecretVars names %s, which is not in Vars", name)
		}
		secret[name] = true
	}
	for _, name := range []string{"AUDIOBOOKSHELF_API_KEY", "AUDIOBOOKSHELF_MCP_TOKEN", "AUDIOBOOKSHELF_STATE_KEY", "AUDIOBOOKSHELF_APPROVAL_STORE"} {
		if !secret[name] {
			t.Errorf("%s carries a secret but is not in SecretVars", name)
		}
	}
}

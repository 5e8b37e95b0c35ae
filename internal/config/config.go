// Package config reads the server's configuration from the environment,
// strictly: a value that is not one of the documented forms stops the server
// with a message naming the variable and what is allowed. The table Vars is
// the one source of the configuration reference.
package config

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/registry"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/guard"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
)

// Var documents one environment variable.
type Var struct {
	// Invalid says what a value outside Allowed does.
	Name, Default, Allowed, Invalid, Meaning string
}

// stops is what a value outside the allowed forms does to most variables.
const stops = "exit 1 at start"

// MinTokenLen is the shortest AUDIOBOOKSHELF_MCP_TOKEN accepted.
const MinTokenLen = 16

// Vars is every variable the server reads, in the order of the reference.
var Vars = []Var{
	{"AUDIOBOOKSHELF_URL", "(none)", "http:// or https:// URL, no user:password@, no query", stops, "Base URL of the Audiobookshelf server, e.g. https://abs.example.org or http://127.0.0.1:13378. Trailing slashes are dropped. Plain http to a host other than loopback works but warns: the API key would travel unencrypted. Unset: the server starts, lists its tools, and every call explains the setup."},
	{"AUDIOBOOKSHELF_API_KEY", "(none)", "an Audiobookshelf API key", "(any value is taken) a key Audiobookshelf refuses (401): over stdio the server exits 1 at start saying so and how to make one; over --http each call says it", "Sent as a bearer token. An admin creates one in Audiobookshelf under Settings → API Keys, choosing the user it acts for. Read once at start and removed from the environment; never logged or shown."},
	{"AUDIOBOOKSHELF_READ_ONLY", "false", "true or false", stops, "true registers only the read tools (those marked read-only in tools.yaml), of every toolset that is on."},
	{"AUDIOBOOKSHELF_TOOLSETS", "default: " + DefaultText(), "comma-separated toolset names (" + toolsetsText() + "); default stands for the default tools, all for every toolset", stops + ", listing the valid toolsets", "tools/list starts with these toolsets' tools (combined with read-only mode), and with list_toolsets, enable_toolset and call_tool, through which a model turns another toolset on in the same conversation (unless all are on). AUDIOBOOKSHELF_TOOLSETS=default,collections adds a toolset to the default tools; all lists every tool from the start."},
	{"ELICITATION", "true", "true or false", stops, "true: guarded tools ask through a dialog where the client can show one. false: they take the two-call confirm_token path, and the server says so on stderr at start. Not prefixed, on purpose: one export reaches every MCP server in that environment."},
	{"AUDIOBOOKSHELF_STATE_KEY", "(random per process)", "base64 of exactly 32 bytes", stops, "Key that seals pending questions and confirm_tokens (HMAC-SHA256). Set the same key on every instance behind a load balancer so any of them accepts what another issued; a fixed key also keeps them good across a restart. Unset: a restart refuses them, and the person is asked afresh."},
	{"AUDIOBOOKSHELF_APPROVAL_STORE", "memory", "memory, or a redis://, rediss:// or unix:// URL of a Redis or Valkey server", stops, "Where spent approvals are recorded: the answered questions (declined ones too) and the used confirm_tokens, each until it expires. memory: in this process only, so each approval works once here, but another instance, or a new process with the same AUDIOBOOKSHELF_STATE_KEY, cannot tell that it was spent. A Redis or Valkey URL: shared by every instance that names it, so an approval works once across all of them and across restarts (SET NX with the approval's remaining life). When the store cannot be reached, approved calls are refused and nothing is sent; the answer says why. The URL's password is never logged or shown."},
	{"AUDIOBOOKSHELF_TIMEOUT", "30s", "a Go duration from 1s to 10m", stops, "How long one request to Audiobookshelf may take before the call fails with a clear error."},
	{"AUDIOBOOKSHELF_MAX_RESULT_CHARS", fmt.Sprint(result.DefaultMaxResultChars), fmt.Sprintf("a whole number from %d to %d", result.MinMaxResultChars, result.MaxMaxResultChars), stops, "The most characters of text one tool answer carries (Claude Code refuses a result over 25,000 tokens, about 100,000 characters, and moves one over 50,000 characters out of the conversation). Lists fit their page to it and say how to get the next one; a long list inside one object shows its first entries and how many more; a raw answer (detail \"full\") that would pass it is refused with its size and the call that fits."},
	{"AUDIOBOOKSHELF_INSECURE_TLS", "false", "true or false", stops, "true skips certificate verification for the Audiobookshelf connection only (self-signed servers), with a warning at start. false: a certificate that does not verify makes each call say so, and name first SSL_CERT_FILE (a PEM file holding that one certificate, which Go trusts instead of the system's roots on Linux and in the container: the safer way for a self-signed server) and then this variable."},
	{"AUDIOBOOKSHELF_MCP_TOKEN", "(none: no token asked)", fmt.Sprintf("at least %d printable ASCII characters, no spaces", MinTokenLen), stops, "With --http: every request to /mcp must carry the header Authorization: Bearer TOKEN, else 401 (compared in constant time). Read once at start and removed from the environment; never logged or shown. Over stdio it is not used, and the server warns that it is set."},
	{"AUDIOBOOKSHELF_MCP_AUTH", "auto", "auto, per-person or server-key", stops, "Who the server is to Audiobookshelf over --http. per-person: the server holds no Audiobookshelf key; every request to /mcp carries its person's own Audiobookshelf API key as Authorization: Bearer KEY, checked with Audiobookshelf (GET /api/me; believed for 1 minute, remembered by a hash of the key, never the key), and every request of that call to Audiobookshelf is made with it; a session and every approval are bound to that Audiobookshelf user; tools the user has no permission for are left out of tools/list and refused without asking. It needs AUDIOBOOKSHELF_URL, and neither AUDIOBOOKSHELF_API_KEY nor AUDIOBOOKSHELF_MCP_TOKEN (the bearer is the person's key, so there is no second token: exit 1 when either is set). server-key: one key, AUDIOBOOKSHELF_API_KEY, for everyone, with AUDIOBOOKSHELF_MCP_TOKEN as the endpoint's token. auto: per-person with --http when AUDIOBOOKSHELF_URL is set and neither AUDIOBOOKSHELF_API_KEY nor AUDIOBOOKSHELF_MCP_TOKEN is, else server-key. Over stdio always server-key (per-person there: exit 1)."},
	{"AUDIOBOOKSHELF_MCP_ALLOWED_HOSTS", "(none: localhost and IP addresses only)", "comma-separated host names (letters, digits, '-', '_' and '.'), such as mcp.example.org,nas.lan,audiobookshelf_mcp", stops, "With --http: the host names, besides localhost and IP addresses, that a request's Host header may carry: the name clients reach this server by on a LAN or through a reverse proxy. A request naming any other host gets 403, on every interface (a browser page whose name was made to resolve to this server, DNS rebinding, sends its own name)."},
	{"AUDIOBOOKSHELF_LOG_LEVEL", "info", "debug, info, warn or error", stops, "Which JSON log lines reach stderr. info: the guard's decisions (which tool asked, what came of it), the 2026-07-28 requests refused because they came inside a session (with Mcp-Session-Id), warnings and errors. debug adds go-sdk's lines for every request (sessions opened and closed, a client's protocol mistakes). warn: warnings and errors only; error: errors only. The plain-text lines at start are printed whatever the level."},
}

// SecretVars are the variables of Vars whose values are secrets: the
// Audiobookshelf API key, the endpoint's bearer token, the key that seals
// approvals, and the approval store's URL (it may carry the Redis
// password). They never reach a log, an error or a child process's
// environment: the bundle's x64 Windows executable hands them to the
// native Arm one through an inherited pipe (internal/handoff).
var SecretVars = []string{"AUDIOBOOKSHELF_API_KEY", "AUDIOBOOKSHELF_MCP_TOKEN", "AUDIOBOOKSHELF_STATE_KEY", guard.StoreVariable}

// LogLevels are the values AUDIOBOOKSHELF_LOG_LEVEL takes, in order.
var LogLevels = []string{"debug", "info", "warn", "error"}

// Config is the parsed configuration.
type Config struct {
	URL         string // "" when not configured
	APIKey      string // "" when not configured
	ReadOnly    bool
	Toolsets    []string // nil: the toolsets on by default
	Elicitation bool
	StateKey    []byte // nil: random
	// ApprovalStore is the URL of the shared store of spent approvals
	// ("" for memory, this process only).
	ApprovalStore string
	Timeout       time.Duration
	InsecureTLS   bool
	// MaxResultChars is the result budget (0: result.DefaultMaxResultChars).
	MaxResultChars int
	// MCPToken is the bearer token the HTTP endpoint asks for ("" for none).
	MCPToken string
	// AllowedHosts are the host names the HTTP endpoint answers to besides
	// localhost and IP addresses.
	AllowedHosts []string
	// Auth is AUDIOBOOKSHELF_MCP_AUTH: AuthAuto, AuthPerPerson or
	// AuthServerKey.
	Auth string
	// PerPerson is the mode decided from Auth and the transport (see
	// ResolveAuth): no key of the server's, each call brings its person's.
	PerPerson bool
	// LogLevel is the lowest level of the JSON log lines written.
	LogLevel slog.Level
	// Warnings are printed on stderr at start.
	Warnings []string
}

// FromEnv reads the configuration from getenv and removes the API key and the
// MCP token from the process environment (unsetenv may be nil in tests).
func FromEnv(getenv func(string) string, lookup func(string) (string, bool), unsetenv func(string) error) (*Config, error) {
	c := &Config{Elicitation: true, Timeout: 30 * time.Second, MaxResultChars: result.DefaultMaxResultChars}
	var errs []error
	if v := getenv("AUDIOBOOKSHELF_URL"); v != "" {
		u, warn, err := ParseURL(v)
		if err != nil {
			errs = append(errs, err)
		}
		c.URL = u
		if warn != "" {
			c.Warnings = append(c.Warnings, warn)
		}
	}
	c.APIKey = strings.TrimSpace(getenv("AUDIOBOOKSHELF_API_KEY"))
	if unsetenv != nil {
		_ = unsetenv("AUDIOBOOKSHELF_API_KEY")
	}
	if v, ok := lookup("AUDIOBOOKSHELF_MCP_TOKEN"); ok {
		if unsetenv != nil {
			_ = unsetenv("AUDIOBOOKSHELF_MCP_TOKEN")
		}
		tok, err := ParseMCPToken(v)
		if err != nil {
			errs = append(errs, err)
		}
		c.MCPToken = tok
	}
	var err error
	if c.ReadOnly, err = parseBool(lookup, "AUDIOBOOKSHELF_READ_ONLY", false); err != nil {
		errs = append(errs, err)
	}
	if c.InsecureTLS, err = parseBool(lookup, "AUDIOBOOKSHELF_INSECURE_TLS", false); err != nil {
		errs = append(errs, err)
	}
	if c.InsecureTLS {
		c.Warnings = append(c.Warnings, "AUDIOBOOKSHELF_INSECURE_TLS=true: the certificate of the Audiobookshelf server is not verified")
	}
	if c.Elicitation, err = parseBool(lookup, "ELICITATION", true); err != nil {
		errs = append(errs, err)
	}
	if v, ok := lookup("AUDIOBOOKSHELF_TOOLSETS"); ok {
		if c.Toolsets, err = ParseToolsets(v); err != nil {
			errs = append(errs, err)
		}
	}
	if v, ok := lookup("AUDIOBOOKSHELF_STATE_KEY"); ok {
		if c.StateKey, err = guard.ParseKey(v); err != nil {
			errs = append(errs, err)
		}
	}
	if v, ok := lookup(guard.StoreVariable); ok {
		if c.ApprovalStore, err = guard.ParseStore(v); err != nil {
			errs = append(errs, err)
		}
	}
	if v, ok := lookup("AUDIOBOOKSHELF_TIMEOUT"); ok {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Second || d > 10*time.Minute {
			errs = append(errs, fmt.Errorf("AUDIOBOOKSHELF_TIMEOUT=%q: must be a duration from 1s to 10m, such as 30s or 2m", clip(v)))
		} else {
			c.Timeout = d
		}
	}
	if v, ok := lookup("AUDIOBOOKSHELF_MAX_RESULT_CHARS"); ok {
		if c.MaxResultChars, err = ParseMaxResultChars(v); err != nil {
			errs = append(errs, err)
		}
	}
	if v, ok := lookup("AUDIOBOOKSHELF_MCP_ALLOWED_HOSTS"); ok {
		if c.AllowedHosts, err = ParseAllowedHosts(v); err != nil {
			errs = append(errs, err)
		}
	}
	c.Auth = AuthAuto
	if v, ok := lookup("AUDIOBOOKSHELF_MCP_AUTH"); ok {
		switch v {
		case AuthAuto, AuthPerPerson, AuthServerKey:
			c.Auth = v
		default:
			errs = append(errs, fmt.Errorf("AUDIOBOOKSHELF_MCP_AUTH=%q: must be one of auto, per-person, server-key (default auto)", clip(v)))
		}
	}
	if v, ok := lookup("AUDIOBOOKSHELF_LOG_LEVEL"); ok {
		if c.LogLevel, err = ParseLogLevel(v); err != nil {
			errs = append(errs, err)
		}
	}
	return c, errors.Join(errs...)
}

// The values of AUDIOBOOKSHELF_MCP_AUTH.
const (
	AuthAuto      = "auto"
	AuthPerPerson = "per-person"
	AuthServerKey = "server-key"
)

// ResolveAuth decides per-person mode for a server that serves HTTP or not,
// and sets PerPerson; the error says which setting is in the way.
func (c *Config) ResolveAuth(http bool) error {
	switch c.Auth {
	case AuthPerPerson:
		var errs []error
		if !http {
			errs = append(errs, errors.New("AUDIOBOOKSHELF_MCP_AUTH=per-person needs --http ADDR: over stdio the one client is the person, and the server uses AUDIOBOOKSHELF_API_KEY"))
		}
		if c.URL == "" {
			errs = append(errs, errors.New("AUDIOBOOKSHELF_MCP_AUTH=per-person needs AUDIOBOOKSHELF_URL: each person's key is checked with that Audiobookshelf server"))
		}
		if c.APIKey != "" {
			errs = append(errs, errors.New("AUDIOBOOKSHELF_MCP_AUTH=per-person and AUDIOBOOKSHELF_API_KEY are both set: in per-person mode the server holds no Audiobookshelf key (each person sends their own). Unset AUDIOBOOKSHELF_API_KEY, or use AUDIOBOOKSHELF_MCP_AUTH=server-key for one key for everyone"))
		}
		if c.MCPToken != "" {
			errs = append(errs, errors.New("AUDIOBOOKSHELF_MCP_AUTH=per-person and AUDIOBOOKSHELF_MCP_TOKEN are both set: in per-person mode the Authorization: Bearer header carries each person's Audiobookshelf key, so there is no place for a second token. Unset AUDIOBOOKSHELF_MCP_TOKEN (each person's key authenticates them), or use AUDIOBOOKSHELF_MCP_AUTH=server-key"))
		}
		if len(errs) > 0 {
			return errors.Join(errs...)
		}
		c.PerPerson = true
	case AuthAuto:
		c.PerPerson = http && c.URL != "" && c.APIKey == "" && c.MCPToken == ""
	default:
		c.PerPerson = false
	}
	return nil
}

// ParseMaxResultChars takes a whole number of characters within the
// bounds, written in digits alone (no sign, no spaces, no separators).
func ParseMaxResultChars(v string) (int, error) {
	n := 0
	ok := v != "" && len(v) <= 8
	for i := 0; ok && i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			ok = false
			break
		}
		n = n*10 + int(v[i]-'0')
	}
	if !ok || n < result.MinMaxResultChars || n > result.MaxMaxResultChars {
		return result.DefaultMaxResultChars, fmt.Errorf("AUDIOBOOKSHELF_MAX_RESULT_CHARS=%q: must be a whole number of characters from %d to %d, in digits only (default %d)", clip(v), result.MinMaxResultChars, result.MaxMaxResultChars, result.DefaultMaxResultChars)
	}
	return n, nil
}

// ParseLogLevel takes one of LogLevels, exactly.
func ParseLogLevel(v string) (slog.Level, error) {
	switch v {
	case "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warn":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return slog.LevelInfo, fmt.Errorf("AUDIOBOOKSHELF_LOG_LEVEL=%q: must be one of %s (default info)", clip(v), strings.Join(LogLevels, ", "))
}

// parseBool takes exactly "true" or "false"; unset gives def. Anything else,
// the empty string included, is an error naming both values.
func parseBool(lookup func(string) (string, bool), name string, def bool) (bool, error) {
	v, ok := lookup(name)
	if !ok {
		return def, nil
	}
	switch v {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return def, fmt.Errorf("%s=%q: must be exactly true or false", name, clip(v))
}

// ParseURL checks and normalises AUDIOBOOKSHELF_URL. It returns a warning
// for plain http to a host that is not loopback.
func ParseURL(v string) (string, string, error) {
	if t := strings.TrimSpace(v); t != "" && !strings.Contains(t, "://") && !strings.ContainsAny(t, "@?# ") {
		// A host, host:port or host/path without a scheme: say what to write.
		return "", "", fmt.Errorf("AUDIOBOOKSHELF_URL=%q has no scheme: it must be an http:// or https:// URL; write http:// (or https:// where Audiobookshelf is served with TLS) in front of it, such as http://%s", clip(t), clip(strings.TrimSuffix(t, "/")))
	}
	u, err := url.Parse(strings.TrimSpace(v))
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", "", fmt.Errorf("AUDIOBOOKSHELF_URL: must be an http:// or https:// URL such as http://127.0.0.1:13378 (got %q)", redactURL(v))
	}
	if u.User != nil {
		return "", "", errors.New("AUDIOBOOKSHELF_URL: must not contain user:password@; put the API key in AUDIOBOOKSHELF_API_KEY")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", "", errors.New("AUDIOBOOKSHELF_URL: must not contain a query or fragment (never put a token in the URL)")
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	warn := ""
	if u.Scheme == "http" && !isLoopback(u.Hostname()) {
		warn = fmt.Sprintf("AUDIOBOOKSHELF_URL uses plain http to %s: the API key travels unencrypted; use https unless this is a trusted network", u.Hostname())
	}
	return u.String(), warn, nil
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// redactURL drops any user info and query from a URL for an error message.
func redactURL(v string) string {
	if u, err := url.Parse(v); err == nil {
		u.User = nil
		u.RawQuery = ""
		return clip(u.String())
	}
	return "(unparsable)"
}

// ParseMCPToken checks AUDIOBOOKSHELF_MCP_TOKEN. The message never repeats
// the value.
func ParseMCPToken(v string) (string, error) {
	if len(v) < MinTokenLen {
		return "", fmt.Errorf("AUDIOBOOKSHELF_MCP_TOKEN: must be at least %d characters (it has %d); make one with: openssl rand -hex 32. Unset it to serve without a token", MinTokenLen, len(v))
	}
	for i := 0; i < len(v); i++ {
		if v[i] < 0x21 || v[i] > 0x7e {
			return "", fmt.Errorf("AUDIOBOOKSHELF_MCP_TOKEN: must be printable ASCII without spaces (character %d is not); make one with: openssl rand -hex 32", i+1)
		}
	}
	return v, nil
}

// ParseAllowedHosts checks AUDIOBOOKSHELF_MCP_ALLOWED_HOSTS: host names
// (letters, digits, '-', '_' and '.'), without a scheme, port or path. The
// underscore is not in DNS host names, but containers and proxies spell
// names with it (a compose service mcp_ful, an nginx upstream
// audiobookshelf_mcp), and such a proxy sends that name as the Host header.
func ParseAllowedHosts(v string) ([]string, error) {
	var out []string
	for _, part := range strings.Split(v, ",") {
		h := strings.ToLower(strings.TrimSuffix(strings.TrimSpace(part), "."))
		if h == "" {
			continue
		}
		ok := len(h) <= 253
		for i := 0; i < len(h) && ok; i++ {
			c := h[i]
			ok = c == '-' || c == '.' || c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z'
		}
		if !ok {
			return nil, fmt.Errorf("AUDIOBOOKSHELF_MCP_ALLOWED_HOSTS: %q is not a host name; give names only (letters, digits, '-', '_' and '.'), without scheme, port or path, separated by commas, such as mcp.example.org,nas.lan", clip(part))
		}
		out = append(out, h)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("AUDIOBOOKSHELF_MCP_ALLOWED_HOSTS=%q names no host; give names separated by commas, or leave it unset", clip(v))
	}
	return out, nil
}

// Default is the name AUDIOBOOKSHELF_TOOLSETS gives the default tools: the
// tools of tools.yaml marked default, whatever their toolset. In a parsed
// list it stands for them.
const Default = "default"

// ParseToolsets checks a comma-separated list against the manifest's
// toolsets. "default" stands for the default tools (kept in the list as
// Default), "all" for every toolset; the result is in the manifest's order,
// each once, Default first.
func ParseToolsets(v string) ([]string, error) {
	valid := map[string]bool{}
	var names []string
	for _, ts := range registry.Toolsets {
		valid[ts.Name] = true
		names = append(names, ts.Name)
	}
	chosen := map[string]bool{}
	var bad []string
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		switch {
		case part == "":
		case part == Default:
			chosen[Default] = true
		case part == "all":
			for _, ts := range registry.Toolsets {
				chosen[ts.Name] = true
			}
		case !valid[part]:
			bad = append(bad, clip(part))
		default:
			chosen[part] = true
		}
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("AUDIOBOOKSHELF_TOOLSETS=%q: unknown toolset %s; valid toolsets: %s (or default, all)", clip(v), strings.Join(bad, ", "), strings.Join(names, ", "))
	}
	if len(chosen) == 0 {
		return nil, fmt.Errorf("AUDIOBOOKSHELF_TOOLSETS=%q names no toolset; valid toolsets: %s (or default, all; leave it unset for the default tools)", clip(v), strings.Join(names, ", "))
	}
	var out []string
	if chosen[Default] && !allOf(chosen, names) {
		out = append(out, Default)
	}
	for _, n := range names {
		if chosen[n] {
			out = append(out, n)
		}
	}
	return out, nil
}

func allOf(chosen map[string]bool, names []string) bool {
	for _, n := range names {
		if !chosen[n] {
			return false
		}
	}
	return true
}

// DefaultToolsets is what an unset AUDIOBOOKSHELF_TOOLSETS stands for: the
// default tools.
func DefaultToolsets() []string { return []string{Default} }

// AllToolsets is every toolset of the manifest.
func AllToolsets() []string {
	var out []string
	for _, ts := range registry.Toolsets {
		out = append(out, ts.Name)
	}
	return out
}

// DefaultTools are the names of the default tools, in the manifest's order.
func DefaultTools() []string {
	var out []string
	for _, t := range registry.All {
		if t.Default {
			out = append(out, t.Name)
		}
	}
	return out
}

// DefaultText says what the default tools are, for the reference.
func DefaultText() string {
	return "the tools " + strings.Join(DefaultTools(), ", ") + ", and the discovery tools"
}

// toolsetsText lists every toolset.
func toolsetsText() string { return strings.Join(AllToolsets(), ", ") }

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// Getenv bundles the real environment for FromEnv.
func Getenv() (func(string) string, func(string) (string, bool), func(string) error) {
	return os.Getenv, os.LookupEnv, os.Unsetenv
}

package toolgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// BundleManifestFile is the template of the MCP Bundle's manifest.json.
// `make release` (cmd/release) copies it into each bundle with "version" set
// to the release's; everything else is as written here.
const BundleManifestFile = "packaging/mcpb/manifest.json"

// BundleVersionPlaceholder is the template's version, replaced at release.
const BundleVersionPlaceholder = "0.0.0"

// Where the binaries sit inside the bundle (cmd/release puts them there):
// server/launch.sh picks server/<goos>-<goarch>/audiobookshelf-mcp by
// `uname -s` and `uname -m` on macOS and Linux; Windows starts the amd64
// executable directly, since a script cannot be started there without a
// shell (on an Arm machine that executable, under x64 emulation, hands off
// to server/windows-arm64/audiobookshelf-mcp.exe beside it).
const (
	BundleLauncher    = "server/launch.sh"
	BundleWindowsExec = "server/windows-amd64/audiobookshelf-mcp.exe"
)

// BundleIcon is the bundle's icon, next to the manifest template and at
// the root of the bundle (cmd/release draws it: make generate).
const BundleIcon = "icon.png"

// UserConfig is one setting Claude Desktop asks at install, and the
// variable it is passed to the server in (documented in internal/config,
// but for SSL_CERT_FILE, Go's own).
type UserConfig struct {
	Key, Type, Title, Description, Env string
	Required, Sensitive                bool
	Default                            any
	Min, Max                           float64
	// EnvValue is how the answer is written into Env ("" for as it is):
	// "%s" stands for the answer.
	EnvValue string
}

// BundleUserConfig is what Claude Desktop asks at install, for manifest m,
// and the variable each answer is passed in. An optional setting has a
// default the server takes as the variable's default, since Claude Desktop
// passes an unanswered setting without a default as the literal
// ${user_config.KEY}.
func BundleUserConfig(m *Manifest) []UserConfig {
	var toolsets []string
	for _, ts := range m.Toolsets {
		toolsets = append(toolsets, ts.Name)
	}
	return []UserConfig{
		{Key: "audiobookshelf_url", Type: "string", Title: "Audiobookshelf URL",
			Description: "Base URL of your Audiobookshelf server, e.g. https://abs.example.org or http://192.168.1.10:13378.",
			Env:         "AUDIOBOOKSHELF_URL", Required: true},
		{Key: "api_key", Type: "string", Title: "API key",
			Description: "An Audiobookshelf API key (Audiobookshelf 2.26 or newer): Settings → API Keys. Only an admin can make one, for the user it acts for. Stored by Claude Desktop, never shown or logged by the server.",
			Env:         "AUDIOBOOKSHELF_API_KEY", Required: true, Sensitive: true},
		{Key: "read_only", Type: "boolean", Title: "Read-only",
			Description: "Offer only the tools that read; nothing in your library can be changed.",
			Env:         "AUDIOBOOKSHELF_READ_ONLY", Default: false},
		{Key: "toolsets", Type: "string", Title: "Toolsets",
			Description: "The tools listed from the start, separated by commas: default (a few everyday tools; Claude turns the other toolsets on when it needs them), all (every tool), or toolsets among " + strings.Join(toolsets, ", ") + ", with or without default.",
			Env:         "AUDIOBOOKSHELF_TOOLSETS", Default: "default"},
		{Key: "timeout_seconds", Type: "number", Title: "Request timeout (seconds)",
			Description: "How long one request to Audiobookshelf may take before the call fails with a clear error: 1 to 600 seconds.",
			Env:         "AUDIOBOOKSHELF_TIMEOUT", Default: 30, Min: 1, Max: 600, EnvValue: "%ss"},
		{Key: "certificate_file", Type: "file", Title: "Certificate of a self-signed server (Linux)",
			Description: "For an Audiobookshelf with a self-signed certificate, on Linux: a PEM file holding that certificate, trusted instead of the system's certificates (SSL_CERT_FILE). On macOS and Windows add the certificate to the system's trust store instead. Leave empty otherwise.",
			Env:         "SSL_CERT_FILE", Default: ""},
		{Key: "insecure_tls", Type: "boolean", Title: "Skip certificate verification",
			Description: "Only if the server's certificate cannot be trusted any other way: do not verify the certificate of the Audiobookshelf connection (anyone on the network path could read the API key). The server warns at start.",
			Env:         "AUDIOBOOKSHELF_INSECURE_TLS", Default: false},
	}
}

// bundleLongDescription is the bundle's long description (Markdown), from
// tools.yaml's counts: every tool, and the default ones the bundle lists
// until Claude turns a toolset on (its toolsets setting starts as
// default).
func bundleLongDescription(m *Manifest, repo string) string {
	read, guarded, defaults := 0, 0, 0
	for _, t := range m.Tools {
		if t.Annotations.ReadOnly != nil && *t.Annotations.ReadOnly {
			read++
		}
		if !t.Guard.None {
			guarded++
		}
		if t.Default {
			defaults++
		}
	}
	var ts []string
	for _, t := range m.Toolsets {
		ts = append(ts, "**"+t.Name+"** ("+strings.TrimSuffix(t.Description, ".")+")")
	}
	return fmt.Sprintf(`Your [Audiobookshelf](https://www.audiobookshelf.org) library in Claude: ask what you are listening to, find books and podcast episodes, set progress and bookmarks, put a series in order in a collection.

- **%d tools** in %d toolsets, %d that read and %d that write. Listed from the start: %d everyday tools and %d that let Claude turn any other toolset on when a request needs it, so a conversation pays only for what it uses. The toolsets: %s.
- **Nothing you curated is taken away without you being asked**: %d tools ask you first, in a dialog that names each title or name it changes (quoted, beside its id) with the counts, before they take out something that cannot be put back from here.
- Compact answers by default; the raw Audiobookshelf object on request.

You need your Audiobookshelf's URL and an API key (Audiobookshelf 2.26 or newer: Settings → API Keys, made by an admin for your user). Optional: read-only mode, the toolsets listed from the start (all: every tool), the request timeout, a self-signed certificate.

Documentation: %s#readme. MIT license.`,
		len(m.Tools), len(m.Toolsets), read, len(m.Tools)-read, defaults, len(m.Discovery), strings.Join(ts, "; "), guarded, repo)
}

// renderBundleManifest is the MCP Bundle manifest (manifest_version 0.3 of
// the mcpb format): a binary server with the tools of tools.yaml.
func renderBundleManifest(m *Manifest) ([]byte, error) {
	const repo = "https://github.com/audiobookshelf-mcp/audiobookshelf-mcp"
	env := newObj()
	user := newObj()
	for _, u := range BundleUserConfig(m) {
		value := "${user_config." + u.Key + "}"
		if u.EnvValue != "" {
			value = fmt.Sprintf(u.EnvValue, value)
		}
		env.set(u.Env, value)
		o := newObj().set("type", u.Type).set("title", u.Title).set("description", u.Description).set("required", u.Required)
		if u.Sensitive {
			o.set("sensitive", true)
		}
		if u.Default != nil {
			o.set("default", u.Default)
		}
		if u.Min != 0 || u.Max != 0 {
			o.set("min", u.Min).set("max", u.Max)
		}
		user.set(u.Key, o)
	}
	var tools []*obj
	for i := range m.Tools {
		t := &m.Tools[i]
		tools = append(tools, newObj().set("name", t.Name).set("description", oneLine(t.Description)))
	}
	for _, d := range m.Discovery { // listed with the default tools
		tools = append(tools, newObj().set("name", d.Name).set("description", oneLine(d.Description)))
	}
	mcp := newObj().
		set("command", "/bin/sh").
		set("args", []string{"${__dirname}/" + BundleLauncher}).
		set("env", env).
		set("platform_overrides", newObj().set("win32", newObj().
			set("command", "${__dirname}/"+BundleWindowsExec).
			set("args", []string{})))
	man := newObj().
		set("manifest_version", "0.3").
		set("name", m.Server.Name).
		set("display_name", m.Server.Title).
		set("version", BundleVersionPlaceholder).
		set("description", m.Server.Description).
		set("long_description", bundleLongDescription(m, repo)).
		set("author", newObj().set("name", m.Server.Name+" contributors").set("url", repo)).
		set("repository", newObj().set("type", "git").set("url", repo)).
		set("homepage", repo).
		set("documentation", repo+"#readme").
		set("support", repo+"/issues").
		set("icon", BundleIcon).
		set("license", "MIT").
		set("server", newObj().
			set("type", "binary").
			set("entry_point", BundleLauncher).
			set("mcp_config", mcp)).
		set("tools", tools).
		set("tools_generated", false).
		set("keywords", []string{"audiobookshelf", "audiobooks", "podcasts", "library", "self-hosted", "listening progress", "bookmarks", "collections"}).
		set("compatibility", newObj().set("platforms", []string{"darwin", "win32", "linux"})).
		set("user_config", user)
	compact, err := marshalNoEscape(man)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, compact, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

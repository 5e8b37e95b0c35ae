package toolgen

import (
	"bytes"
	"encoding/json"
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
// executable directly (Windows on Arm runs it under its x64 emulation), since
// a script cannot be started there without a shell.
const (
	BundleLauncher    = "server/launch.sh"
	BundleWindowsExec = "server/windows-amd64/audiobookshelf-mcp.exe"
)

// BundleUserConfig is what Claude Desktop asks at install, and the variable
// of internal/config each answer is passed in.
var BundleUserConfig = []struct {
	Key, Type, Title, Description, Env string
	Required, Sensitive                bool
	Default                            any
}{
	{"audiobookshelf_url", "string", "Audiobookshelf URL",
		"Base URL of your Audiobookshelf server, e.g. https://abs.example.org or http://192.168.1.10:13378.",
		"AUDIOBOOKSHELF_URL", true, false, nil},
	{"api_key", "string", "API key",
		"An Audiobookshelf API key: in Audiobookshelf, Settings → Users → API keys (Audiobookshelf 2.26 or newer). Stored by Claude Desktop, never shown or logged by the server.",
		"AUDIOBOOKSHELF_API_KEY", true, true, nil},
	{"read_only", "boolean", "Read-only",
		"Offer only the tools that read; nothing in your library can be changed.",
		"AUDIOBOOKSHELF_READ_ONLY", false, false, false},
}

// renderBundleManifest is the MCP Bundle manifest (manifest_version 0.3 of
// the mcpb format): a binary server with the tools of tools.yaml.
func renderBundleManifest(m *Manifest) ([]byte, error) {
	const repo = "https://github.com/audiobookshelf-mcp/audiobookshelf-mcp"
	env := newObj()
	user := newObj()
	for _, u := range BundleUserConfig {
		env.set(u.Env, "${user_config."+u.Key+"}")
		o := newObj().set("type", u.Type).set("title", u.Title).set("description", u.Description).set("required", u.Required)
		if u.Sensitive {
			o.set("sensitive", true)
		}
		if u.Default != nil {
			o.set("default", u.Default)
		}
		user.set(u.Key, o)
	}
	var tools []*obj
	for i := range m.Tools {
		t := &m.Tools[i]
		tools = append(tools, newObj().set("name", t.Name).set("description", oneLine(t.Description)))
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
		set("author", newObj().set("name", m.Server.Name+" contributors").set("url", repo)).
		set("repository", newObj().set("type", "git").set("url", repo)).
		set("homepage", repo).
		set("documentation", repo+"#readme").
		set("license", "MIT").
		set("server", newObj().
			set("type", "binary").
			set("entry_point", BundleLauncher).
			set("mcp_config", mcp)).
		set("tools", tools).
		set("tools_generated", false).
		set("keywords", []string{"audiobookshelf", "audiobooks", "podcasts", "library"}).
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

package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/registry"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
)

// These tests keep what a person reads (the flag table of
// docs/configuration.md, the subcommands' pages, server.json) the same as
// what the code does.

func TestSubcommandsPrintTheGeneratedDocs(t *testing.T) {
	for cmd, file := range map[string]string{"tools": "../../docs/tools.md", "guards": "../../docs/guards.md"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		doc := string(b)
		if !strings.HasPrefix(doc, "<!-- Code generated") {
			t.Fatalf("%s does not start with its generated-file comment", file)
		}
		_, rest, _ := strings.Cut(doc, "\n")
		want := strings.TrimLeft(rest, "\n")
		code, out, errOut := runQuick(t, baseEnv(), cmd)
		if code != 0 || errOut != "" {
			t.Errorf("%s: exit %d, stderr %q", cmd, code, errOut)
		}
		if out != want {
			t.Errorf("`audiobookshelf-mcp %s` is not %s (less its first line)", cmd, file)
		}
		if code, _, _ := runQuick(t, baseEnv(), cmd, "extra"); code != 2 {
			t.Errorf("%s extra: exit %d, want 2", cmd, code)
		}
	}
	_, out, _ := runQuick(t, baseEnv(), "tools")
	for _, tool := range registry.All {
		if !strings.Contains(out, "### "+tool.Name+"\n") {
			t.Errorf("`tools` lacks %s", tool.Name)
		}
	}
	_, out, _ = runQuick(t, baseEnv(), "guards")
	// The guard table lists the guarded tools; the table under "Every write
	// either asks or can be undone" lists every write tool.
	table, writes, ok := strings.Cut(out, "## Every write either asks or can be undone")
	if !ok {
		t.Fatalf("`guards` lacks the write-tool section")
	}
	for _, tool := range registry.All {
		if (tool.Guard != nil) != strings.Contains(table, "| `"+tool.Name+"` |") {
			t.Errorf("`guards` and the registry disagree on %s", tool.Name)
		}
		if !tool.ReadOnly != strings.Contains(writes, "| `"+tool.Name+"` |") {
			t.Errorf("`guards`' write tools and the registry disagree on %s", tool.Name)
		}
	}
}

// flagTable is docs/configuration.md's flag and subcommand reference as
// Flags and Subcommands make it.
func flagTable() string {
	var b strings.Builder
	b.WriteString("| flag | default | meaning |\n|---|---|---|\n")
	for _, f := range Flags {
		name := f.Name
		if f.Arg != "" {
			name += " " + f.Arg
		}
		def := f.Default
		if def == "" {
			def = "—"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", name, def, f.Meaning)
	}
	b.WriteString("\n| command | what it does |\n|---|---|\n")
	for _, c := range Subcommands {
		fmt.Fprintf(&b, "| `audiobookshelf-mcp %s` | %s |\n", c.Name, c.Meaning)
	}
	return b.String()
}

func TestDocsFlagTable(t *testing.T) {
	b, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i, j := strings.Index(s, "<!-- flags:start -->\n"), strings.Index(s, "<!-- flags:end -->")
	if i < 0 || j < i {
		t.Fatal("docs/configuration.md lacks the flags:start/flags:end markers")
	}
	if got, want := s[i+len("<!-- flags:start -->\n"):j], flagTable(); got != want {
		t.Errorf("docs/configuration.md's flag table is not main.Flags and main.Subcommands; it should read:\n%s", want)
	}
	// Every flag in the table is defined, and every defined flag is in it.
	var o options
	fs := newFlagSet(io.Discard, &o)
	var defined []string
	fs.VisitAll(func(f *flag.Flag) { defined = append(defined, "--"+f.Name) })
	defined = append(defined, "--help") // the flag package's own
	var documented []string
	for _, f := range Flags {
		documented = append(documented, f.Name)
	}
	slices.Sort(defined)
	slices.Sort(documented)
	if !slices.Equal(defined, documented) {
		t.Errorf("flags defined %v, documented %v", defined, documented)
	}
	// --help shows each flag and each variable.
	_, _, errOut := runQuick(t, baseEnv(), "--help")
	for _, f := range Flags {
		if !strings.Contains(errOut, f.Name) || !strings.Contains(errOut, f.Usage) {
			t.Errorf("--help lacks %s: %s", f.Name, f.Usage)
		}
	}
	for _, v := range config.Vars {
		if !strings.Contains(errOut, v.Name) {
			t.Errorf("--help lacks %s", v.Name)
		}
	}
}

// serverJSON is what the test reads of server.json.
type serverJSON struct {
	Schema      string `json:"$schema"`
	Name        string `json:"name"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Version     string `json:"version"`
	Repository  struct {
		URL    string `json:"url"`
		Source string `json:"source"`
	} `json:"repository"`
	Packages []struct {
		RegistryType string `json:"registryType"`
		Identifier   string `json:"identifier"`
		Version      string `json:"version"`
		Transport    struct {
			Type string `json:"type"`
		} `json:"transport"`
		EnvironmentVariables []serverJSONVar `json:"environmentVariables"`
	} `json:"packages"`
}

type serverJSONVar struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	IsRequired  bool     `json:"isRequired"`
	IsSecret    bool     `json:"isSecret"`
	Format      string   `json:"format"`
	Default     *string  `json:"default"`
	Choices     []string `json:"choices"`
}

const module = "github.com/audiobookshelf-mcp/audiobookshelf-mcp"

// TestServerJSON keeps the MCP registry entry the same as the code: name,
// title, version, the two packages, and every variable of config.Vars with
// its meaning and default. (internal/release generates it and validates it
// against the registry's schema; this reads it as a second, plain check.)
func TestServerJSON(t *testing.T) {
	b, err := os.ReadFile("../../server.json")
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	var sj serverJSON
	if err := dec.Decode(&sj); err != nil {
		t.Fatal(err)
	}
	if sj.Schema != "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json" {
		t.Errorf("$schema %q", sj.Schema)
	}
	if sj.Name != "io.github.audiobookshelf-mcp/"+registry.ServerName || !regexp.MustCompile(`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`).MatchString(sj.Name) {
		t.Errorf("name %q", sj.Name)
	}
	if sj.Title != registry.ServerTitle {
		t.Errorf("title %q, the server's is %q", sj.Title, registry.ServerTitle)
	}
	if n := len([]rune(sj.Description)); n == 0 || n > 100 {
		t.Errorf("description of %d characters (1 to 100): %q", n, sj.Description)
	}
	if sj.Version != version {
		t.Errorf("version %q, the binary's is %q", sj.Version, version)
	}
	if sj.Repository.URL != "https://"+module || sj.Repository.Source != "github" {
		t.Errorf("repository %+v", sj.Repository)
	}
	gomod, err := os.ReadFile("../../go.mod")
	if err != nil || !strings.HasPrefix(string(gomod), "module "+module+"\n") {
		t.Fatalf("go.mod is not module %s", module)
	}
	if len(sj.Packages) != 2 {
		t.Fatalf("%d packages, want 2 (the container image and the MCP Bundle)", len(sj.Packages))
	}
	if p := sj.Packages[0]; p.RegistryType != "oci" || p.Identifier != "ghcr.io/audiobookshelf-mcp/audiobookshelf-mcp:"+version || p.Transport.Type != "streamable-http" {
		t.Errorf("image package %s %s %s", p.RegistryType, p.Identifier, p.Transport.Type)
	}
	if p := sj.Packages[1]; p.RegistryType != "mcpb" || p.Version != version || p.Transport.Type != "stdio" ||
		p.Identifier != "https://"+module+"/releases/download/v"+version+"/audiobookshelf-mcp_"+version+".mcpb" {
		t.Errorf("bundle package %s %s %s %s", p.RegistryType, p.Identifier, p.Version, p.Transport.Type)
	}
	for _, p := range sj.Packages {
		checkServerJSONVars(t, p.RegistryType, p.EnvironmentVariables)
	}
}

// checkServerJSONVars: every variable of config.Vars with its meaning and
// default, in order; the bundle (stdio) leaves out the three only --http
// reads. The image, which listens on every interface of its container, also
// requires the MCP token.
func checkServerJSONVars(t *testing.T, pkg string, vars []serverJSONVar) {
	t.Helper()
	var names []string
	for _, e := range vars {
		names = append(names, e.Name)
	}
	var want []config.Var
	var wantNames []string
	for _, v := range config.Vars {
		if pkg == "mcpb" && (v.Name == "AUDIOBOOKSHELF_MCP_AUTH" || v.Name == "AUDIOBOOKSHELF_MCP_TOKEN" || v.Name == "AUDIOBOOKSHELF_MCP_ALLOWED_HOSTS") {
			continue
		}
		want = append(want, v)
		wantNames = append(wantNames, v.Name)
	}
	if !slices.Equal(names, wantNames) {
		t.Fatalf("%s: environment variables %v, want %v", pkg, names, wantNames)
	}
	secret := map[string]bool{"AUDIOBOOKSHELF_API_KEY": true, "AUDIOBOOKSHELF_STATE_KEY": true, "AUDIOBOOKSHELF_MCP_TOKEN": true}
	required := map[string]bool{"AUDIOBOOKSHELF_URL": true, "AUDIOBOOKSHELF_API_KEY": true, "AUDIOBOOKSHELF_MCP_TOKEN": pkg == "oci"}
	for i, e := range vars {
		v := want[i]
		if e.Description != v.Meaning {
			t.Errorf("%s: description is not config.Vars' meaning", e.Name)
		}
		if e.IsSecret != secret[e.Name] || e.IsRequired != required[e.Name] {
			t.Errorf("%s: isSecret %v, isRequired %v", e.Name, e.IsSecret, e.IsRequired)
		}
		concrete := !strings.HasPrefix(v.Default, "(")
		if concrete != (e.Default != nil) || (e.Default != nil && *e.Default != v.Default) {
			t.Errorf("%s: default %v, config.Vars says %q", e.Name, e.Default, v.Default)
		}
		if v.Allowed == "true or false" {
			if e.Format != "boolean" || !slices.Equal(e.Choices, []string{"true", "false"}) {
				t.Errorf("%s: a boolean variable: format %q, choices %v", e.Name, e.Format, e.Choices)
			}
		} else if v.Name == "AUDIOBOOKSHELF_LOG_LEVEL" {
			if e.Format != "" || !slices.Equal(e.Choices, config.LogLevels) {
				t.Errorf("%s: format %q, choices %v, want config.LogLevels", e.Name, e.Format, e.Choices)
			}
		} else if e.Format != "" || e.Choices != nil {
			t.Errorf("%s: format %q, choices %v", e.Name, e.Format, e.Choices)
		}
	}
}

package release

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/toolgen"
)

// Where this server is published.
const (
	// Namespace is the registry namespace: io.github.OWNER, proven by
	// publishing from that GitHub account.
	Namespace = "io.github.audiobookshelf-mcp"
	// Repository is the source repository; its releases hold the archives
	// and the bundle.
	Repository = "https://github.com/audiobookshelf-mcp/audiobookshelf-mcp"
	// ImageRepository is where the container image is pushed.
	ImageRepository = "ghcr.io/audiobookshelf-mcp/audiobookshelf-mcp"
	// ServerSchema is the server.json schema version this file follows; a
	// copy is in testdata/ and the tests validate against it.
	ServerSchema = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
	// ServerJSONFile is the checked-in server.json, relative to the root.
	ServerJSONFile = "server.json"
	// ImagePort is the port the image serves MCP on (streamable HTTP, /mcp).
	ImagePort = 8080
)

// Variables of config.Vars whose values are secret, and those a person must
// give for the server to be of use. Every other property of each variable
// (the list itself, its meaning, default and allowed values) comes from
// config.Vars.
var (
	secretVars   = []string{"AUDIOBOOKSHELF_API_KEY", "AUDIOBOOKSHELF_STATE_KEY", "AUDIOBOOKSHELF_MCP_TOKEN"}
	requiredVars = []string{"AUDIOBOOKSHELF_URL", "AUDIOBOOKSHELF_API_KEY"}
	// The image listens on every interface of the container: its package
	// asks for the token as well.
	requiredInImage = "AUDIOBOOKSHELF_MCP_TOKEN"
	// httpOnlyVars mean something with --http alone: the bundle's package
	// (stdio) leaves them out.
	httpOnlyVars = []string{"AUDIOBOOKSHELF_MCP_AUTH", "AUDIOBOOKSHELF_MCP_TOKEN", "AUDIOBOOKSHELF_MCP_ALLOWED_HOSTS"}
)

// Meta is what tools.yaml says of the server.
type Meta struct{ Name, Title, Description string }

// RegistryName is the server's name in the MCP registry, and the value of
// the image's io.modelcontextprotocol.server.name label.
func (m Meta) RegistryName() string { return Namespace + "/" + m.Name }

// LoadMeta reads the server block of tools.yaml under root.
func LoadMeta(root string) (Meta, error) {
	m, err := toolgen.Load(filepath.Join(root, toolgen.ManifestFile))
	if err != nil {
		return Meta{}, err
	}
	return Meta{m.Server.Name, m.Server.Title, m.Server.Description}, nil
}

// MainVersion is the version the binary reports when none is stamped: the
// initial value of `var version` in cmd/audiobookshelf-mcp/main.go.
func MainVersion(root string) (string, error) {
	path := filepath.Join(root, MainPackage, "main.go")
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		return "", err
	}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			if len(v.Names) == 1 && v.Names[0].Name == "version" && len(v.Values) == 1 {
				if lit, ok := v.Values[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					return strconv.Unquote(lit.Value)
				}
			}
		}
	}
	return "", fmt.Errorf("%s: no `var version = \"...\"`", path)
}

// The parts of server.json written here, in the schema's names.
type (
	serverJSON struct {
		Schema      string      `json:"$schema"`
		Meta        *serverMeta `json:"_meta,omitempty"`
		Name        string      `json:"name"`
		Title       string      `json:"title"`
		Description string      `json:"description"`
		Version     string      `json:"version"`
		Repository  repository  `json:"repository"`
		WebsiteURL  string      `json:"websiteUrl"`
		Packages    []pkg       `json:"packages"`
	}
	// serverMeta is the schema's _meta: the schema has no field of its own for
	// a license, so it is said in the publisher-provided metadata.
	serverMeta struct {
		PublisherProvided publisherProvided `json:"io.modelcontextprotocol.registry/publisher-provided"`
	}
	publisherProvided struct {
		License string `json:"license"`
	}
	repository struct {
		URL    string `json:"url"`
		Source string `json:"source"`
	}
	pkg struct {
		RegistryType     string     `json:"registryType"`
		Identifier       string     `json:"identifier"`
		Version          string     `json:"version,omitempty"`
		FileSHA256       string     `json:"fileSha256,omitempty"`
		RuntimeHint      string     `json:"runtimeHint,omitempty"`
		RuntimeArguments []argument `json:"runtimeArguments,omitempty"`
		Transport        transport  `json:"transport"`
		Env              []input    `json:"environmentVariables"`
	}
	argument struct {
		Type        string `json:"type"`
		Name        string `json:"name"`
		Description string `json:"description"`
		Value       string `json:"value"`
	}
	transport struct {
		Type    string  `json:"type"`
		URL     string  `json:"url,omitempty"`
		Headers []input `json:"headers,omitempty"`
	}
	input struct {
		Name        string   `json:"name"`
		Description string   `json:"description"`
		IsRequired  bool     `json:"isRequired,omitempty"`
		IsSecret    bool     `json:"isSecret,omitempty"`
		Format      string   `json:"format,omitempty"`
		Value       string   `json:"value,omitempty"`
		Default     string   `json:"default,omitempty"`
		Choices     []string `json:"choices,omitempty"`
	}
)

// envVars is config.Vars as the registry's environmentVariables; required
// adds names to requiredVars; those of leave are left out.
func envVars(required, leave []string) ([]input, error) {
	known := map[string]bool{}
	for _, v := range config.Vars {
		known[v.Name] = true
	}
	for _, n := range slices.Concat(secretVars, requiredVars, required, leave) {
		if !known[n] {
			return nil, fmt.Errorf("release: %s is not a variable of config.Vars", n)
		}
	}
	var out []input
	for _, v := range config.Vars {
		if slices.Contains(leave, v.Name) {
			continue
		}
		in := input{
			Name:        v.Name,
			Description: v.Meaning,
			IsRequired:  slices.Contains(requiredVars, v.Name) || slices.Contains(required, v.Name),
			IsSecret:    slices.Contains(secretVars, v.Name),
		}
		if !strings.HasPrefix(v.Default, "(") { // "(none)", "(all)": no value to state
			in.Default = v.Default
		}
		if v.Allowed == "true or false" {
			in.Format, in.Choices = "boolean", []string{"true", "false"}
		}
		if v.Name == "AUDIOBOOKSHELF_LOG_LEVEL" {
			in.Choices = config.LogLevels
		}
		out = append(out, in)
	}
	return out, nil
}

// ServerJSON renders server.json for the release version (as stamped, e.g.
// v1.2.3 or 0.1.0-dev) with two packages: the container image (streamable
// HTTP) and the MCP Bundle (stdio). bundleSHA256 is the bundle's hash, or ""
// when there is no bundle to hash: then fileSha256 is left out and the
// registry refuses the file, as it should (publish dist/server.json, which
// `make release` writes with the hash of the bundle it packed).
func ServerJSON(meta Meta, version, bundleSHA256 string) ([]byte, error) {
	env, err := envVars(nil, httpOnlyVars)
	if err != nil {
		return nil, err
	}
	imageEnv, err := envVars([]string{requiredInImage}, nil)
	if err != nil {
		return nil, err
	}
	v := Version(version)
	sj := serverJSON{
		Schema:      ServerSchema,
		Meta:        &serverMeta{publisherProvided{License: LicenseID}},
		Name:        meta.RegistryName(),
		Title:       meta.Title,
		Description: meta.Description,
		Version:     v,
		Repository:  repository{Repository, "github"},
		WebsiteURL:  Repository + "#readme",
		Packages: []pkg{
			{
				RegistryType: "oci",
				Identifier:   ImageRepository + ":" + v,
				RuntimeHint:  "docker",
				RuntimeArguments: []argument{{
					Type: "named", Name: "-p", Value: fmt.Sprintf("127.0.0.1:%d:%d", ImagePort, ImagePort),
					Description: "Publish the MCP port on this machine only.",
				}},
				Transport: transport{
					Type: "streamable-http",
					URL:  fmt.Sprintf("http://127.0.0.1:%d/mcp", ImagePort),
					Headers: []input{{
						Name:        "Authorization",
						Description: "The bearer token the server asks for: AUDIOBOOKSHELF_MCP_TOKEN.",
						IsRequired:  true, IsSecret: true,
						Value: "Bearer {AUDIOBOOKSHELF_MCP_TOKEN}",
					}},
				},
				Env: imageEnv,
			},
			{
				RegistryType: "mcpb",
				Identifier:   fmt.Sprintf("%s/releases/download/v%s/%s", Repository, v, BundleName(v)),
				Version:      v,
				FileSHA256:   bundleSHA256,
				Transport:    transport{Type: "stdio"},
				Env:          env,
			},
		},
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(sj); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// CheckedInServerJSON is server.json as the repository keeps it: the version
// of main.go and no bundle hash.
func CheckedInServerJSON(root string) ([]byte, error) {
	meta, err := LoadMeta(root)
	if err != nil {
		return nil, err
	}
	v, err := MainVersion(root)
	if err != nil {
		return nil, err
	}
	return ServerJSON(meta, v, "")
}

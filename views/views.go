// Package views holds the MCP Apps views (io.modelcontextprotocol/ui) of
// the tools that have one (tools.yaml `view:`): each a single,
// self-contained HTML page, built by build.mjs from src/ with the npm
// packages pinned in package-lock.json into dist/, and embedded here.
// dist/ is generated: `make views` rebuilds it, and the test of
// views/test (node) fails when a fresh build differs from what is
// embedded.
package views

import (
	"embed"
	"io/fs"
	"strings"
)

//go:embed dist/*.html
var dist embed.FS

// MIMEType is the media type of a view's resource (the extension's
// RESOURCE_MIME_TYPE).
const MIMEType = "text/html;profile=mcp-app"

// Extension is the key of the MCP Apps extension in the client's and
// server's capabilities.
const Extension = "io.modelcontextprotocol/ui"

// URIPrefix and URISuffix frame a view's name in its resource URI.
const (
	URIPrefix = "ui://audiobookshelf-mcp/"
	URISuffix = ".html"
)

// URI is the resource URI of the view called name.
func URI(name string) string { return URIPrefix + name + URISuffix }

// HTML is the page of the view called name, and whether there is one.
func HTML(name string) ([]byte, bool) {
	b, err := dist.ReadFile("dist/" + name + ".html")
	return b, err == nil
}

// NameOf is the view name of a resource URI, and whether it names one.
func NameOf(uri string) (string, bool) {
	name, ok := strings.CutPrefix(uri, URIPrefix)
	if !ok {
		return "", false
	}
	name, ok = strings.CutSuffix(name, URISuffix)
	if !ok || name == "" || strings.ContainsAny(name, "/\\.") {
		return "", false
	}
	_, there := HTML(name)
	return name, there
}

// Names are the views there are, sorted.
func Names() []string {
	entries, _ := fs.ReadDir(dist, "dist")
	var out []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".html"); ok {
			out = append(out, n)
		}
	}
	return out
}

// Package specdrift compares the routes an Audiobookshelf server registers
// (read from its source: server/routers/ApiRouter.js, the routes controllers
// register, and the few served by server/Server.js) with the operations of
// spec/audiobookshelf.yaml, and says which routes the spec lacks, which it
// has that the server no longer serves, and where a method changed, naming
// the tools each change breaks. cmd/specdrift (`make spec-drift`) prints it.
package specdrift

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Route is one route the server registers.
type Route struct {
	Method string // upper case
	Path   string // OpenAPI form: /api/libraries/{id}
	Where  string // file:line
}

// Key is the route with its parameter names left out, so that
// /libraries/:libraryId and /libraries/{id} are the same route.
func (r Route) Key() string { return r.Method + " " + Shape(r.Path) }

var paramRE = regexp.MustCompile(`\{[^}/]*\}`)

// Shape is a path with every parameter written {}.
func Shape(p string) string { return paramRE.ReplaceAllString(p, "{}") }

// Source is what was read of one Audiobookshelf source tree or archive.
type Source struct {
	Version string // package.json "version", "" when absent
	Routes  []Route
	// Files names the files routes were read from.
	Files []string
}

// The files read, relative to the root of the source tree.
const (
	apiRouterFile = "server/routers/ApiRouter.js"
	serverFile    = "server/Server.js"
	controllerDir = "server/controllers/"
	packageFile   = "package.json"
)

// Load reads a source tree (a directory) or a release archive (.tar.gz or
// .tgz, such as GitHub's source archive, whose files sit under one top
// directory).
func Load(src string) (*Source, error) {
	st, err := os.Stat(src)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	if st.IsDir() {
		for _, f := range []string{apiRouterFile, serverFile, packageFile} {
			b, err := os.ReadFile(filepath.Join(src, f))
			if err == nil {
				files[f] = b
			}
		}
		ctl, _ := filepath.Glob(filepath.Join(src, controllerDir, "*.js"))
		for _, c := range ctl {
			if b, err := os.ReadFile(c); err == nil {
				files[controllerDir+filepath.Base(c)] = b
			}
		}
	} else {
		if files, err = readArchive(src); err != nil {
			return nil, err
		}
	}
	if _, ok := files[apiRouterFile]; !ok {
		return nil, fmt.Errorf("%s: no %s (is it an Audiobookshelf source tree or release archive?)", src, apiRouterFile)
	}
	return Parse(files)
}

// readArchive reads the files Load needs out of a gzipped tar, with the one
// top directory cut off.
func readArchive(name string) (map[string][]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: not a .tar.gz: %w", name, err)
	}
	tr := tar.NewReader(gz)
	files := map[string][]byte{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		p := path.Clean(h.Name)
		// Cut the top directory (audiobookshelf-2.36.0/...), if any.
		rel := p
		if i := strings.IndexByte(p, '/'); i >= 0 && !strings.HasPrefix(p, "server/") && p != packageFile {
			rel = p[i+1:]
		}
		want := rel == apiRouterFile || rel == serverFile || rel == packageFile ||
			(strings.HasPrefix(rel, controllerDir) && strings.HasSuffix(rel, ".js") && !strings.Contains(rel[len(controllerDir):], "/"))
		if !want {
			continue
		}
		b, err := io.ReadAll(io.LimitReader(tr, 8<<20))
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", name, p, err)
		}
		files[rel] = b
	}
	return files, nil
}

// Parse reads the routes out of the named files: ApiRouter.js and the
// controllers are mounted at /api, Server.js at the root.
func Parse(files map[string][]byte) (*Source, error) {
	s := &Source{}
	if b, ok := files[packageFile]; ok {
		var pkg struct {
			Version string `json:"version"`
		}
		if err := json.Unmarshal(b, &pkg); err != nil {
			return nil, fmt.Errorf("%s: its version could not be read: %v", packageFile, err)
		}
		s.Version = pkg.Version
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		var prefix string
		switch {
		case n == apiRouterFile || strings.HasPrefix(n, controllerDir):
			prefix = "/api"
		case n == serverFile:
			prefix = ""
		default:
			continue
		}
		rs := ParseRoutes(files[n], filepath.Base(n), prefix)
		if len(rs) > 0 || n == apiRouterFile {
			s.Files = append(s.Files, n)
		}
		s.Routes = append(s.Routes, rs...)
	}
	return s, nil
}

// routeRE finds Express registrations with a literal path:
// this.router.get('/libraries/:id', ...), router.get('/status', ...).
// Registrations with a regular expression (router.get(/^\/libraries/, ...))
// are middleware, not routes, and are not matched.
var routeRE = regexp.MustCompile("(?:\\bthis\\.router|\\brouter)\\s*\\.\\s*(get|post|put|patch|delete)\\s*\\(\\s*(['\"`])([^'\"`]*)['\"`]")

// ParseRoutes reads the routes of one JavaScript file, with prefix (the
// mount point) in front of each path. An optional parameter (:episodeId?)
// gives two routes, with and without it; :name becomes {name}.
func ParseRoutes(src []byte, file, prefix string) []Route {
	var out []Route
	for _, m := range routeRE.FindAllSubmatchIndex(src, -1) {
		method := strings.ToUpper(string(src[m[2]:m[3]]))
		p := string(src[m[6]:m[7]])
		line := 1 + strings.Count(string(src[:m[0]]), "\n")
		// A commented-out line is not a route.
		ls := strings.LastIndexByte(string(src[:m[0]]), '\n') + 1
		if strings.HasPrefix(strings.TrimSpace(string(src[ls:m[0]])), "//") {
			continue
		}
		for _, ep := range expand(p) {
			out = append(out, Route{Method: method, Path: prefix + ep, Where: fmt.Sprintf("%s:%d", file, line)})
		}
	}
	return out
}

var expressParamRE = regexp.MustCompile(`:([A-Za-z_][A-Za-z0-9_]*)(\?)?`)

// expand turns an Express path into its OpenAPI forms.
func expand(p string) []string {
	with := expressParamRE.ReplaceAllString(p, "{$1}")
	if !strings.Contains(p, "?") {
		return []string{with}
	}
	// Drop each optional segment for the short form (Express allows one
	// trailing optional parameter in practice).
	short := regexp.MustCompile(`/:[A-Za-z_][A-Za-z0-9_]*\?`).ReplaceAllString(p, "")
	short = expressParamRE.ReplaceAllString(short, "{$1}")
	if short == "" {
		short = "/"
	}
	return []string{short, with}
}

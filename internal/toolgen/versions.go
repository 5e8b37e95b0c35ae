package toolgen

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// VersionsFile is the generated table of version gates.
const VersionsFile = "gen/versions/versions.gen.go"

// Versions is what the spec says about Audiobookshelf releases: the one it
// was written from (info.version) and, from the x-abs-since extensions, the
// release each gated operation and the API keys appeared in.
type Versions struct {
	Spec    string
	APIKeys string
	Gates   []Gate
}

// Gate is one operation with x-abs-since.
type Gate struct {
	Operation, Method, Path, Since string
	Tools                          []string
}

var releaseRE = regexp.MustCompile(`^\d+\.\d+\.\d+$`)

// LoadVersions reads the version facts of the spec at path, with the tools
// of m that call each gated operation. An x-abs-since that is not a
// release (N.N.N) or is newer than the spec's own version is refused.
func LoadVersions(path string, m *Manifest) (*Versions, error) {
	doc, err := openapi3.NewLoader().LoadFromFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	v := &Versions{Spec: doc.Info.Version}
	if !releaseRE.MatchString(v.Spec) {
		return nil, fmt.Errorf("%s: info.version %q is not a release (N.N.N)", path, v.Spec)
	}
	since := func(where string, ext map[string]any) (string, error) {
		raw, ok := ext["x-abs-since"]
		if !ok {
			return "", nil
		}
		s := fmt.Sprint(raw)
		if !releaseRE.MatchString(s) {
			return "", fmt.Errorf("%s: %s: x-abs-since %q is not a release (N.N.N)", path, where, s)
		}
		if CompareReleases(s, v.Spec) > 0 {
			return "", fmt.Errorf("%s: %s: x-abs-since %s is newer than the spec's version %s", path, where, s, v.Spec)
		}
		return s, nil
	}
	if doc.Components != nil {
		if ref := doc.Components.SecuritySchemes["bearerAuth"]; ref != nil && ref.Value != nil {
			if v.APIKeys, err = since("securitySchemes.bearerAuth", ref.Value.Extensions); err != nil {
				return nil, err
			}
		}
	}
	users := map[string][]string{}
	for _, t := range m.Tools {
		for _, op := range t.Operations {
			users[op] = append(users[op], t.Name)
		}
	}
	for _, p := range doc.Paths.InMatchingOrder() {
		for method, op := range doc.Paths.Value(p).Operations() {
			s, err := since(op.OperationID, op.Extensions)
			if err != nil {
				return nil, err
			}
			if s != "" {
				v.Gates = append(v.Gates, Gate{Operation: op.OperationID, Method: strings.ToUpper(method), Path: p, Since: s, Tools: users[op.OperationID]})
			}
		}
	}
	sort.Slice(v.Gates, func(i, j int) bool { return v.Gates[i].Operation < v.Gates[j].Operation })
	return v, nil
}

// CompareReleases compares two N.N.N releases numerically: -1, 0 or 1.
func CompareReleases(a, b string) int {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < 3; i++ {
		x, _ := strconv.Atoi(pa[i])
		y, _ := strconv.Atoi(pb[i])
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

// renderVersions writes gen/versions.
func renderVersions(v *Versions) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(header)
	b.WriteString(`// Package versions holds the version gates of the Audiobookshelf API: the
// release the spec was written from, the release API keys appeared in, and
// the operations that appeared after it, from the x-abs-since extensions of
// spec/audiobookshelf.yaml.
package versions

`)
	fmt.Fprintf(&b, "// Spec is the Audiobookshelf release spec/audiobookshelf.yaml was written from.\nconst Spec = %q\n\n", v.Spec)
	fmt.Fprintf(&b, "// APIKeys is the release that introduced API keys (x-abs-since of bearerAuth); \"\" when the spec does not say.\nconst APIKeys = %q\n\n", v.APIKeys)
	b.WriteString(`// Gate is an operation that appeared in a given release.
type Gate struct {
	Operation string   // operationId
	Method    string   // upper case
	Path      string   // OpenAPI path template
	Since     string   // first release that serves it
	Tools     []string // tools that call it
}

// Gates lists every operation with x-abs-since, by operationId.
var Gates = []Gate{
`)
	for _, g := range v.Gates {
		fmt.Fprintf(&b, "\t{Operation: %q, Method: %q, Path: %q, Since: %q, Tools: %#v},\n", g.Operation, g.Method, g.Path, g.Since, g.Tools)
	}
	b.WriteString("}\n")
	return gofmt(VersionsFile, b.Bytes())
}

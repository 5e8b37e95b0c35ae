package toolgen

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/permission"
)

// Operation is what the checks need to know of one spec operation.
type Operation struct {
	ID, Method, Path string
	Path_, Query     map[string]bool // parameter names by location
	Body             map[string]bool // top-level JSON body properties
	Secured          bool            // needs the bearer key
}

// Spec indexes a spec's operations by operationId.
type Spec map[string]*Operation

// LoadSpec reads an OpenAPI 3 description.
func LoadSpec(path string) (Spec, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	spec := Spec{}
	globalSecured := len(doc.Security) > 0
	for _, path := range doc.Paths.InMatchingOrder() {
		item := doc.Paths.Value(path)
		for method, op := range item.Operations() {
			o := &Operation{ID: op.OperationID, Method: method, Path: path,
				Path_: map[string]bool{}, Query: map[string]bool{}, Body: map[string]bool{}}
			params := append(openapi3.Parameters{}, item.Parameters...)
			params = append(params, op.Parameters...)
			for _, p := range params {
				if p.Value == nil {
					continue
				}
				switch p.Value.In {
				case "path":
					o.Path_[p.Value.Name] = true
				case "query":
					o.Query[p.Value.Name] = true
				}
			}
			if op.RequestBody != nil && op.RequestBody.Value != nil {
				if mt := op.RequestBody.Value.Content.Get("application/json"); mt != nil && mt.Schema != nil && mt.Schema.Value != nil {
					for name := range mt.Schema.Value.Properties {
						o.Body[name] = true
					}
				}
			}
			o.Secured = globalSecured
			if op.Security != nil {
				o.Secured = len(*op.Security) > 0
			}
			if o.ID != "" {
				spec[o.ID] = o
			}
		}
	}
	return spec, nil
}

var (
	toolNameRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)
	paramRE    = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)
	kindRE     = regexp.MustCompile(`^[a-z][a-z ]{0,29}$`)
	mapsRE     = regexp.MustCompile(`^(path|query|body):([A-Za-z][A-Za-z0-9_]*)$`)
	paramTypes = map[string]bool{"id": true, "string": true, "integer": true, "number": true, "boolean": true, "id_list": true, "string_list": true, "playlist_items": true, "metadata_fields": true}
)

// Check validates the manifest against the spec. Every refusal names the
// tool and the field.
// toolsetNameRE is a toolset's name: its package's, tools/NAME.
var toolsetNameRE = regexp.MustCompile(`^[a-z][a-z0-9]*$`)

// sharedPackages are the packages of tools/ that hold no toolset.
// nameKinds are the kinds of names (kit.NameKinds) a parameter's names:
// may give.
var nameKinds = map[string]bool{"item": true, "podcast": true, "series": true, "author": true,
	"library": true, "any_library": true, "book_library": true, "podcast_library": true, "collection": true, "playlist": true}

var sharedPackages = map[string]bool{"kit": true, "absdata": true, "compact": true}

// viewNameRE is a view's name: its page is views/dist/NAME.html.
var viewNameRE = regexp.MustCompile(`^[a-z]+(-[a-z]+)*$`)

func Check(m *Manifest, spec Spec) error {
	var errs []error
	fail := func(tool, field, format string, a ...any) {
		errs = append(errs, fmt.Errorf("tools.yaml: tool %s: %s: %s", tool, field, fmt.Sprintf(format, a...)))
	}
	if m.Server.Name == "" {
		errs = append(errs, errors.New("tools.yaml: server.name is missing"))
	}
	if n := len([]rune(m.Server.Description)); n == 0 || n > 100 {
		errs = append(errs, fmt.Errorf("tools.yaml: server.description has %d characters, allowed 1 to 100 (the MCP registry's limit)", n))
	}
	switch n := strings.Count(m.Server.Instructions, GuardedPlaceholder); {
	case strings.TrimSpace(m.Server.Instructions) == "":
		errs = append(errs, errors.New("tools.yaml: server.instructions is missing: what initialize tells a model"))
	case n != 1:
		errs = append(errs, fmt.Errorf("tools.yaml: server.instructions says %s %d times; it must say it once, where the guarded tools' kinds go", GuardedPlaceholder, n))
	}
	toolsets := map[string]bool{}
	for _, ts := range m.Toolsets {
		toolsets[ts.Name] = true
		if ts.Name == "default" || ts.Name == "all" {
			errs = append(errs, fmt.Errorf("tools.yaml: toolset %s: the name is reserved for AUDIOBOOKSHELF_TOOLSETS", ts.Name))
		}
		if !toolsetNameRE.MatchString(ts.Name) || sharedPackages[ts.Name] {
			errs = append(errs, fmt.Errorf("tools.yaml: toolset %q: the name is its Go package's (tools/NAME): lowercase letters and digits, starting with a letter, and none of %s", ts.Name, strings.Join(slices.Sorted(maps.Keys(sharedPackages)), ", ")))
		}
	}
	seen := map[string]bool{}
	for i := range m.Tools {
		t := &m.Tools[i]
		name := t.Name
		if name == "" {
			name = fmt.Sprintf("#%d", i+1)
		}
		if !toolNameRE.MatchString(t.Name) {
			fail(name, "name", "must be snake_case letters and digits")
		}
		if seen[t.Name] {
			fail(name, "name", "declared twice")
		}
		seen[t.Name] = true
		if v := t.View; v != nil {
			if !viewNameRE.MatchString(v.Name) {
				fail(name, "view.name", "%q must be lowercase words joined by -, the name of views/dist/NAME.html", v.Name)
			}
			if v.OutputSchema["type"] != "object" {
				fail(name, "view.output_schema", "must be a JSON schema of type object (structured content is an object)")
			}
			if t.Annotations.ReadOnly == nil || !*t.Annotations.ReadOnly {
				fail(name, "view", "only a read tool has a view: a view shows what was read")
			}
		}
		if t.ForViews && (t.Annotations.ReadOnly == nil || !*t.Annotations.ReadOnly) {
			fail(name, "for_views", "only a read tool may be called by the views")
		}
		if t.Title == "" {
			fail(name, "title", "is missing")
		}
		if strings.TrimSpace(t.Description) == "" {
			fail(name, "description", "is missing")
		}
		if !toolsets[t.Toolset] {
			fail(name, "toolset", "%q is not one of the toolsets", t.Toolset)
		}
		if len(t.Operations) == 0 {
			fail(name, "operations", "names no operationId")
		}
		var ops []*Operation
		for _, id := range t.Operations {
			op, ok := spec[id]
			if !ok {
				fail(name, "operations", "operationId %s is not in spec/audiobookshelf.yaml", id)
				continue
			}
			ops = append(ops, op)
		}
		// annotations
		a := t.Annotations
		for _, h := range []struct {
			field string
			v     *bool
		}{{"readOnly", a.ReadOnly}, {"destructive", a.Destructive}, {"idempotent", a.Idempotent}, {"openWorld", a.OpenWorld}} {
			if h.v == nil {
				fail(name, "annotations."+h.field, "is missing: state all four hints explicitly")
			}
		}
		if a.ReadOnly != nil && a.Destructive != nil && *a.ReadOnly && *a.Destructive {
			fail(name, "annotations.destructive", "a read-only tool cannot be destructive")
		}
		if a.ReadOnly != nil && !*a.ReadOnly && strings.TrimSpace(a.Reason) == "" {
			fail(name, "annotations.reason", "a write tool must give a one-line reason for its hints")
		}
		// params
		params := map[string]*Param{}
		for j := range t.Params {
			p := &t.Params[j]
			field := fmt.Sprintf("params[%d]", j)
			if p.Name != "" {
				field = "params." + p.Name
			}
			if !paramRE.MatchString(p.Name) {
				fail(name, field, "name must be snake_case")
				continue
			}
			if params[p.Name] != nil {
				fail(name, field, "declared twice")
			}
			params[p.Name] = p
			if p.Names != "" {
				if !nameKinds[p.Names] {
					fail(name, field+".names", "%q is not one of item, podcast, series, author, library, any_library, book_library, podcast_library, collection, playlist", p.Names)
				}
				if p.Type != "id" && p.Type != "id_list" && p.Type != "playlist_items" {
					fail(name, field+".names", "only an id, id_list or playlist_items parameter takes names, not a %s", p.Type)
				}
			}
			if !paramTypes[p.Type] {
				fail(name, field+".type", "%q is not one of id, string, integer, number, boolean, id_list, string_list, playlist_items, metadata_fields", p.Type)
			}
			if strings.TrimSpace(p.Description) == "" {
				fail(name, field+".description", "is missing")
			}
			if p.Required && p.Default != nil {
				fail(name, field, "a required parameter cannot have a default")
			}
			if (p.Type == "integer" || p.Type == "number") && (p.Min == nil || p.Max == nil) {
				fail(name, field, "a %s needs min and max", p.Type)
			}
			if p.Pattern != "" {
				if _, err := regexp.Compile(p.Pattern); err != nil || p.Type != "string" || len(p.Enum) == 0 ||
					!strings.HasPrefix(p.Pattern, "^") || !strings.HasSuffix(p.Pattern, "$") {
					fail(name, field+".pattern", "must be a regular expression anchored with ^ and $ beside an enum of a string parameter (%v)", err)
				}
			}
			if p.Format != "" && (p.Format != "http_url" || p.Type != "string" || len(p.Enum) > 0) {
				fail(name, field+".format", "%q: the one format is http_url, on a string parameter without an enum", p.Format)
			}
			if p.Maps == "local" {
				continue
			}
			mm := mapsRE.FindStringSubmatch(p.Maps)
			if mm == nil {
				fail(name, field+".maps", "%q is not local, path:NAME, query:NAME or body:NAME", p.Maps)
				continue
			}
			found := false
			for _, op := range ops {
				switch mm[1] {
				case "path":
					found = found || op.Path_[mm[2]]
				case "query":
					found = found || op.Query[mm[2]]
				case "body":
					found = found || op.Body[mm[2]]
				}
			}
			if !found {
				fail(name, field+".maps", "%s parameter %s is in none of the operations %s", mm[1], mm[2], strings.Join(t.Operations, ", "))
			}
		}
		for _, rule := range []struct {
			field string
			names []string
		}{{"at_least_one_of", t.AtLeastOneOf}, {"exactly_one_of", t.ExactlyOneOf}} {
			if rule.names == nil {
				continue
			}
			if len(rule.names) < 2 {
				fail(name, rule.field, "names %d parameters; it needs at least 2", len(rule.names))
			}
			for _, n := range rule.names {
				switch p := params[n]; {
				case p == nil || n == "confirm_token":
					fail(name, rule.field, "%s is not a parameter of the tool", n)
				case p.Required || p.Default != nil:
					fail(name, rule.field, "%s is always given (required, or has a default)", n)
				}
			}
		}
		for _, n := range slices.Sorted(maps.Keys(t.Example)) {
			if p := params[n]; p == nil || n == "confirm_token" {
				fail(name, "example", "%s is not a parameter of the tool", n)
			}
		}
		// permission
		if pm := t.Permission; pm.Name != "" || pm.Reason != "" {
			if _, ok := permission.Parse(pm.Name); !ok {
				fail(name, "permission", "%q is not one of %s (as Audiobookshelf names them); leave it out for none", pm.Name, permissionNames())
			}
			if !slicesContains(t.Operations, "getMe") {
				fail(name, "operations", "a tool with a permission reads the key's user to check it: add getMe")
			}
		}
		// requests
		rq := t.Requests
		switch {
		case !rq.Set:
			fail(name, "requests", "is missing: say how many requests a call sends to Audiobookshelf")
		case rq.Count < 1:
			fail(name, "requests.count", "must be at least 1")
		case rq.Max != 0 && rq.Max <= rq.Count:
			fail(name, "requests.max", "must be more than count (%d), or left out", rq.Count)
		}
		if rq.PerItem != "" {
			if p := params[rq.PerItem]; p == nil || (p.Type != "id_list" && p.Type != "playlist_items") {
				fail(name, "requests.per_item", "%s is not a list parameter of the tool", rq.PerItem)
			}
		}
		if rq.Polls != "" && !slicesContains(t.Operations, rq.Polls) {
			fail(name, "requests.polls", "%s is not one of the tool's operations", rq.Polls)
		}
		if (rq.Max != 0 || rq.PerItem != "" || rq.Polls != "" || rq.Per != "") && strings.TrimSpace(rq.Note) == "" {
			fail(name, "requests.note", "a count that varies needs a note saying when")
		}
		// guard
		g := t.Guard
		switch {
		case !g.Set:
			fail(name, "guard", "is missing: say none, or give condition, binds_to, takes_out, stays, reads, replay and digest_blind")
		case g.None:
		default:
			// A tool that only adds (destructive false) may still ask when
			// what it adds could not be taken out again without taking out
			// more (add_items_to_playlist on an empty playlist): then only
			// effects the plan finds make it ask, never "always" or a
			// parameter's presence.
			if a.Destructive != nil && !*a.Destructive && !effectsOnly(g) {
				fail(name, "guard", "a guarded tool must be marked destructive (a tool that only adds may ask only under effect conditions)")
			}
			if a.ReadOnly != nil && *a.ReadOnly {
				fail(name, "guard", "a read-only tool cannot be guarded")
			}
			used := map[string]bool{}
			if g.Condition != "always" {
				terms, ok := g.Terms()
				if !ok {
					fail(name, "guard.condition", "%q is not always or when TERM (or TERM ...), each TERM PARAM present or effect NAME", g.Condition)
				}
				for _, tm := range terms {
					wp := tm.Param
					switch {
					case tm.Effect != "":
						used[tm.Effect] = true
						if strings.TrimSpace(g.Effects[tm.Effect]) == "" {
							fail(name, "guard.condition", "effect %s is not declared under guard.effects", tm.Effect)
						}
					case params[wp] == nil || wp == "confirm_token":
						fail(name, "guard.condition", "when %s present names no parameter of the tool", wp)
					case params[wp].Required:
						fail(name, "guard.condition", "when %s present names a required parameter, which is always present: say always", wp)
					}
				}
			}
			for e := range g.Effects {
				if !used[e] {
					fail(name, "guard.effects", "%s is declared but no condition names it", e)
				}
			}
			if !kindRE.MatchString(g.Kind) {
				fail(name, "guard.kind", "%q: say what it takes out as a short plural noun, lower case, no punctuation (e.g. collections), at most 30 characters", g.Kind)
			}
			if len(g.BindsTo) == 0 {
				fail(name, "guard.binds_to", "is empty: name the parameters the approval is bound to")
			}
			for _, b := range g.BindsTo {
				if params[b] == nil || b == "confirm_token" {
					fail(name, "guard.binds_to", "%s is not a parameter of the tool", b)
				}
			}
			if strings.TrimSpace(g.TakesOut) == "" {
				fail(name, "guard.takes_out", "is missing")
			}
			if strings.TrimSpace(g.Stays) == "" {
				fail(name, "guard.stays", "is missing")
			}
			if strings.TrimSpace(g.Reads) == "" {
				fail(name, "guard.reads", "is missing: say what the plan reads that the approval is bound to")
			}
			if strings.TrimSpace(g.Replay) == "" {
				fail(name, "guard.replay", "is missing: say why a replayed approval cannot take anything out twice")
			}
			if strings.TrimSpace(g.DigestBlind) == "" {
				fail(name, "guard.digest_blind", "is missing: say where the read digest cannot tell a replay (or that nowhere)")
			}
		}
	}
	defaults := 0
	for _, t := range m.Tools {
		if t.Default {
			defaults++
		}
	}
	if defaults == 0 {
		errs = append(errs, errors.New("tools.yaml: no tool has default: true; the default tools/list would hold the discovery tools alone"))
	}
	for i := range m.Discovery {
		t := &m.Discovery[i]
		name := t.Name
		if !toolNameRE.MatchString(t.Name) {
			fail("#"+fmt.Sprint(i+1)+" of discovery", "name", "must be snake_case letters and digits")
		}
		if seen[t.Name] {
			fail(name, "name", "declared twice")
		}
		seen[t.Name] = true
		if t.Title == "" || strings.TrimSpace(t.Description) == "" {
			fail(name, "title, description", "are required")
		}
		a := t.Annotations
		if a.ReadOnly == nil || a.Destructive == nil || a.Idempotent == nil || a.OpenWorld == nil {
			fail(name, "annotations", "state all four hints explicitly")
		} else if !*a.ReadOnly && strings.TrimSpace(a.Reason) == "" {
			fail(name, "annotations.reason", "a write tool must give a one-line reason for its hints")
		}
		if t.InputSchema["type"] != "object" {
			fail(name, "input_schema", "must be a JSON schema of type object")
		}
	}
	return errors.Join(errs...)
}

// permissionNames is permission's names, for a refusal.
func permissionNames() string {
	names := make([]string, len(permission.All))
	for i, n := range permission.All {
		names[i] = n.String()
	}
	return strings.Join(names, ", ")
}

func slicesContains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// effectsOnly reports whether a guard's condition is made of effect terms
// only.
func effectsOnly(g Guard) bool {
	terms, ok := g.Terms()
	if !ok || len(terms) == 0 {
		return false
	}
	for _, t := range terms {
		if t.Effect == "" {
			return false
		}
	}
	return true
}

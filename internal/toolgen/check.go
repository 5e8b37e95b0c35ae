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

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/argdec"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/permission"
)

// Operation is what the checks need to know of one spec operation.
type Operation struct {
	ID, Method, Path string
	Path_, Query     map[string]bool // parameter names by location
	Body             map[string]bool // top-level JSON body properties
	Secured          bool            // needs the bearer key
	// ChangesData: the operation changes what Audiobookshelf holds. A
	// GET does not and any other method does, unless the operation says
	// otherwise (x-abs-changes-data).
	ChangesData bool
	// PlainOK: its 200 is the plain text "OK" (#/components/responses/PlainOK);
	// else Required are the required fields of the JSON object its 200
	// answers (JSON: it answers one; matchLibraryItem's has none that is
	// always there).
	PlainOK  bool
	JSON     bool
	Required []string
	// Order is the place of its path in the spec's matching order.
	Order int
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
	for pathIndex, path := range doc.Paths.InMatchingOrder() {
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
			o.ChangesData = method != "GET"
			if v, ok := op.Extensions["x-abs-changes-data"].(bool); ok {
				o.ChangesData = v
			}
			if r := op.Responses.Value("200"); r != nil {
				o.PlainOK = r.Ref == "#/components/responses/PlainOK"
				if r.Value != nil {
					if mt := r.Value.Content.Get("application/json"); mt != nil && mt.Schema != nil && mt.Schema.Value != nil {
						o.JSON, o.Required = true, mt.Schema.Value.Required
					}
				}
			}
			o.Order = pathIndex
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
// nameKinds are the kinds of names (naming.NameKinds) a parameter's names:
// may give.
var nameKinds = map[string]bool{"item": true, "podcast": true, "series": true, "author": true,
	"library": true, "any_library": true, "book_library": true, "podcast_library": true, "collection": true, "playlist": true}

var sharedPackages = map[string]bool{"kit": true, "result": true, "naming": true, "absdata": true, "compact": true, "orderedlist": true}

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
				// tools/list shows such a parameter as a string and its
				// description: that names every value ("audible.uk" may be
				// ".uk" after "audible").
				for _, v := range p.Enum {
					short := v
					if i := strings.LastIndex(v, "."); i > 0 {
						short = v[i:]
					}
					if !strings.Contains(p.Description, v) && !strings.Contains(p.Description, short) {
						fail(name, field+".description", "names no %q: beside a pattern, tools/list shows the values in the description alone", v)
					}
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
			p := params[n]
			if p == nil || n == "confirm_token" {
				fail(name, "example", "%s is not a parameter of the tool", n)
				continue
			}
			if p.Names == "" {
				continue
			}
			for _, v := range exampleIDs(t.Example[n]) {
				if !argdec.LooksLikeID(v) {
					fail(name, "example."+n, "%q is not an id: an example gives ids (a title or a name costs the reads of its lookup, which requests does not count); take the id from internal/standin/sample_ids.go", v)
				}
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
	checkWidestAndReadBack(m, fail)
	if _, err := Writes(m, spec); err != nil {
		errs = append(errs, err)
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
	errs = append(errs, checkPrompts(m, toolsets)...)
	errs = append(errs, checkResources(m)...)
	return errors.Join(errs...)
}

// checkPrompts holds each prompt to what the generated registration and
// the generic wiring of internal/app need: a name, a title, a
// description, a toolset of the manifest (its package writes the text),
// and arguments in the params' words.
func checkPrompts(m *Manifest, toolsets map[string]bool) []error {
	var errs []error
	fail := func(prompt, field, format string, a ...any) {
		errs = append(errs, fmt.Errorf("tools.yaml: prompt %s: %s: %s", prompt, field, fmt.Sprintf(format, a...)))
	}
	seen := map[string]bool{}
	for i := range m.Prompts {
		p := &m.Prompts[i]
		name := p.Name
		if name == "" {
			name = fmt.Sprintf("#%d", i+1)
		}
		if !toolNameRE.MatchString(p.Name) {
			fail(name, "name", "must be snake_case letters and digits")
		}
		if seen[p.Name] {
			fail(name, "name", "declared twice")
		}
		seen[p.Name] = true
		if strings.TrimSpace(p.Title) == "" || strings.TrimSpace(p.Description) == "" {
			fail(name, "title, description", "are required")
		}
		if !toolsets[p.Toolset] {
			fail(name, "toolset", "%q is not a toolset of the manifest (toolsets:); its package writes the prompt's text", p.Toolset)
		}
		args := map[string]bool{}
		for j, a := range p.Arguments {
			field := fmt.Sprintf("arguments[%d]", j)
			if !toolNameRE.MatchString(a.Name) {
				fail(name, field+".name", "must be snake_case letters and digits")
			}
			if args[a.Name] {
				fail(name, field+".name", "%q declared twice", a.Name)
			}
			args[a.Name] = true
			if strings.TrimSpace(a.Title) == "" || strings.TrimSpace(a.Description) == "" {
				fail(name, field, "title and description are required")
			}
			switch a.Type {
			case "", "string":
			case "string_list":
				if len(a.Enum) == 0 {
					fail(name, field+".type", "string_list takes an enum: the values a list may hold")
				}
			default:
				fail(name, field+".type", "%q is not string or string_list (a prompt's arguments are text)", a.Type)
			}
			if a.Names != "" && !nameKinds[a.Names] {
				fail(name, field+".names", "%q is not one of item, podcast, series, author, library, any_library, book_library, podcast_library, collection, playlist", a.Names)
			}
			if a.Names != "" && len(a.Enum) > 0 {
				fail(name, field, "names and enum exclude each other: a name is completed from Audiobookshelf, an enum from the manifest")
			}
		}
	}
	return errs
}

// templateVarRE is a resource template's one variable.
var templateVarRE = regexp.MustCompile(`\{([a-z_][a-z0-9_]*)\}`)

// checkResources holds each resource to a read tool whose answer it is,
// and each template to one variable that fills a parameter of that tool.
func checkResources(m *Manifest) []error {
	var errs []error
	fail := func(res, field, format string, a ...any) {
		errs = append(errs, fmt.Errorf("tools.yaml: resource %s: %s: %s", res, field, fmt.Sprintf(format, a...)))
	}
	tools := map[string]*Tool{}
	for i := range m.Tools {
		tools[m.Tools[i].Name] = &m.Tools[i]
	}
	seen := map[string]bool{}
	for i := range m.Resources {
		r := &m.Resources[i]
		name := r.Name
		if name == "" {
			name = fmt.Sprintf("#%d", i+1)
		}
		if seen[r.Name] || r.Name == "" {
			fail(name, "name", "is required, once")
		}
		seen[r.Name] = true
		if strings.TrimSpace(r.Title) == "" || strings.TrimSpace(r.Description) == "" {
			fail(name, "title, description", "are required")
		}
		if (r.URI == "") == (r.URITemplate == "") {
			fail(name, "uri, uri_template", "give exactly one: uri for one resource, uri_template for a template")
		}
		t := tools[r.Tool]
		switch {
		case t == nil:
			fail(name, "tool", "%q is not a tool of the manifest", r.Tool)
		case t.Annotations.ReadOnly == nil || !*t.Annotations.ReadOnly:
			fail(name, "tool", "%s is not read-only: a resource is a read", r.Tool)
		}
		if r.URI != "" {
			if r.Variable != nil || strings.ContainsAny(r.URI, "{}") {
				fail(name, "uri", "a fixed uri has no variable (uri_template has one)")
			}
			if t != nil {
				for _, p := range t.Params {
					if p.Required && !p.Omittable() {
						fail(name, "tool", "%s requires %s, which a fixed uri cannot give", r.Tool, p.Name)
					}
				}
			}
			continue
		}
		vars := templateVarRE.FindAllStringSubmatch(r.URITemplate, -1)
		if len(vars) != 1 || r.Variable == nil || vars[0][1] != r.Variable.Name || strings.Count(r.URITemplate, "{") != 1 {
			fail(name, "uri_template, variable", "a template has one variable, {NAME}, and variable: {name: NAME, param, names}")
			continue
		}
		v := r.Variable
		if v.Names != "" && !nameKinds[v.Names] {
			fail(name, "variable.names", "%q is not one of item, podcast, series, author, library, any_library, book_library, podcast_library, collection, playlist", v.Names)
		}
		if t == nil {
			continue
		}
		found := false
		for _, p := range t.Params {
			if p.Name == v.Param {
				found = true
				if p.Type != "id" {
					fail(name, "variable.param", "%s of %s is a %s; a URI's variable fills an id", v.Param, r.Tool, p.Type)
				}
			} else if p.Required && !p.Omittable() {
				fail(name, "tool", "%s requires %s, which the uri_template does not give", r.Tool, p.Name)
			}
		}
		if !found {
			fail(name, "variable.param", "%q is not a parameter of %s", v.Param, r.Tool)
		}
	}
	return errs
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

var placeholderRE = regexp.MustCompile(`\{([^{}]*)\}`)

// placeholderList is ScalePlaceholders' names, for a refusal.
func placeholderList() string {
	names := slices.Sorted(maps.Keys(ScalePlaceholders))
	for i, n := range names {
		names[i] = "{" + n + "}"
	}
	return strings.Join(names, ", ")
}

// checkWidestAndReadBack holds each read tool to widest calls the scale
// check can make (given, or the default its required parameters' names:
// make), and each write tool to a read_back that is a read tool.
func checkWidestAndReadBack(m *Manifest, fail func(tool, field, format string, a ...any)) {
	reads := map[string]bool{}
	for i := range m.Tools {
		if a := m.Tools[i].Annotations; a.ReadOnly != nil && *a.ReadOnly {
			reads[m.Tools[i].Name] = true
		}
	}
	for i := range m.Tools {
		t := &m.Tools[i]
		read := reads[t.Name]
		if !read {
			if t.Widest != nil {
				fail(t.Name, "widest", "only a read tool has widest calls (the scale check makes only reads)")
			}
			switch {
			case t.ReadBack == "":
				fail(t.Name, "read_back", "is missing: name the read tool that shows what a call changed (an answer to the change that is not Audiobookshelf's tells the person to look with it)")
			case !reads[t.ReadBack]:
				fail(t.Name, "read_back", "%s is not a read tool of tools.yaml", t.ReadBack)
			}
			continue
		}
		if t.ReadBack != "" {
			fail(t.Name, "read_back", "only a write tool has one: a read tool changes nothing to read back")
		}
		if t.Widest == nil {
			if _, missing := t.DefaultWidest(); missing != "" {
				fail(t.Name, "widest", "is missing, and the required parameter %s has no names: that says what to call the tool on: give widest: [{%s: …}], the arguments of its widest calls on a big library (the most a call can answer), with placeholders for ids and texts, quoted: %s (CONTRIBUTING.md, Add a read tool)", missing, missing, placeholderList())
			}
			continue
		}
		if len(t.Widest) == 0 {
			fail(t.Name, "widest", "is empty: give at least one call, or leave it out for the default")
		}
		params := map[string]*Param{}
		for j := range t.Params {
			params[t.Params[j].Name] = &t.Params[j]
		}
		for j, call := range t.Widest {
			field := fmt.Sprintf("widest[%d]", j)
			for _, p := range t.Params {
				if _, ok := call[p.Name]; p.Required && !ok && !p.Omittable() {
					fail(t.Name, field, "gives no %s, which the tool requires", p.Name)
				}
			}
			for _, k := range slices.Sorted(maps.Keys(call)) {
				if p := params[k]; p == nil || k == "confirm_token" {
					fail(t.Name, field, "%s is not a parameter of the tool", k)
					continue
				}
				switch v := call[k].(type) {
				case string:
					for _, ph := range placeholderRE.FindAllStringSubmatch(v, -1) {
						if _, ok := ScalePlaceholders[ph[1]]; !ok {
							fail(t.Name, field+"."+k, "{%s} is not a placeholder the scale check fills: one of %s", ph[1], placeholderList())
						}
					}
				case map[string]any:
					fail(t.Name, field+"."+k, "is a mapping: a placeholder is quoted (%s: \"{book_library}\")", k)
				}
			}
		}
	}
}

// exampleIDs are the texts an example gives a parameter that takes ids: the
// value, each entry of a list, or each library_item_id of playlist items.
func exampleIDs(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			if m, ok := e.(map[string]any); ok {
				e = m["library_item_id"]
			}
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// Package toolgen reads tools.yaml, checks it against the OpenAPI
// description in spec/, and renders what is generated from it: the typed
// argument decoders (gen/toolargs), the MCP registrations with each read
// tool's widest calls (gen/registry), what each write is answered with and
// the tool that reads it back (gen/writes), the version gates
// (gen/versions), the tool reference (docs/tools.md), the guard table
// (docs/guards.md) and the MCP Bundle's manifest template
// (packaging/mcpb/manifest.json).
// cmd/toolgen is its command; a test in this package fails when a generated
// file on disk is not what Render makes now.
package toolgen

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// Manifest is tools.yaml.
type Manifest struct {
	Server struct {
		Name        string `yaml:"name"`
		Title       string `yaml:"title"`
		Description string `yaml:"description"`
		// Instructions are initialize's instructions; {guarded} stands for
		// the guarded tools' kinds (GuardedKinds).
		Instructions string `yaml:"instructions"`
	} `yaml:"server"`
	Toolsets        []Toolset        `yaml:"toolsets"`
	SharedParams    map[string]Param `yaml:"shared_params"`
	ReadAnnotations yaml.Node        `yaml:"read_annotations"` // a YAML anchor only
	// NameRequests is what a title or a name given in place of an id
	// adds to a call's requests (naming.Resolve), beyond each
	// tool's own requests.
	NameRequests NameRequests `yaml:"name_requests"`
	Tools        []Tool       `yaml:"tools"`
	// Discovery are the tools through which a model reaches the toolsets
	// beyond the default ones in the same conversation; internal/app
	// serves them.
	Discovery []DiscoveryTool `yaml:"discovery"`
	// Prompts and Resources are what a toolset offers beside its tools:
	// prompts/list and resources/list (with resources/templates/list)
	// show them, and completion/complete completes their arguments.
	Prompts   []Prompt   `yaml:"prompts"`
	Resources []Resource `yaml:"resources"`
}

// Prompt is one prompt's declaration. Its text is written by the function
// Prompt<GoName(name)> of its toolset's package.
type Prompt struct {
	Name        string           `yaml:"name"`
	Title       string           `yaml:"title"`
	Toolset     string           `yaml:"toolset"`
	Description string           `yaml:"description"`
	Arguments   []PromptArgument `yaml:"arguments"`
}

// PromptArgument is one argument of a prompt, in the params' words.
type PromptArgument struct {
	Name        string `yaml:"name"`
	Title       string `yaml:"title"`
	Description string `yaml:"description"`
	Required    bool   `yaml:"required"`
	// Type is string (the default), or string_list: several of enum,
	// separated by commas.
	Type string `yaml:"type"`
	// Names is what a name given in it stands for (a params' names:
	// kind): the function reads its id, and completion/complete
	// completes the name.
	Names string `yaml:"names"`
	// Enum are the values it takes, which completion/complete offers.
	Enum []string `yaml:"enum"`
}

// Resource is one resource, with a fixed uri, or one resource template,
// with a uri_template of one variable: a read tool's answer (its text as
// JSON, or its image as a blob), got through the same path as a call of
// the tool.
type Resource struct {
	URI         string `yaml:"uri"`
	URITemplate string `yaml:"uri_template"`
	Name        string `yaml:"name"`
	Title       string `yaml:"title"`
	Description string `yaml:"description"`
	MIMEType    string `yaml:"mime_type"`
	// Tool is the read tool whose answer the resource is.
	Tool string `yaml:"tool"`
	// Variable is the template's variable: the tool's parameter it
	// fills, and what its ids stand for (a names: kind), which
	// completion/complete completes by name.
	Variable *ResourceVariable `yaml:"variable"`
}

// ResourceVariable is a resource template's one variable.
type ResourceVariable struct {
	Name  string `yaml:"name"`
	Param string `yaml:"param"`
	Names string `yaml:"names"`
}

// NameRequests are the requests names add to a call.
type NameRequests struct {
	// Libraries: GET /api/libraries, once a call that names a library,
	// leaves one out, or searches the libraries for a name.
	Libraries int `yaml:"libraries"`
	// List: GET /api/collections or /api/playlists, once a call that
	// names a collection or a playlist.
	List int `yaml:"list"`
	// Search: GET /api/libraries/{id}/search, for each name of an item,
	// podcast, series or author and each library searched for it.
	Search int `yaml:"search"`
	// Page: GET /api/libraries/{id}/items, /series or /authors, each page
	// of a complete listing read when a search cannot settle a name (a
	// group cut at the limit, or no exact match).
	Page int    `yaml:"page"`
	Note string `yaml:"note"`
}

// DiscoveryTool is one discovery tool's declaration: what tools/list shows
// of it. It reads this server's registry and the session, never
// Audiobookshelf.
type DiscoveryTool struct {
	Name        string         `yaml:"name"`
	Title       string         `yaml:"title"`
	Description string         `yaml:"description"`
	Annotations Annotations    `yaml:"annotations"`
	InputSchema map[string]any `yaml:"input_schema"`
}

// Toolset is a named group of tools that can be switched on together.
type Toolset struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
}

// Tool is one tool's declaration.
type Tool struct {
	Name    string `yaml:"name"`
	Title   string `yaml:"title"`
	Toolset string `yaml:"toolset"`
	// Default puts the tool in the default tools/list (no
	// AUDIOBOOKSHELF_TOOLSETS, or its "default").
	Default     bool   `yaml:"default"`
	Description string `yaml:"description"`
	// Details is what docs/tools.md says of the tool in place of
	// Description: the longer explanation a model does not need to choose
	// and call the tool (every toolset's definitions are read on every
	// request where all are listed; issue 41).
	Details     string      `yaml:"details"`
	Operations  []string    `yaml:"operations"`
	Params      []Param     `yaml:"params"`
	Annotations Annotations `yaml:"annotations"`
	Guard       Guard       `yaml:"guard"`
	Requests    Requests    `yaml:"requests"`
	// AtLeastOneOf names optional parameters of which a call must give at
	// least one, ExactlyOneOf those of which it must give one and only
	// one: checked by the decoder with the rest of the arguments.
	AtLeastOneOf []string `yaml:"at_least_one_of"`
	ExactlyOneOf []string `yaml:"exactly_one_of"`
	// Check: the toolset's package has Check<Tool>(a) error, which says
	// what is wrong with a combination of arguments the decoder cannot
	// tell; the handler calls it right after decoding, before the
	// permission is checked, so a refused call sends nothing.
	Check bool `yaml:"check"`
	// Permission is the Audiobookshelf permission a call needs beyond the
	// user's own data; absent for none.
	Permission Permission `yaml:"permission"`
	// Example is a call of the tool against the sample library (the
	// stand-in of internal/standin, and --demo): its arguments. The tests
	// make it for a tool that has no case of its own (internal/e2e), so a
	// read tool is tested by its manifest entry alone.
	Example map[string]any `yaml:"example"`
	// Widest are a read tool's widest calls on a big library, which the
	// scale check (internal/scalecheck) holds to the result budget: the
	// arguments of each, ids given as placeholders ("{book_library}",
	// ScalePlaceholders) that the check fills with the ids of what it runs
	// on. Left out, it is one call with each required parameter set to the
	// placeholder of its names: (DefaultWidest).
	Widest []map[string]any `yaml:"widest"`
	// ReadBack is, for a write tool, the read tool that shows what a call
	// changed: an answer to one of its changes that is not what
	// Audiobookshelf answers names it (gen/writes, kit.Deps.CheckWrite).
	ReadBack string `yaml:"read_back"`
	// View is the MCP Apps view (io.modelcontextprotocol/ui) that shows the
	// tool's answer: the name of its page in views/ (views/dist/NAME.html),
	// and the output schema of the structured content a client that
	// declares the extension gets beside the text. Only such a client sees
	// either (internal/app, apps.go).
	View *View `yaml:"view"`
	// ForViews lists the tool, to a client that declares the extension, as
	// one its views may call (visibility app) even when its toolset is off
	// in the session: the views fetch covers through it.
	ForViews bool `yaml:"for_views"`
}

// ScalePlaceholders are what a widest call may name where an id (or a
// text, a year, a URL) goes, each filled by the scale check
// (scalecheck.Targets) with what it runs on.
var ScalePlaceholders = map[string]string{
	"book_library":    "the book library",
	"podcast_library": "the podcast library",
	"item":            "the book with the most authors and chapters",
	"progressed":      "a book with a progress record",
	"podcast":         "the podcast with the most episodes",
	"episode":         "an episode of {podcast}",
	"series":          "the longest series",
	"author":          "the author with the most books",
	"collection":      "the longest collection",
	"playlist":        "the longest playlist",
	"cover":           "a book with a cover",
	"query":           "a search text that matches much",
	"year":            "a year of listening (a number)",
	"feed":            "the feed URL of {podcast}",
	"title_lines":     "100 lines of titles, each with a number and a \"by\" tail (a list: the whole value)",
}

// placeholderOf is the placeholder a required parameter's names: stands
// for in a default widest call.
var placeholderOf = map[string]string{
	"library": "book_library", "any_library": "book_library", "book_library": "book_library",
	"podcast_library": "podcast_library", "item": "item", "podcast": "podcast", "series": "series",
	"author": "author", "collection": "collection", "playlist": "playlist",
}

// DefaultWidest is the widest call of a read tool that gives none: each
// required parameter set to the placeholder of its names: ({} when none
// is required). missing is the first required parameter without names:,
// when there is one: then there is no default.
func (t *Tool) DefaultWidest() (call map[string]any, missing string) {
	call = map[string]any{}
	for _, p := range t.Params {
		if !p.Required {
			continue
		}
		ph, ok := placeholderOf[p.Names]
		if !ok {
			return nil, p.Name
		}
		call[p.Name] = "{" + ph + "}"
	}
	return call, ""
}

// WidestCalls are a read tool's widest calls: Widest, or the default.
func (t *Tool) WidestCalls() []map[string]any {
	if t.Widest != nil {
		return t.Widest
	}
	if call, missing := t.DefaultWidest(); missing == "" {
		return []map[string]any{call}
	}
	return nil
}

// Permission is a tool's `permission:`: a name as Audiobookshelf names it
// (permission lists them), alone or as {name, reason} with the
// reason Audiobookshelf refuses a user without it (where it checks).
type Permission struct {
	Name   string `yaml:"name"`
	Reason string `yaml:"reason"`
}

// UnmarshalYAML takes a name or a mapping.
func (p *Permission) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		return n.Decode(&p.Name)
	}
	type plain Permission
	var v plain
	if err := n.Decode(&v); err != nil {
		return err
	}
	*p = Permission(v)
	return nil
}

// Requests is how many requests one call of the tool sends to
// Audiobookshelf, when it succeeds (and, for a guarded tool, is approved).
// docs/tools.md shows it; a test in internal/e2e holds it to what the
// stand-in receives for each tool.
type Requests struct {
	// Count is the fewest, Max the most (0: always Count).
	Count int `yaml:"count"`
	Max   int `yaml:"max"`
	// PerItem names a list parameter whose every distinct library item
	// adds one request (a read of that item), beyond Count..Max.
	PerItem string `yaml:"per_item"`
	// Polls names an operation the tool repeats while it waits for
	// Audiobookshelf to finish something (scan_library: listTasks): every
	// repeat beyond the first adds one request, beyond Count..Max.
	Polls string `yaml:"polls"`
	// Per says in words what else adds requests beyond Count..Max and
	// PerItem ("1 per author or series the change takes off the book");
	// internal/e2e's cases give the number each of them adds.
	Per string `yaml:"per"`
	// Note says when a call sends more than Count, and which requests go
	// at the same time.
	Note string `yaml:"note"`
	Set  bool   `yaml:"-"`
}

// UnmarshalYAML takes a number (always that many) or a mapping.
func (r *Requests) UnmarshalYAML(n *yaml.Node) error {
	r.Set = true
	if n.Kind == yaml.ScalarNode {
		return n.Decode(&r.Count)
	}
	type plain Requests
	var p plain
	if err := n.Decode(&p); err != nil {
		return err
	}
	p.Set = true
	*r = Requests(p)
	return nil
}

// Most is the most requests a call sends, beyond PerItem's.
func (r Requests) Most() int { return max(r.Count, r.Max) }

// Text is the count as docs/tools.md shows it: "1", "1–2", "2 + 1 per
// library item in `items`".
func (r Requests) Text() string {
	s := fmt.Sprint(r.Count)
	if r.Max > r.Count {
		s += fmt.Sprintf("–%d", r.Max)
	}
	if r.PerItem != "" {
		s += " + 1 per library item in `" + r.PerItem + "`"
	}
	if r.Polls != "" {
		s += " + 1 per further `" + r.Polls + "` while it waits"
	}
	if r.Per != "" {
		s += " + " + r.Per
	}
	return s
}

// Param is one parameter. With Use set it starts from the shared parameter
// of that name; fields given beside it override.
type Param struct {
	Use         string `yaml:"use"`
	Name        string `yaml:"name"`
	Type        string `yaml:"type"`
	Required    bool   `yaml:"required"`
	Description string `yaml:"description"`
	// InstructionsSay: the server's instructions (initialize) say once what
	// this shared parameter is and its default, so tools/list leaves out its
	// description and default on every tool that uses it as it is (a tool
	// that gives its own description lists it). The checked schema and
	// docs/tools.md keep both.
	InstructionsSay bool `yaml:"instructions_say"`
	// Unlisted: tools/list leaves this shared parameter out altogether
	// (the instructions say it, and a model passes it seldom: detail);
	// the decoder takes it, the checked schema and docs/tools.md show it.
	Unlisted bool `yaml:"unlisted"`
	// Details is what docs/tools.md says of the parameter in place of
	// Description, when a model needs less than a reader of the docs.
	Details string   `yaml:"details"`
	Maps    string   `yaml:"maps"`
	Enum    []string `yaml:"enum"`
	// Pattern, beside enum, is a regular expression (anchored with ^ and
	// $) that a value outside enum may match instead.
	Pattern string `yaml:"pattern"`
	// Format http_url: a string that must be an http:// or https:// URL
	// with a host.
	Format    string   `yaml:"format"`
	Default   any      `yaml:"default"`
	Min       *float64 `yaml:"min"`
	Max       *float64 `yaml:"max"`
	MinLength int      `yaml:"min_length"`
	MaxLength int      `yaml:"max_length"`
	MinItems  int      `yaml:"min_items"`
	MaxItems  int      `yaml:"max_items"`
	// Names is what a title or a name given in place of the id stands
	// for (naming.NameKinds: item, podcast, series, author, library,
	// any_library (left out: the one book library), book_library,
	// podcast_library, collection, playlist): the generated
	// handler turns it into the id before decoding (naming.Resolve).
	// A required library parameter with names may be left out when the
	// user has one library of the kind: the schema does not require it.
	Names string `yaml:"names"`
}

// Omittable: a required library parameter that takes names may be left
// out (the user's one library of the kind is used), so the schema does
// not require it; the decoder still does, after the handler filled it.
func (p *Param) Omittable() bool {
	return p.Required && (p.Names == "library" || p.Names == "any_library" || p.Names == "book_library" || p.Names == "podcast_library")
}

// Annotations are the four hints, each of which must be stated.
type Annotations struct {
	ReadOnly    *bool  `yaml:"readOnly"`
	Destructive *bool  `yaml:"destructive"`
	Idempotent  *bool  `yaml:"idempotent"`
	OpenWorld   *bool  `yaml:"openWorld"`
	Reason      string `yaml:"reason"`
}

// Guard is "none" or the condition under which a person must approve.
type Guard struct {
	None bool
	Set  bool
	// Kind is what the tool takes out, as a short plural noun ("collections"):
	// the server's instructions and docs/guards.md name the guarded kinds.
	Kind      string   `yaml:"kind"`
	Condition string   `yaml:"condition"`
	BindsTo   []string `yaml:"binds_to"`
	TakesOut  string   `yaml:"takes_out"`
	Stays     string   `yaml:"stays"`
	// Reads is what the plan reads before asking that the approval is bound
	// to (by a digest), Replay why a replay of an approval cannot take
	// anything out twice, and DigestBlind where that digest cannot tell and
	// the per-process nonce set is the second line.
	Reads       string `yaml:"reads"`
	Replay      string `yaml:"replay"`
	DigestBlind string `yaml:"digest_blind"`
	// Effects names what a call would do, found out by the plan's read,
	// that makes it ask (condition "when effect NAME"): NAME -> the clause
	// docs/guards.md shows after "when it would".
	Effects map[string]string `yaml:"effects"`
}

// UnmarshalYAML takes the scalar "none" or a mapping.
func (g *Guard) UnmarshalYAML(n *yaml.Node) error {
	g.Set = true
	if n.Kind == yaml.ScalarNode {
		if n.Value != "none" {
			return fmt.Errorf("line %d: guard must be none or a mapping with condition, binds_to, takes_out, stays, reads, replay, digest_blind; got %q", n.Line, n.Value)
		}
		g.None = true
		return nil
	}
	type plain Guard
	var p plain
	if err := n.Decode(&p); err != nil {
		return err
	}
	p.Set = true
	*g = Guard(p)
	return nil
}

// GuardedPlaceholder is what server.instructions says where the guarded
// kinds go.
const GuardedPlaceholder = "{guarded}"

// GuardedKinds are the kinds of the guarded tools, each once, in the
// manifest's order.
func (m *Manifest) GuardedKinds() []string {
	var kinds []string
	seen := map[string]bool{}
	for i := range m.Tools {
		t := &m.Tools[i]
		if t.Guarded() && !seen[t.Guard.Kind] {
			seen[t.Guard.Kind] = true
			kinds = append(kinds, t.Guard.Kind)
		}
	}
	return kinds
}

// Instructions are server.instructions with the guarded kinds in place.
func (m *Manifest) Instructions() string {
	return strings.Replace(m.Server.Instructions, GuardedPlaceholder, strings.Join(m.GuardedKinds(), ", "), 1)
}

// Guarded reports whether the tool ever asks.
func (t *Tool) Guarded() bool { return t.Guard.Set && !t.Guard.None }

var (
	paramTermRE  = regexp.MustCompile(`^([a-z_][a-z0-9_]*) present$`)
	effectTermRE = regexp.MustCompile(`^effect ([a-z_][a-z0-9_]*)$`)
)

// Term is one alternative of a guard condition: a parameter that is
// present, or an effect the plan found.
type Term struct{ Param, Effect string }

// Terms parses a condition other than "always": "when T or T ...", each T
// "PARAM present" or "effect NAME". ok is false when it does not parse.
func (g *Guard) Terms() (terms []Term, ok bool) {
	rest, found := strings.CutPrefix(g.Condition, "when ")
	if !found {
		return nil, false
	}
	for _, t := range strings.Split(rest, " or ") {
		if m := paramTermRE.FindStringSubmatch(t); m != nil {
			terms = append(terms, Term{Param: m[1]})
		} else if m := effectTermRE.FindStringSubmatch(t); m != nil {
			terms = append(terms, Term{Effect: m[1]})
		} else {
			return nil, false
		}
	}
	return terms, true
}

// WhenParams are the parameters of the condition's "PARAM present" terms.
func (g *Guard) WhenParams() []string {
	terms, _ := g.Terms()
	var out []string
	for _, t := range terms {
		if t.Param != "" {
			out = append(out, t.Param)
		}
	}
	return out
}

// WhenEffects are the names of the condition's "effect NAME" terms.
func (g *Guard) WhenEffects() []string {
	terms, _ := g.Terms()
	var out []string
	for _, t := range terms {
		if t.Effect != "" {
			out = append(out, t.Effect)
		}
	}
	return out
}

// Load reads and decodes a manifest, refusing unknown fields.
func Load(path string) (*Manifest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(b)
}

// Parse decodes a manifest from bytes and resolves shared parameters and
// the confirm_token of guarded tools. It does not check it; see Check.
func Parse(b []byte) (*Manifest, error) {
	var m Manifest
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("tools.yaml: %w", err)
	}
	for i := range m.Tools {
		t := &m.Tools[i]
		for j, p := range t.Params {
			if p.Use == "" {
				continue
			}
			base, ok := m.SharedParams[p.Use]
			if !ok {
				return nil, fmt.Errorf("tools.yaml: tool %s: params[%d]: use: %q is not in shared_params", t.Name, j, p.Use)
			}
			base.Name = p.Use
			if p.Name != "" {
				base.Name = p.Name
			}
			if p.Description != "" && p.Description != base.Description {
				base.Description = p.Description
				base.InstructionsSay = false
			}
			if p.Details != "" {
				base.Details = p.Details
			}
			if p.Maps != "" {
				base.Maps = p.Maps
			}
			if p.Required {
				base.Required = true
			}
			if p.Names != "" {
				base.Names = p.Names
			}
			base.Use = p.Use
			t.Params[j] = base
		}
		if t.Guarded() {
			t.Params = append(t.Params, Param{
				Name:        "confirm_token",
				Type:        "string",
				Maps:        "local",
				MaxLength:   200,
				Description: "From an earlier answer.",
				// The instructions say what a confirm_token is.
				InstructionsSay: true,
			})
		}
	}
	return &m, nil
}

// GoName turns snake_case into an exported Go name, with Id as ID.
func GoName(s string) string {
	var b strings.Builder
	for _, part := range strings.Split(s, "_") {
		switch part {
		case "id":
			b.WriteString("ID")
		case "ids":
			b.WriteString("IDs")
		case "q":
			b.WriteString("Q")
		default:
			if part != "" {
				b.WriteString(strings.ToUpper(part[:1]) + part[1:])
			}
		}
	}
	return b.String()
}

// View is a tool's `view:`.
type View struct {
	Name         string         `yaml:"name"`
	OutputSchema map[string]any `yaml:"output_schema"`
}

package naming

import (
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"

	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// PromptArg is one argument of a prompt as tools.yaml declares it
// (gen/registry lists them).
type PromptArg struct {
	Name        string
	Description string
	Required    bool
	// Names is what a name given in it stands for: the prompt's function
	// reads the id (PromptArgs.ID), and completion/complete completes
	// the name (CompleteNames). "" for an argument that is no name.
	Names NameKind
	// Enum are the values it takes, for completion/complete; List: it
	// takes several, separated by commas (tools.yaml's type string_list).
	Enum []string
	List bool
}

// PromptArgs are the arguments of one prompts/get as a prompt's function
// reads them: each trimmed; a name (an argument with names:) turned into
// the id of what it names by Resolve, as a tool's argument is.
type PromptArgs struct {
	values map[string]string
	found  map[string]Found
	decl   []PromptArg
	// ReadOnly: the server serves no write tool (AUDIOBOOKSHELF_READ_ONLY),
	// so a prompt names none.
	ReadOnly bool
}

// String is the argument's value, trimmed; "" when it was not given.
func (a PromptArgs) String(name string) string { return strings.TrimSpace(a.values[name]) }

// ID is the id of what a name argument named (the value itself when it
// was given as an id); "" when it was not given.
func (a PromptArgs) ID(name string) string { return a.String(name) }

// Named is the name of what a name argument named (what Audiobookshelf
// calls it: "Discworld" for "discworld"); the value as given when it was
// an id.
func (a PromptArgs) Named(name string) string {
	if f, ok := a.found[name]; ok {
		return f.Name
	}
	return a.String(name)
}

// Given is the words given in the argument, trimmed, before a name was
// turned into its id.
func (a PromptArgs) Given(name string) string {
	if f, ok := a.found[name]; ok {
		return f.Words
	}
	return a.String(name)
}

// Enum is the values tools.yaml declares for the argument.
func (a PromptArgs) Enum(name string) []string {
	for _, d := range a.decl {
		if d.Name == name {
			return d.Enum
		}
	}
	return nil
}

// NewPromptArgs checks and resolves the arguments given to a prompt that
// declares decl: a required one left out or blank is refused, naming it;
// each name is turned into its id with Resolve (a library's first,
// so that it narrows the search for the others), and one that names
// nothing, several things or only a part of a name is refused naming the
// argument and the candidates. The errors are kit.Errors without an
// outcome's sentence: a prompt changes nothing.
func NewPromptArgs(ctx context.Context, d *kit.Deps, decl []PromptArg, given map[string]string, readOnly bool) (PromptArgs, error) {
	a := PromptArgs{values: map[string]string{}, found: map[string]Found{}, decl: decl, ReadOnly: readOnly}
	var names []NameArg
	for _, p := range decl {
		v := strings.TrimSpace(given[p.Name])
		if v == "" {
			if p.Required {
				return a, kit.Errorf(kit.Stated, "argument %q: required (%s)%s", p.Name, strings.TrimSuffix(p.Description, "."), completable(p))
			}
			continue
		}
		a.values[p.Name] = v
		if p.Names != "" {
			names = append(names, NameArg{Param: p.Name, Kind: p.Names})
		}
	}
	if len(names) == 0 {
		return a, nil
	}
	raw, err := json.Marshal(a.values)
	if err != nil {
		return a, err
	}
	out, found, err := Resolve(ctx, d, raw, names...)
	if err != nil {
		return a, err
	}
	if err := found.RefuseGuess("A prompt's text names only what it was given exactly"); err != nil {
		return a, err
	}
	resolved := map[string]string{}
	if err := json.Unmarshal(out, &resolved); err != nil {
		return a, err
	}
	a.values = resolved
	for _, f := range found {
		a.found[f.Arg] = f
	}
	return a, nil
}

func completable(p PromptArg) string {
	if p.Names != "" || len(p.Enum) > 0 {
		return "; completion/complete lists its values"
	}
	return ""
}

// CompletePrompt completes the argument arg of a prompt that declares
// decl, given value and the other arguments the client has (context):
// a name by CompleteNames (within the library a library argument of
// context names, when one does), one of enum by CompleteValues. An
// argument that is neither, or is not declared, has no values.
func CompletePrompt(ctx context.Context, d *kit.Deps, decl []PromptArg, arg, value string, context map[string]string) (Completion, error) {
	i := slices.IndexFunc(decl, func(p PromptArg) bool { return p.Name == arg })
	if i < 0 {
		return clipCompletion(nil, 0), nil
	}
	p := decl[i]
	switch {
	case len(p.Enum) > 0:
		return CompleteValues(p.Enum, value, p.List), nil
	case p.Names == "":
		return clipCompletion(nil, 0), nil
	}
	library := ""
	if !p.Names.isLibrary() {
		for _, o := range decl {
			v := strings.TrimSpace(context[o.Name])
			if o.Names.isLibrary() && o.Name != arg && v != "" {
				raw, _ := json.Marshal(map[string]string{o.Name: v})
				out, _, err := Resolve(ctx, d, raw, NameArg{Param: o.Name, Kind: o.Names})
				if err != nil {
					return Completion{}, fmt.Errorf("the library of the context: %w", err)
				}
				var m map[string]string
				if err := json.Unmarshal(out, &m); err != nil {
					return Completion{}, err
				}
				library = m[o.Name]
				break
			}
		}
	}
	return CompleteNames(ctx, d, p.Names, value, library)
}

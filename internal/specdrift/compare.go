package specdrift

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/toolgen"
)

// Op is one operation of the spec.
type Op struct {
	ID, Method, Path string
	Tools            []string // the tools that call it (tools.yaml)
}

// Change is a spec operation the server no longer serves as written.
type Change struct {
	Op Op
	// Methods the server now serves on the same path that the spec has no
	// operation for; empty when the route is gone.
	NowMethods []string
}

// Report is the drift of one source against the spec.
type Report struct {
	Source      *Source
	SpecVersion string
	// Lacking are server routes with no spec operation.
	Lacking []Route
	// Gone are spec operations whose path the server no longer serves
	// with any method.
	Gone []Change
	// MethodChanged are spec operations whose path the server serves, but
	// not with the spec's method.
	MethodChanged []Change
	Matched       int
}

// Breaking are the changes to operations a tool calls.
func (r *Report) Breaking() []Change {
	var out []Change
	for _, c := range append(append([]Change{}, r.Gone...), r.MethodChanged...) {
		if len(c.Op.Tools) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// SpecOps lists the spec's operations with the tools of the manifest that
// call each.
func SpecOps(spec toolgen.Spec, m *toolgen.Manifest) []Op {
	users := map[string][]string{}
	if m != nil {
		for _, t := range m.Tools {
			for _, op := range t.Operations {
				users[op] = append(users[op], t.Name)
			}
		}
	}
	var ops []Op
	for id, o := range spec {
		ops = append(ops, Op{ID: id, Method: strings.ToUpper(o.Method), Path: o.Path, Tools: users[id]})
	}
	sort.Slice(ops, func(i, j int) bool {
		if ops[i].Path != ops[j].Path {
			return ops[i].Path < ops[j].Path
		}
		return ops[i].Method < ops[j].Method
	})
	return ops
}

// Compare sets the server's routes against the spec's operations. Routes
// outside /api (Server.js) count only where the spec has them: the server
// serves many more (the web app, feeds) that are no API.
func Compare(src *Source, ops []Op, specVersion string) *Report {
	r := &Report{Source: src, SpecVersion: specVersion}
	served := map[string]Route{}       // key → first registration
	methodsAt := map[string][]string{} // shape → methods
	for _, rt := range src.Routes {
		k := rt.Key()
		if _, dup := served[k]; dup {
			continue
		}
		served[k] = rt
		methodsAt[Shape(rt.Path)] = append(methodsAt[Shape(rt.Path)], rt.Method)
	}
	inSpec := map[string]bool{}
	for _, op := range ops {
		inSpec[op.Method+" "+Shape(op.Path)] = true
	}
	for _, op := range ops {
		k := op.Method + " " + Shape(op.Path)
		if _, ok := served[k]; ok {
			r.Matched++
			continue
		}
		// Methods served on the path that the spec has no operation for:
		// where the old method went.
		var now []string
		for _, m := range methodsAt[Shape(op.Path)] {
			if !inSpec[m+" "+Shape(op.Path)] {
				now = append(now, m)
			}
		}
		sort.Strings(now)
		if len(now) > 0 {
			r.MethodChanged = append(r.MethodChanged, Change{Op: op, NowMethods: now})
		} else {
			r.Gone = append(r.Gone, Change{Op: op})
		}
	}
	for k, rt := range served {
		if inSpec[k] || !strings.HasPrefix(rt.Path, "/api/") {
			continue
		}
		r.Lacking = append(r.Lacking, rt)
	}
	byPath := func(cs []Change) {
		sort.Slice(cs, func(i, j int) bool {
			if cs[i].Op.Path != cs[j].Op.Path {
				return cs[i].Op.Path < cs[j].Op.Path
			}
			return cs[i].Op.Method < cs[j].Op.Method
		})
	}
	byPath(r.Gone)
	byPath(r.MethodChanged)
	sort.Slice(r.Lacking, func(i, j int) bool {
		if r.Lacking[i].Path != r.Lacking[j].Path {
			return r.Lacking[i].Path < r.Lacking[j].Path
		}
		return r.Lacking[i].Method < r.Lacking[j].Method
	})
	return r
}

// Print writes the report for a person.
func (r *Report) Print(w io.Writer, specName, srcName string) {
	v := r.Source.Version
	if v == "" {
		v = "version unknown"
	} else {
		v = "Audiobookshelf " + v
	}
	fmt.Fprintf(w, "spec-drift: %s (written for Audiobookshelf %s) against %s (%s)\n", specName, r.SpecVersion, srcName, v)
	fmt.Fprintf(w, "read %s: %d routes; %d of the spec's operations are served as written\n",
		strings.Join(r.Source.Files, ", "), len(r.Source.Routes), r.Matched)

	fmt.Fprintf(w, "\nroutes the spec has that the server no longer serves (%d):\n", len(r.Gone))
	for _, c := range r.Gone {
		fmt.Fprintf(w, "  %-6s %-48s %s%s\n", c.Op.Method, c.Op.Path, c.Op.ID, usedBy(c.Op))
	}
	fmt.Fprintf(w, "\nmethod changes (%d):\n", len(r.MethodChanged))
	for _, c := range r.MethodChanged {
		fmt.Fprintf(w, "  %-6s %-48s %s%s: the server serves %s there now\n", c.Op.Method, c.Op.Path, c.Op.ID, usedBy(c.Op), strings.Join(c.NowMethods, ", "))
	}
	fmt.Fprintf(w, "\nroutes the spec lacks (%d):\n", len(r.Lacking))
	for _, rt := range r.Lacking {
		fmt.Fprintf(w, "  %-6s %-56s %s\n", rt.Method, rt.Path, rt.Where)
	}
	if b := r.Breaking(); len(b) > 0 {
		fmt.Fprintf(w, "\nFAIL: %d route(s) that tools use have gone or changed:\n", len(b))
		for _, c := range b {
			fmt.Fprintf(w, "  %s %s (%s)\n", c.Op.Method, c.Op.Path, strings.Join(c.Op.Tools, ", "))
		}
		fmt.Fprintln(w, "Update spec/audiobookshelf.yaml and tools.yaml, then make generate (docs/upgrading.md).")
	} else {
		fmt.Fprintln(w, "\nok: every route a tool uses is still served with the same method.")
	}
}

func usedBy(op Op) string {
	if len(op.Tools) == 0 {
		return " (no tool)"
	}
	return " (tools: " + strings.Join(op.Tools, ", ") + ")"
}

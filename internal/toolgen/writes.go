package toolgen

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// WritesFile is the generated table of what Audiobookshelf answers each
// write the tools send.
const WritesFile = "gen/writes/writes.gen.go"

// WriteOp is one operation the tools send that changes data: what
// Audiobookshelf answers it with when it succeeds (the spec's 200) and the
// read tool that shows what it changed (the read_back of the tools that
// send it).
type WriteOp struct {
	Op       *Operation
	ReadBack string
	Tools    []string
}

var pathParamRE = regexp.MustCompile(`\{[^}]+\}`)

// Writes lists the operations of the manifest's tools that change data
// (Operation.ChangesData), in the spec's matching order. An operation that
// several tools send takes their one read_back; tools that name different
// ones are refused, as is a write without a 200 that says what it answers.
func Writes(m *Manifest, spec Spec) ([]WriteOp, error) {
	byOp := map[string]*WriteOp{}
	var errs []error
	for i := range m.Tools {
		t := &m.Tools[i]
		for _, id := range t.Operations {
			op := spec[id]
			if op == nil || !op.ChangesData {
				continue
			}
			w := byOp[id]
			if w == nil {
				w = &WriteOp{Op: op, ReadBack: t.ReadBack}
				byOp[id] = w
			}
			w.Tools = append(w.Tools, t.Name)
			if t.ReadBack != w.ReadBack {
				errs = append(errs, fmt.Errorf("tools.yaml: tool %s: read_back: %s sends %s, as %s does, whose read_back is %s: a change is read back with one tool; name the same", t.Name, t.ReadBack, id, w.Tools[0], w.ReadBack))
			}
		}
	}
	var out []WriteOp
	for _, w := range byOp {
		if !w.Op.PlainOK && !w.Op.JSON {
			errs = append(errs, fmt.Errorf("%s: %s (%s %s, sent by %s) changes data and its 200 is neither PlainOK nor a JSON object: say what Audiobookshelf answers it with (the object's required fields are what a successful answer is held to), or x-abs-changes-data: false if it changes nothing", SpecFile, w.Op.ID, w.Op.Method, w.Op.Path, strings.Join(w.Tools, ", ")))
		}
		out = append(out, *w)
	}
	slices.SortFunc(out, func(a, b WriteOp) int {
		if a.Op.Order != b.Op.Order {
			return a.Op.Order - b.Op.Order
		}
		return strings.Compare(a.Op.Method, b.Op.Method)
	})
	return out, errors.Join(errs...)
}

// pathPattern is the regular expression that matches the end of a
// request's URL path to an operation's path template.
func pathPattern(path string) string {
	parts := pathParamRE.Split(path, -1)
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return strings.Join(parts, "[^/]+") + "$"
}

// renderWrites writes gen/writes.
func renderWrites(ws []WriteOp) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(header)
	b.WriteString(`// Package writes holds what Audiobookshelf answers each write the tools
// send, as the 200 of spec/audiobookshelf.yaml says (the plain text "OK",
// or a JSON object with the schema's required fields), and the read tool
// that shows what it changed (tools.yaml's read_back). kit.Deps.CheckWrite
// reports a write as made only when its answer is that.
package writes

import "regexp"

// Answer is one write and what Audiobookshelf answers it with.
type Answer struct {
	Operation string // the spec's operationId
	Method    string
	// Path matches the end of the request's URL path.
	Path *regexp.Regexp
	// PlainOK: the answer is 200 with the text "OK" (res.sendStatus(200));
	// else 200 with a JSON object that has the Required fields.
	PlainOK  bool
	Required []string
	// ReadBack is the read tool that shows what the write changed.
	ReadBack string
}

// All lists the writes in the spec's matching order of paths.
var All = []Answer{
`)
	for _, w := range ws {
		fmt.Fprintf(&b, "\t{Operation: %q, Method: %q, Path: regexp.MustCompile(%s), ", w.Op.ID, strings.ToUpper(w.Op.Method), "`"+pathPattern(w.Op.Path)+"`")
		if w.Op.PlainOK {
			b.WriteString("PlainOK: true, ")
		} else if len(w.Op.Required) > 0 {
			fmt.Fprintf(&b, "Required: []string{%s}, ", strings.Join(quoteAll(w.Op.Required), ", "))
		}
		fmt.Fprintf(&b, "ReadBack: %s},\n", strconv.Quote(w.ReadBack))
	}
	b.WriteString("}\n")
	return gofmt(WritesFile, b.Bytes())
}

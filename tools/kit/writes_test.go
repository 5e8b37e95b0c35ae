package kit

import (
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"gopkg.in/yaml.v3"
)

// TestWriteAnswersAreTheSpecs keeps writeAnswers equal to
// spec/audiobookshelf.yaml: every write operation has its entry, found by
// its method and path, with the 200 the spec gives it (the plain "OK", or
// the required fields of its schema).
func TestWriteAnswersAreTheSpecs(t *testing.T) {
	b, err := os.ReadFile("../../spec/audiobookshelf.yaml")
	if err != nil {
		t.Fatal(err)
	}
	type resp struct {
		Ref     string `yaml:"$ref"`
		Content map[string]struct {
			Schema struct {
				Ref string `yaml:"$ref"`
			} `yaml:"schema"`
		} `yaml:"content"`
	}
	var spec struct {
		Paths map[string]map[string]struct {
			OperationID string          `yaml:"operationId"`
			ChangesData bool            `yaml:"x-abs-changes-data"`
			Responses   map[string]resp `yaml:"responses"`
		} `yaml:"paths"`
		Components struct {
			Schemas map[string]struct {
				Required []string `yaml:"required"`
			} `yaml:"schemas"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(b, &spec); err != nil {
		t.Fatal(err)
	}
	param := regexp.MustCompile(`\{[^}]+\}`)
	seen := 0
	for path, ops := range spec.Paths {
		for method, op := range ops {
			method = strings.ToUpper(method)
			// A GET that changes data (x-abs-changes-data) is a write too.
			if method != http.MethodPost && method != http.MethodPatch && method != http.MethodDelete && method != http.MethodPut && !op.ChangesData {
				continue
			}
			seen++
			sample := "/base" + param.ReplaceAllString(path, "x1")
			w := answerFor(method, sample)
			if w == nil || w.op != op.OperationID {
				t.Errorf("%s %s (%s): writeAnswers has no entry for it (found %v): a write tool's operation says there what Audiobookshelf answers it with (tools/kit/writes.go; CONTRIBUTING.md, adding a write tool)", method, path, op.OperationID, w)
				continue
			}
			ok, found := op.Responses["200"]
			if !found {
				t.Errorf("%s: the spec gives no 200", op.OperationID)
				continue
			}
			if plain := ok.Ref == "#/components/responses/PlainOK"; plain != w.plainOK {
				t.Errorf("%s: the spec's 200 is plain OK: %v, writeAnswers says %v", op.OperationID, plain, w.plainOK)
			}
			if !w.plainOK {
				ref := ok.Content["application/json"].Schema.Ref
				req := spec.Components.Schemas[strings.TrimPrefix(ref, "#/components/schemas/")].Required
				// A quick match answers {warning} or {updated, libraryItem}:
				// no field is common to both, so nothing is required.
				if (len(req) == 0 && op.OperationID != "matchLibraryItem") || !slices.Equal(req, w.required) {
					t.Errorf("%s: the spec's %s requires %v, writeAnswers %v", op.OperationID, ref, req, w.required)
				}
			}
		}
	}
	if seen != len(writeAnswers) {
		t.Errorf("the spec has %d write operations, writeAnswers %d entries", seen, len(writeAnswers))
	}
}

// resultText is the text of a result.
func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

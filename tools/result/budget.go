package result

import (
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"

	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The result budget: no answer of a tool is longer than this many characters
// of text (AUDIOBOOKSHELF_MAX_RESULT_CHARS). Clients refuse or move out of
// the conversation results much longer than this (Claude Code: 25,000
// tokens, and a file for anything over 50,000 characters), and others fill
// the model's context until it loses the thread.
const (
	DefaultMaxResultChars = 40000
	MinMaxResultChars     = 10000
	MaxMaxResultChars     = 1000000
)

// budgetMargin is what a projection leaves of the budget for the fields
// around its lists (total, page, notes) and for the estimate's error.
const budgetMargin = 1000

// MaxChars is the budget of one answer in characters.
func MaxChars(d *kit.Deps) int {
	if d == nil || d.MaxResultChars <= 0 {
		return DefaultMaxResultChars
	}
	return d.MaxResultChars
}

// Room is what a projection may spend on its lists.
func Room(d *kit.Deps) int { return MaxChars(d) - budgetMargin }

// ResultChars counts the characters of text a result carries, as a model
// reads them.
func ResultChars(res *mcp.CallToolResult) int {
	if res == nil {
		return 0
	}
	n := 0
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			n += utf8.RuneCountInString(t.Text)
		}
	}
	return n
}

// Shape is what the budget's refusal needs to know of a tool to say how to
// ask for less.
type Shape struct {
	Name     string
	ReadOnly bool
	// HasDetail, HasLimit, HasPage: the tool takes detail, limit, page.
	HasDetail, HasLimit, HasPage bool
	// DefaultLimit is limit's default (0 when none).
	DefaultLimit int
	// MinLimit is limit's minimum (1 when none is declared).
	MinLimit int
}

// ShapeOf reads a Shape from a tool's input schema.
func ShapeOf(name string, readOnly bool, schema any) Shape {
	s := Shape{Name: name, ReadOnly: readOnly, MinLimit: 1}
	var b []byte
	switch v := schema.(type) {
	case json.RawMessage:
		b = v
	case []byte:
		b = v
	default:
		b, _ = json.Marshal(v)
	}
	var sch struct {
		Properties map[string]struct {
			Default any      `json:"default"` // a number for limit, a string for detail
			Minimum *float64 `json:"minimum"`
		} `json:"properties"`
	}
	if json.Unmarshal(b, &sch) != nil {
		return s
	}
	_, s.HasDetail = sch.Properties["detail"]
	_, s.HasPage = sch.Properties["page"]
	if p, ok := sch.Properties["limit"]; ok {
		s.HasLimit = true
		if def, ok := p.Default.(float64); ok {
			s.DefaultLimit = int(def)
		}
		if p.Minimum != nil && *p.Minimum > 1 {
			s.MinLimit = int(*p.Minimum)
		}
	}
	return s
}

// Budget holds a result to max characters. A result within it is returned
// as it is; one beyond it is never cut (cut JSON no longer parses, and a
// model would take a part for the whole): it is replaced by an error that
// names its size and the narrower call that fits. Every tool's result
// passes through here (internal/app), so a tool added later is held to it
// too; the projections fit themselves below it, so this refuses only what
// a projection cannot shrink (a raw object of detail "full", a raw answer).
func Budget(res *mcp.CallToolResult, max int, s Shape, args json.RawMessage) *mcp.CallToolResult {
	if res == nil {
		return res
	}
	n := ResultChars(res)
	if n <= max {
		return res
	}
	var a struct {
		Detail string   `json:"detail"`
		Limit  *float64 `json:"limit"`
		Page   *float64 `json:"page"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		// Arguments that cannot be read (none at all, say) are taken as
		// none given: the ways below start from the defaults.
		a.Detail, a.Limit, a.Page = "", nil, nil
	}
	var ways []string
	if s.HasDetail && a.Detail == "full" {
		ways = append(ways, `leave out detail "full": the compact form (the default) keeps ids and key fields and fits`)
	}
	if s.HasLimit {
		limit := s.DefaultLimit
		if a.Limit != nil {
			limit = int(*a.Limit)
		}
		if limit > s.MinLimit {
			fit := limit * (max - budgetMargin) / n
			if fit < s.MinLimit {
				fit = s.MinLimit
			}
			if fit < limit {
				w := fmt.Sprintf("a smaller limit (about %d instead of %d)", fit, limit)
				if s.HasPage {
					w += ", then page to walk the rest"
				}
				ways = append(ways, w)
			}
		}
	}
	if len(ways) == 0 {
		ways = append(ways, "a narrower call (one item, one library, a filter)")
	}
	outcome := kit.Unchanged
	if !s.ReadOnly {
		outcome = kit.Made
	}
	return kit.Result(kit.Errorf(outcome, "The answer of %s is %s characters, more than this server's budget of %s (AUDIOBOOKSHELF_MAX_RESULT_CHARS), so it was not sent: a part of it would not parse, or would pass for the whole. Ask for less: %s.",
		s.Name, thousands(n), thousands(max), strings.Join(ways, "; or ")))
}

// thousands writes n with commas: 842,493.
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

package result

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestBudget(t *testing.T) {
	big, _ := TextResult("%s", strings.Repeat("é", 12000)) // 12,000 characters, 24,000 bytes
	if got := ResultChars(big); got != 12000 {
		t.Fatalf("ResultChars counts characters: %d", got)
	}
	if Budget(big, 12000, Shape{Name: "x", ReadOnly: true}, nil) != big {
		t.Error("a result at the budget must pass as it is")
	}
	read := Budget(big, 11999, Shape{Name: "get_thing", ReadOnly: true}, json.RawMessage(`{}`))
	if !read.IsError || !strings.Contains(text(read), "12,000 characters") || !strings.Contains(text(read), "11,999") || !strings.Contains(text(read), "Nothing was changed.") {
		t.Errorf("read over budget: %s", text(read))
	}
	write := Budget(big, 11999, Shape{Name: "add_books_to_collection"}, json.RawMessage(`{}`))
	if !write.IsError || strings.Contains(text(write), "Nothing was changed") || !strings.Contains(text(write), "was carried out") {
		t.Errorf("a write's answer over budget must not say nothing changed: %s", text(write))
	}
	limited := Budget(big, 11999, ShapeOf("list_x", true, json.RawMessage(`{"properties":{"limit":{"type":"integer","default":25,"minimum":1},"page":{"type":"integer"},"detail":{"type":"string","default":"compact"}}}`)), json.RawMessage(`{"limit":100,"detail":"full"}`))
	for _, want := range []string{`leave out detail "full"`, "about 91 instead of 100", "then page"} {
		if !strings.Contains(text(limited), want) {
			t.Errorf("lacks %q: %s", want, text(limited))
		}
	}
}

func text(r *mcp.CallToolResult) string { return r.Content[0].(*mcp.TextContent).Text }

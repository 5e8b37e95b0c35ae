package result

import (
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"

	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// A page over the budget is made smaller at a divisor of its limit, so that
// page and limit still name the same entries and next goes on from there.
func TestPageFitsTheBudget(t *testing.T) {
	d := &kit.Deps{MaxResultChars: 10000}
	all := make([]string, 1000)
	for i := range all {
		all[i] = fmt.Sprintf("%04d", i) + strings.Repeat("x", 196)
	}
	res, _ := Page(d, "tags", Paging{Page: 2, Limit: 100}, all, nil, AsIs[string])
	if n := ResultChars(res); n > 10000 {
		t.Fatalf("%d characters over a budget of 10000", n)
	}
	var v struct {
		Total, Page, Limit, Returned int
		Next                         *NextPage
		Note                         string
		Tags                         []string
	}
	if err := json.Unmarshal([]byte(text(res)), &v); err != nil {
		t.Fatal(err)
	}
	// 25 entries of ~200 characters fit 9,000; 50 do not.
	if v.Limit != 25 || v.Page != 8 || v.Returned != 25 || v.Total != 1000 || v.Next == nil || *v.Next != (NextPage{9, 25}) {
		t.Errorf("got page %d limit %d returned %d next %v", v.Page, v.Limit, v.Returned, v.Next)
	}
	if v.Tags[0] != all[200] || v.Tags[24] != all[224] || !strings.Contains(v.Note, "limit lowered from 100 to 25") {
		t.Errorf("entries %q..%q, note %q", v.Tags[0][:4], v.Tags[24][:4], v.Note)
	}
	// The next page's arguments give the entries right after.
	next, _ := Page(d, "tags", Paging{Page: v.Next.Page, Limit: v.Next.Limit}, all, nil, AsIs[string])
	if err := json.Unmarshal([]byte(text(next)), &v); err != nil || v.Tags[0] != all[225] {
		t.Errorf("next page starts at %q, want 0225: %v", v.Tags[0][:4], err)
	}
	// The last page says no next.
	last, _ := Page(d, "tags", Paging{Page: 39, Limit: 25}, all, nil, AsIs[string])
	v.Next = nil
	if err := json.Unmarshal([]byte(text(last)), &v); err != nil || v.Next != nil || v.Returned != 25 {
		t.Errorf("last page: next %v returned %d", v.Next, v.Returned)
	}
}

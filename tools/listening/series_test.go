package listening

import (
	"fmt"
	"testing"
	"time"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
)

func book(id, seq string) absdata.Item {
	it := absdata.Item{ID: id}
	it.Media.Metadata.Title = absdata.Text{Value: id, Valid: true}
	it.Media.Metadata.Series = absdata.SeriesRefs{{ID: "s", Name: "S", Sequence: absdata.Text{Value: seq, Valid: seq != ""}}}
	return it
}

// TestViewOfNamesGapsAndDuplicates: numbers 1, 2.5, 4, 4, 10 and a book
// without one: 2, 3 and 5 to 9 are missing, 4 is shared, one is
// unnumbered, and the order is by number with the unnumbered last; the next
// unstarted book after finished book 1 is 2.5, with no whole number missing
// before it but 2.
func TestViewOfNamesGapsAndDuplicates(t *testing.T) {
	items := []absdata.Item{book("d", "4"), book("x", ""), book("a", "1"), book("j", "10"), book("b", "2.5"), book("e", "4")}
	fin := int64(1)
	v := viewOf("s", "S", "l", items, len(items), map[string]*absdata.Progress{"a": {IsFinished: true, FinishedAt: &fin}})
	var order []string
	for _, b := range v.Books {
		order = append(order, b.ID)
	}
	if fmt.Sprint(order) != "[a b d e j x]" {
		t.Errorf("order %v", order)
	}
	if fmt.Sprint(v.Gaps) != "[2 3 5 6 7 8 9]" || len(v.Duplicates) != 1 || v.Duplicates[0].Sequence != "4" || fmt.Sprint(v.Duplicates[0].BookIDs) != "[d e]" || v.Unnumbered != 1 {
		t.Errorf("gaps %v, duplicates %v, unnumbered %d", v.Gaps, v.Duplicates, v.Unnumbered)
	}
	if v.Finished != 1 || v.NotStarted != 5 || v.Complete {
		t.Errorf("counts %+v", v)
	}
	if g := missingBefore(&v, 1); fmt.Sprint(g) != "[2]" {
		t.Errorf("missing before 2.5: %v", g)
	}
	if g := missingBefore(&v, 4); fmt.Sprint(g) != "[5 6 7 8 9]" {
		t.Errorf("missing before 10: %v", g)
	}
}

// TestPeriodOfWeeksAcrossTheYear: ISO weeks, which a year's last days can
// belong to the next year's first.
func TestPeriodOfWeeksAcrossTheYear(t *testing.T) {
	for day, want := range map[string]string{"2024-12-30": "2025-W01", "2021-01-03": "2020-W53", "2026-03-02": "2026-W10"} {
		d, _ := time.Parse("2006-01-02", day)
		if got := periodOf(d, "week"); got != want {
			t.Errorf("%s: %s, want %s", day, got, want)
		}
	}
	d, _ := time.Parse("2006-01-02", "2026-03-02")
	if periodOf(d, "month") != "2026-03" || periodOf(d, "day") != "2026-03-02" {
		t.Errorf("month %s, day %s", periodOf(d, "month"), periodOf(d, "day"))
	}
}

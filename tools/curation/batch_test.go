package curation

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
)

// TestPlanTextPutBack: a publisher or language is free to set only where
// one call of the tool gives every book back exactly. Audiobookshelf
// stores "" as null (value || null), so a book holding null gets it back
// from a set of "", and one holding "" (a raw empty string) would not.
func TestPlanTextPutBack(t *testing.T) {
	null := absdata.Text{}
	text := func(s string) absdata.Text { return absdata.Text{Value: s, Valid: true} }
	for _, c := range []struct {
		name     string
		held     []absdata.Text
		value    string
		changed  int
		replaced int
		back     string
	}{
		{"set where every book holds null", []absdata.Text{null, null}, "Corgi", 2, 0, ""},
		{"set where one holds a raw empty string", []absdata.Text{null, text("")}, "Corgi", 2, 1, ""},
		{"set over text", []absdata.Text{null, text("Tor")}, "Corgi", 2, 1, ""},
		{"set where one holds the value already", []absdata.Text{text("Corgi"), null}, "Corgi", 1, 0, ""},
		{"cleared where every book holds the same text", []absdata.Text{text("Tor"), text("Tor"), null}, "", 2, 0, "Tor"},
		{"cleared where the books differ", []absdata.Text{text("Tor"), text("Orbit")}, "", 2, 1, "Tor"},
		{"cleared where the text holds a CR", []absdata.Text{text("T\ror")}, "", 1, 1, "T\ror"},
		{"cleared where nothing is held", []absdata.Text{null, text("")}, "", 0, 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var states []bookState
			for i, h := range c.held {
				states = append(states, bookState{ID: fmt.Sprint("b", i), Value: h})
			}
			ch := planText(states, "publisher", c.value)
			if len(ch.payload) != c.changed || len(ch.replaced) != c.replaced {
				t.Errorf("%d changed, %d replaced; want %d and %d", len(ch.payload), len(ch.replaced), c.changed, c.replaced)
			}
			if got := ch.putBack.Arguments["value"]; got != c.back || ch.putBack.Arguments["mode"] != "set" || ch.putBack.Arguments["field"] != "publisher" {
				t.Errorf("put-back %v, want set publisher %q", ch.putBack.Arguments, c.back)
			}
		})
	}
}

// TestPlanListPutBack: tags, genres and narrators are free to change only
// where one call back gives every list back exactly.
func TestPlanListPutBack(t *testing.T) {
	for _, c := range []struct {
		name             string
		mode             string
		lists            [][]string
		values           []string
		changed, partial int
		replaced         int
	}{
		{"added where every list lacks them", "add", [][]string{{"a"}, {}}, []string{"x", "y"}, 2, 0, 0},
		{"added where one holds them all", "add", [][]string{{"x", "y"}, {"a"}}, []string{"x", "y"}, 1, 0, 0},
		{"added where one holds part", "add", [][]string{{"y"}}, []string{"x", "y"}, 1, 1, 0},
		{"taken off the end, in order", "remove", [][]string{{"a", "x", "y"}, {"b"}}, []string{"x", "y"}, 1, 0, 0},
		{"taken off the end, out of order", "remove", [][]string{{"a", "y", "x"}}, []string{"x", "y"}, 1, 1, 0},
		{"taken off the middle", "remove", [][]string{{"x", "a"}}, []string{"x"}, 1, 1, 0},
		{"held twice", "remove", [][]string{{"x", "a", "x"}}, []string{"x"}, 1, 1, 0},
		{"held in part", "remove", [][]string{{"a", "x"}}, []string{"x", "y"}, 1, 1, 0},
		{"set where the lists are empty", "set", [][]string{{}, nil}, []string{"x"}, 2, 0, 0},
		{"set over a list", "set", [][]string{{"a"}, {}}, []string{"x"}, 2, 0, 1},
		{"set to what it is", "set", [][]string{{"x"}}, []string{"x"}, 0, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			var states []bookState
			for i, l := range c.lists {
				states = append(states, bookState{ID: fmt.Sprint("b", i), List: l})
			}
			ch := planList(states, c.mode, c.values, "tags")
			if len(ch.payload) != c.changed || len(ch.partial) != c.partial || len(ch.replaced) != c.replaced {
				t.Errorf("%d changed, %d partial, %d replaced; want %d, %d, %d", len(ch.payload), len(ch.partial), len(ch.replaced), c.changed, c.partial, c.replaced)
			}
			back := map[string]string{"add": "remove", "remove": "add", "set": "remove"}[c.mode]
			if ch.putBack.Arguments["mode"] != back {
				t.Errorf("put-back %v, want mode %s", ch.putBack.Arguments, back)
			}
		})
	}
}

// TestPlanSeriesMovePutBack: moving books already in a series to another
// place in it is free where one call of add at the old place gives every
// book its place back: they all came from one place (or none), and the
// call puts no other book in the series.
func TestPlanSeriesMovePutBack(t *testing.T) {
	null := absdata.Text{}
	seq := func(s string) absdata.Text { return absdata.Text{Value: s, Valid: true} }
	in := func(id string, places ...absdata.Text) bookState {
		st := bookState{ID: id}
		for i, p := range places {
			st.Series = append(st.Series, absdata.SeriesRef{ID: fmt.Sprint("s", i), Name: []string{"Discworld", "Death"}[i], Sequence: p})
		}
		return st
	}
	to := "4.5"
	for _, c := range []struct {
		name     string
		states   []bookState
		replaced int
		back     map[string]any
	}{
		{"one book moved", []bookState{in("b0", seq("4"))}, 0, map[string]any{"mode": "add", "sequence": "4"}},
		{"a book in two series moved in its second", []bookState{in("b0", seq("9"), seq("2"))}, 0, nil},
		{"two books from one place", []bookState{in("b0", seq("4")), in("b1", seq("4"))}, 0, map[string]any{"mode": "add", "sequence": "4"}},
		{"a book from no place", []bookState{in("b0", null)}, 0, map[string]any{"mode": "add", "sequence": nil}},
		{"two books from two places", []bookState{in("b0", seq("4")), in("b1", seq("5"))}, 2, nil},
		{"a book moved and another put in", []bookState{in("b0", seq("4")), in("b1")}, 1, map[string]any{"mode": "remove"}},
		{"a book at a place too long to carry back", []bookState{in("b0", seq(strings.Repeat("9", maxSequence+1)))}, 1, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			name := "Discworld"
			if c.name == "a book in two series moved in its second" {
				name = "death"
			}
			ch, err := planSeries(context.Background(), nil, c.states, "add", name, &to)
			if err != nil {
				t.Fatal(err)
			}
			if len(ch.payload) != len(c.states) || len(ch.replaced) != c.replaced {
				t.Fatalf("%d changed, %d replaced; want %d and %d", len(ch.payload), len(ch.replaced), len(c.states), c.replaced)
			}
			if c.name == "a book in two series moved in its second" {
				list := *ch.payload[0].MediaPayload.Metadata.Series
				if len(list) != 2 || list[0].Name != "Discworld" || *list[0].Sequence != "9" || list[1].Name != "Death" || *list[1].Sequence != to {
					t.Errorf("the payload's series: %+v; want Discworld #9 then Death #%s, in their order", list, to)
				}
				if ch.putBack.Arguments["sequence"] != "2" || ch.putBack.Arguments["mode"] != "add" {
					t.Errorf("put-back %v, want add at 2", ch.putBack.Arguments)
				}
			}
			for k, v := range c.back {
				got, ok := ch.putBack.Arguments[k]
				if v == nil && ok {
					t.Errorf("put-back %v: want no %s (the book had no place)", ch.putBack.Arguments, k)
				} else if v != nil && got != v {
					t.Errorf("put-back %v: want %s %v", ch.putBack.Arguments, k, v)
				}
			}
		})
	}
}

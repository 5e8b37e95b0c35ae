package standin

import "testing"

// POST /api/items/batch/update as LibraryItemController.batchUpdate
// answers on 2.36: refusals before anything changes, each payload applied
// as PATCH /api/items/:id/media applies it, a series left without a book
// deleted, authors untouched unless sent, {success, updates}.
func TestBatchUpdate(t *testing.T) {
	s := start(t)
	entry := func(id string, payload map[string]any) map[string]any {
		return map[string]any{"id": id, "mediaPayload": payload}
	}
	tags := map[string]any{"tags": []string{"discworld", "death", "x"}}
	for _, c := range []struct {
		name string
		body any
		key  string
		want int
	}{
		{"without update", []any{entry(ItemMort, tags)}, ListenerAPIKey, 403},
		{"not a list", map[string]any{"id": ItemMort}, "", 400},
		{"an empty list", []any{}, "", 400},
		{"an entry without id", []any{map[string]any{"mediaPayload": tags}}, "", 400},
		{"the same id twice", []any{entry(ItemMort, tags), entry(ItemMort, tags)}, "", 400},
		{"an unknown id", []any{entry(ItemMort, tags), entry("li_nope", tags)}, "", 404},
	} {
		if r := call(t, s, "POST", "/api/items/batch/update", c.body, c.key); r.status != c.want {
			t.Errorf("%s: %d %q, want %d", c.name, r.status, r.body, c.want)
		}
	}
	if it, _ := s.Item(ItemMort); !equal(it.Book.Tags, []string{"discworld", "death"}) {
		t.Fatalf("a refused batch changed Mort's tags: %v", it.Book.Tags)
	}
	authors := len(s.Snapshot().Authors)
	r := call(t, s, "POST", "/api/items/batch/update", []any{
		entry(ItemMort, tags),
		entry(ItemSourcery, map[string]any{"tags": []string{"discworld"}}), // as it is: not counted
		entry(ItemNeverwhere, map[string]any{"metadata": map[string]any{"publisher": "", "series": []any{map[string]any{"name": "London Below", "sequence": "1"}}}}),
	}, "")
	if r.status != 200 {
		t.Fatalf("batch update: %d %s", r.status, r.body)
	}
	if m := r.json(t); m["success"] != true || m["updates"] != 2.0 {
		t.Errorf("answer %v, want success true and 2 updates", m)
	}
	mort, _ := s.Item(ItemMort)
	nw, _ := s.Item(ItemNeverwhere)
	if !equal(mort.Book.Tags, []string{"discworld", "death", "x"}) || nw.Book.Publisher != "" || len(nw.Book.Series) != 1 {
		t.Errorf("not applied: Mort %v, Neverwhere publisher %q series %v", mort.Book.Tags, nw.Book.Publisher, nw.Book.Series)
	}
	if n := len(s.Snapshot().Authors); n != authors {
		t.Errorf("authors %d, were %d: untouched unless sent", n, authors)
	}
	series := nw.Book.Series[0].SeriesID
	// Emptied by one entry and joined by name by the next: the series is
	// checked once every entry is applied, so it stays.
	call(t, s, "POST", "/api/items/batch/update", []any{
		entry(ItemNeverwhere, map[string]any{"metadata": map[string]any{"series": []any{}}}),
		entry(ItemGoodOmens, map[string]any{"metadata": map[string]any{"series": []any{map[string]any{"name": "London Below"}}}}),
	}, "")
	if g, _ := s.Item(ItemGoodOmens); len(g.Book.Series) != 1 || g.Book.Series[0].SeriesID != series {
		t.Errorf("Good Omens' series %v, want the one Neverwhere left (%s)", g.Book.Series, series)
	}
	call(t, s, "POST", "/api/items/batch/update", []any{entry(ItemGoodOmens, map[string]any{"metadata": map[string]any{"series": []any{}}})}, "")
	for _, se := range s.Snapshot().Series {
		if se.ID == series {
			t.Error("a series left without a book was kept")
		}
	}
}

// POST /api/items/batch/quickmatch: admins only, 400 without ids or when
// none is an item, "OK" at once; the call is recorded, and a match applied
// only where the providers are reachable.
func TestBatchQuickMatch(t *testing.T) {
	s := start(t)
	if r := call(t, s, "POST", "/api/items/batch/quickmatch", map[string]any{"libraryItemIds": []string{ItemMort}}, PartnerAPIKey); r.status != 403 {
		t.Errorf("not an admin: %d", r.status)
	}
	for _, body := range []any{map[string]any{}, map[string]any{"libraryItemIds": []string{}}, map[string]any{"libraryItemIds": []string{"li_nope"}}} {
		if r := call(t, s, "POST", "/api/items/batch/quickmatch", body, ""); r.status != 400 {
			t.Errorf("%v: %d", body, r.status)
		}
	}
	before, _ := s.Item(ItemMort)
	r := call(t, s, "POST", "/api/items/batch/quickmatch", map[string]any{"libraryItemIds": []string{ItemMort, "li_nope"},
		"options": map[string]any{"provider": "audible", "overrideDetails": true, "overrideCover": false}}, "")
	if r.status != 200 || r.body != "OK" {
		t.Fatalf("quick match: %d %q", r.status, r.body)
	}
	after, _ := s.Item(ItemMort)
	if after.Book.Description != before.Book.Description {
		t.Error("no provider is reachable, yet Mort changed")
	}
	m := s.BatchMatches()
	if len(m) != 1 || !equal(m[0].IDs, []string{ItemMort}) || m[0].Provider != "audible" || !m[0].OverrideDetails || m[0].OverrideCover {
		t.Errorf("recorded %+v", m)
	}
	s.SetProvidersReachable(true)
	call(t, s, "POST", "/api/items/batch/quickmatch", map[string]any{"libraryItemIds": []string{ItemMort}, "options": map[string]any{"overrideDetails": true}}, "")
	if after, _ := s.Item(ItemMort); after.Book.Description != "Matched by google." {
		t.Errorf("reachable provider: description %q", after.Book.Description)
	}
}

package standin

// Current-user routes: server/controllers/MeController.js, with the model
// logic of server/models/User.js and server/models/MediaProgress.js.

import (
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"time"
)

// GET /api/me: MeController.getCurrentUser.
func hMe(c *ctx) { c.sendJSON(userJSON(c.user)) }

// GET /api/me/progress: MeController.getAllMediaProgress.
func hMeAllProgress(c *ctx) {
	mps := []jobj{}
	for i := range c.user.MediaProgress {
		mps = append(mps, progressJSON(c.user.ID, &c.user.MediaProgress[i]))
	}
	c.sendJSON(jobj{{"mediaProgress", mps}})
}

// GET /api/me/bookmarks: MeController.getAllBookmarks.
func hMeBookmarks(c *ctx) {
	bms := []jobj{}
	for _, b := range c.user.Bookmarks {
		bms = append(bms, bookmarkJSON(b))
	}
	c.sendJSON(jobj{{"bookmarks", bms}})
}

// itemForMe loads req.params[key] as MeController does (getExpandedById):
// 404 when missing, 403 without access.
func (c *ctx) itemForMe(key string) *LibraryItem {
	li := c.s.item(c.params[key])
	if li == nil {
		c.sendStatus(http.StatusNotFound)
		return nil
	}
	if !c.user.canAccessItem(li) {
		c.sendStatus(http.StatusForbidden)
		return nil
	}
	return li
}

// GET /api/me/bookmarks/:libraryItemId: MeController.getBookmarksForLibraryItem.
func hMeBookmarksForItem(c *ctx) {
	li := c.itemForMe("libraryItemId")
	if li == nil {
		return
	}
	bms := []jobj{}
	for _, b := range c.user.Bookmarks {
		if b.LibraryItemID == li.ID {
			bms = append(bms, bookmarkJSON(b))
		}
	}
	c.sendJSON(jobj{{"bookmarks", bms}})
}

// userSessions is ApiRouter.getUserListeningSessionsHelper: newest update first.
func (c *ctx) userSessions() []*Session {
	var out []*Session
	for i := range c.s.data.Sessions {
		if c.s.data.Sessions[i].UserID == c.user.ID {
			out = append(out, &c.s.data.Sessions[i])
		}
	}
	stableSortBy(out, func(a, b *Session) int { return cmpInt64(b.UpdatedAt, a.UpdatedAt) })
	return out
}

// utilsToNumber is server/utils/index.js toNumber(val, fallback).
func utilsToNumber(v any, fallback float64) float64 {
	if jsIsNaN(v) || v == nil {
		return fallback
	}
	return toNumber(v)
}

func (c *ctx) queryValue(k string) any {
	if v, ok := c.query(k); ok {
		return v
	}
	return undefined
}

// GET /api/me/listening-sessions: MeController.getListeningSessions.
func hMeListeningSessions(c *ctx) {
	sessions := c.userSessions()
	perPage := utilsToNumber(c.queryValue("itemsPerPage"), 10)
	if perPage == 0 || math.IsNaN(perPage) {
		perPage = 10
	}
	pg := utilsToNumber(c.queryValue("page"), 0)
	start := pg * perPage
	s, e := jsSliceBounds(len(sessions), start, start+perPage)
	out := []jobj{}
	for _, se := range sessions[s:e] {
		out = append(out, c.s.sessionJSON(se))
	}
	c.sendJSON(jobj{
		{"total", len(sessions)},
		{"numPages", jsNum(math.Ceil(float64(len(sessions)) / perPage))},
		{"page", jsNum(pg)},
		{"itemsPerPage", jsNum(perPage)},
		{"sessions", out},
	})
}

// GET /api/me/listening-stats: ApiRouter.getUserListeningStatsHelpers.
func hMeListeningStats(c *ctx) {
	sessions := c.userSessions()
	today := c.s.now().Format("2006-01-02")
	items, days, dow := jobj{}, jobj{}, jobj{}
	total, todayTotal := 0.0, 0.0
	addTo := func(j *jobj, k string, v float64) {
		cur, _ := j.get(k).(float64)
		j.set(k, cur+v)
	}
	for _, se := range sessions {
		t := se.TimeListening
		if se.DayOfWeek != "" {
			addTo(&dow, se.DayOfWeek, t)
		}
		if se.Date != "" && t > 0 {
			addTo(&days, se.Date, t)
			if se.Date == today {
				todayTotal += t
			}
		}
		key := se.LibraryItemID
		if key == "" {
			key = "null"
		}
		if it, ok := items.get(key).(jobj); ok {
			it.set("timeListening", it.get("timeListening").(float64)+t)
			items.set(key, it)
		} else {
			items.set(key, jobj{{"id", ns(se.LibraryItemID)}, {"timeListening", t}, {"mediaMetadata", c.s.sessionMetadata(se)}})
		}
		total += t
	}
	recent := []jobj{}
	for _, se := range page(sessions, 10, 0) {
		recent = append(recent, c.s.sessionJSON(se))
	}
	c.sendJSON(jobj{{"totalTime", total}, {"items", items}, {"days", days}, {"dayOfWeek", dow}, {"today", todayTotal}, {"recentSessions", recent}})
}

// GET /api/me/progress/:id/remove-from-continue-listening: a GET that
// changes data (MeController.removeItemFromContinueListening); :id is the
// progress record id.
func hMeRemoveFromContinueListening(c *ctx) {
	for i := range c.user.MediaProgress {
		mp := &c.user.MediaProgress[i]
		if mp.ID != c.params["id"] {
			continue
		}
		if !mp.HideFromContinueListening {
			mp.HideFromContinueListening = true
			mp.LastUpdate = c.nowMs()
		}
		c.sendJSON(userJSON(c.user))
		return
	}
	c.sendStatus(http.StatusNotFound)
}

// GET /api/me/series/:id/remove-from-continue-listening:
// MeController.removeSeriesFromContinueListening. 404 when no series has the
// id (Series.checkExistsById: any library); an id already hidden stays once
// (User.addSeriesToHideFromContinueListening).
func hMeHideSeries(c *ctx) {
	if !c.seriesExists(c.params["id"]) {
		c.sendStatus(http.StatusNotFound)
		return
	}
	if !contains(c.user.SeriesHideFromContinueListening, c.params["id"]) {
		c.user.SeriesHideFromContinueListening = append(c.user.SeriesHideFromContinueListening, c.params["id"])
	}
	c.sendJSON(userJSON(c.user))
}

// GET /api/me/series/:id/readd-to-continue-listening:
// MeController.readdSeriesFromContinueListening
// (User.removeSeriesFromHideFromContinueListening).
func hMeReaddSeries(c *ctx) {
	if !c.seriesExists(c.params["id"]) {
		c.sendStatus(http.StatusNotFound)
		return
	}
	kept := []string{}
	for _, id := range c.user.SeriesHideFromContinueListening {
		if id != c.params["id"] {
			kept = append(kept, id)
		}
	}
	c.user.SeriesHideFromContinueListening = kept
	c.sendJSON(userJSON(c.user))
}

func (c *ctx) seriesExists(id string) bool {
	for i := range c.s.data.Series {
		if c.s.data.Series[i].ID == id {
			return true
		}
	}
	return false
}

// GET /api/me/progress/:id/:episodeId?: MeController.getMediaProgress.
func hMeProgress(c *ctx) {
	mp := c.oldProgress(c.params["id"], c.params["episodeId"])
	if mp == nil {
		c.sendStatus(http.StatusNotFound)
		return
	}
	c.sendJSON(progressJSON(c.user.ID, mp))
}

// PATCH /api/me/progress/:libraryItemId/:episodeId?:
// MeController.createUpdateMediaProgress. The answer is 200 "OK" (text).
func hMeProgressUpdate(c *ctx) {
	payload := map[string]any{}
	if m, ok := c.body.(map[string]any); ok {
		for k, v := range m {
			payload[k] = v
		}
	}
	payload["libraryItemId"] = c.params["libraryItemId"]
	if ep, ok := c.params["episodeId"]; ok {
		payload["episodeId"] = ep
	} else {
		delete(payload, "episodeId") // episodeId: undefined
	}
	if code, msg := c.createUpdateProgress(payload); code != 0 {
		c.send(code, msg)
		return
	}
	c.sendStatus(http.StatusOK)
}

// PATCH /api/me/progress/batch/update: MeController.batchUpdateMediaProgress.
func hMeProgressBatchUpdate(c *ctx) {
	arr, ok := c.body.([]any)
	if !ok || len(arr) == 0 {
		c.send(http.StatusBadRequest, "Missing request payload")
		return
	}
	for _, e := range arr {
		m, ok := e.(map[string]any)
		if !ok {
			if e == nil {
				c.crash() // destructuring null throws
			}
			m = map[string]any{}
		}
		_, _ = c.createUpdateProgress(m)
	}
	c.sendStatus(http.StatusOK)
}

// parseJSDate is new Date(v) for a JSON value, in ms; ok false for an
// invalid date.
func parseJSDate(v any) (int64, bool) {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, false
		}
		return int64(x), true
	case string:
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.000Z07:00", "2006-01-02", "2006-01-02 15:04:05", time.RFC1123, time.RFC1123Z} {
			if t, err := time.Parse(layout, x); err == nil {
				return t.UnixMilli(), true
			}
		}
	}
	return 0, false
}

// numberAttr is what Sequelize stores for a FLOAT attribute set from JSON:
// the number (null becomes 0 in the stand-in; non-numbers are ignored).
func numberAttr(v any, old float64) float64 {
	if v == nil {
		return 0
	}
	f := toNumber(v)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return old
	}
	return f
}

func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

// createUpdateProgress is User.createUpdateMediaProgressFromPayload with
// MediaProgress.applyProgressUpdate. It returns a status and message on
// error (0 on success).
func (c *ctx) createUpdateProgress(p map[string]any) (int, string) {
	get := func(k string) any {
		if v, ok := p[k]; ok {
			return v
		}
		return undefined
	}
	var mediaItemID, podcastID, episodeID string
	if truthy(get("episodeId")) {
		episodeID = toJSString(get("episodeId"))
		li, ep := c.s.episode(episodeID)
		if ep == nil {
			return http.StatusNotFound, "Episode not found"
		}
		mediaItemID, podcastID = ep.ID, li.Podcast.ID
	} else {
		id, _ := get("libraryItemId").(string)
		li := c.s.item(id)
		if li == nil {
			return http.StatusNotFound, "Library item not found"
		}
		if li.MediaType != "book" {
			return http.StatusBadRequest, "Library item is not a book"
		}
		mediaItemID = li.Book.ID
		episodeID = ""
	}
	now := c.nowMs()
	idx := -1
	for i := range c.user.MediaProgress {
		if c.user.MediaProgress[i].MediaItemID == mediaItemID {
			idx = i
			break
		}
	}
	if idx < 0 {
		num := func(k string) float64 {
			if isNullOrNaN(get(k)) {
				return 0
			}
			return finite(toNumber(get(k)))
		}
		mp := MediaProgress{
			ID:                        c.s.newID(),
			LibraryItemID:             toJSStringOrEmpty(get("libraryItemId")),
			EpisodeID:                 episodeID,
			MediaItemID:               mediaItemID,
			MediaItemType:             "book",
			PodcastID:                 podcastID,
			Duration:                  num("duration"),
			CurrentTime:               num("currentTime"),
			IsFinished:                truthy(get("isFinished")),
			HideFromContinueListening: truthy(get("hideFromContinueListening")),
			EbookProgress:             num("ebookProgress"),
			Progress:                  num("progress"),
			StartedAt:                 now,
			LastUpdate:                now,
		}
		if episodeID != "" {
			mp.MediaItemType = "podcastEpisode"
		}
		if loc := get("ebookLocation"); truthy(loc) {
			s := toJSString(loc)
			mp.EbookLocation = &s
		}
		if ca := get("createdAt"); truthy(ca) {
			if ms, ok := parseJSDate(ca); ok {
				mp.StartedAt = ms
			}
		}
		if mp.IsFinished {
			mp.FinishedAt = now
			if fa := get("finishedAt"); truthy(fa) {
				if ms, ok := parseJSDate(fa); ok {
					mp.FinishedAt = ms
				}
			}
			mp.Progress = 1
		}
		c.user.MediaProgress = append(c.user.MediaProgress, mp)
		return 0, ""
	}

	// MediaProgress.applyProgressUpdate
	mp := &c.user.MediaProgress[idx]
	before := *mp
	forced := false
	if !isUndefined(get("isFinished")) {
		fin := truthy(get("isFinished"))
		if fin && !mp.IsFinished {
			mp.FinishedAt = now
			if fa := get("finishedAt"); truthy(fa) {
				if ms, ok := parseJSDate(fa); ok {
					mp.FinishedAt = ms
				}
			}
			mp.Progress = 1
			forced = true
			delete(p, "finishedAt")
		} else if !fin && mp.IsFinished {
			mp.FinishedAt = 0
			mp.Progress = 0
			mp.CurrentTime = 0
			forced = true
			delete(p, "finishedAt")
			delete(p, "currentTime")
		}
	} else if pv := get("progress"); !jsIsNaN(pv) && !strictEqual(pv, mpProgressGetter(mp)) {
		mp.Progress = math.Min(1, math.Max(0, toNumber(pv)))
		forced = true
	}
	// this.set(progressPayload): the model attributes present in the payload.
	currentBefore := before.CurrentTime
	if v, ok := p["duration"]; ok {
		mp.Duration = numberAttr(v, mp.Duration)
	}
	if v, ok := p["currentTime"]; ok {
		mp.CurrentTime = numberAttr(v, mp.CurrentTime)
	}
	if v, ok := p["isFinished"]; ok {
		mp.IsFinished = truthy(v)
	}
	if v, ok := p["hideFromContinueListening"]; ok {
		mp.HideFromContinueListening = truthy(v)
	}
	if v, ok := p["ebookLocation"]; ok {
		if v == nil {
			mp.EbookLocation = nil
		} else {
			s := toJSString(v)
			mp.EbookLocation = &s
		}
	}
	if v, ok := p["ebookProgress"]; ok {
		mp.EbookProgress = numberAttr(v, mp.EbookProgress)
	}
	if v, ok := p["finishedAt"]; ok {
		if ms, ok := parseJSDate(v); ok {
			mp.FinishedAt = ms
		} else if v == nil {
			mp.FinishedAt = 0
		}
	}
	currentChanged := mp.CurrentTime != currentBefore
	if currentChanged && !truthy(get("hideFromContinueListening")) {
		mp.HideFromContinueListening = false
	}
	timeRemaining := mp.Duration - mp.CurrentTime
	should := false
	if mp.Duration != 0 {
		if pct := get("markAsFinishedPercentComplete"); !isNullOrNaN(pct) && toNumber(pct) > 0 {
			should = toNumber(pct)/100 < mpProgressGetter(mp).(float64)
		} else {
			threshold := 10.0
			if t := get("markAsFinishedTimeRemaining"); !isNullOrNaN(t) {
				threshold = toNumber(t)
			}
			should = timeRemaining < threshold
		}
	}
	if !mp.IsFinished && should {
		mp.IsFinished = true
		if mp.FinishedAt == 0 {
			mp.FinishedAt = now
		}
		mp.Progress = 1
		forced = true
	} else if mp.IsFinished && currentChanged && !should {
		mp.IsFinished = false
		mp.FinishedAt = 0
	}
	after := *mp
	after.LastUpdate = before.LastUpdate
	if forced || !sameProgress(before, after) {
		mp.LastUpdate = now
	}
	if lu := get("lastUpdate"); truthy(lu) {
		if ms, ok := parseJSDate(lu); ok {
			mp.LastUpdate = ms
		}
	}
	return 0, ""
}

func toJSStringOrEmpty(v any) string {
	if v == nil || isUndefined(v) {
		return ""
	}
	return toJSString(v)
}

// mpProgressGetter is the MediaProgress.progress getter: currentTime/duration
// clamped to 0..1 (0 without a duration).
func mpProgressGetter(mp *MediaProgress) any {
	if mp.Duration == 0 {
		return 0.0
	}
	return math.Max(0, math.Min(mp.CurrentTime/mp.Duration, 1))
}

func sameProgress(a, b MediaProgress) bool {
	as, bs := "", ""
	if a.EbookLocation != nil {
		as = "\x00" + *a.EbookLocation
	}
	if b.EbookLocation != nil {
		bs = "\x00" + *b.EbookLocation
	}
	a.EbookLocation, b.EbookLocation = nil, nil
	return a == b && as == bs
}

// DELETE /api/me/progress/:id: MeController.removeMediaProgress. :id is the
// progress record's id; a library item id is 404.
func hMeProgressDelete(c *ctx) {
	for i := range c.user.MediaProgress {
		if c.user.MediaProgress[i].ID == c.params["id"] {
			c.user.MediaProgress = append(c.user.MediaProgress[:i], c.user.MediaProgress[i+1:]...)
			c.sendStatus(http.StatusOK)
			return
		}
	}
	c.sendStatus(http.StatusNotFound)
}

// bookmarkInput validates {time, title} as createBookmark/updateBookmark do.
func (c *ctx) bookmarkInput() (any, string, bool) {
	t := field(c.body, "time")
	if isNullOrNaN(t) {
		c.send(http.StatusBadRequest, "Invalid time")
		return nil, "", false
	}
	title, ok := field(c.body, "title").(string)
	if !ok || title == "" {
		c.send(http.StatusBadRequest, "Invalid title")
		return nil, "", false
	}
	return t, title, true
}

// findBookmark is User.findBookmark: bm.time == time, loose equality, so a
// bookmark stored with time "7.5" is found by 7.5.
func (c *ctx) findBookmark(itemID string, t any) int {
	for i, bm := range c.user.Bookmarks {
		if bm.LibraryItemID == itemID && looseEqual(bm.Time, t) {
			return i
		}
	}
	return -1
}

// POST /api/me/item/:id/bookmark: MeController.createBookmark and
// User.createBookmark. A bookmark already at that time is not an error: it is
// returned with its title replaced. time is stored as sent (a string stays a
// string).
func hBookmarkCreate(c *ctx) {
	if c.itemForMe("id") == nil {
		return
	}
	t, title, ok := c.bookmarkInput()
	if !ok {
		return
	}
	id := c.params["id"]
	if i := c.findBookmark(id, t); i >= 0 {
		c.user.Bookmarks[i].Title = title
		c.sendJSON(bookmarkJSON(c.user.Bookmarks[i]))
		return
	}
	bm := Bookmark{LibraryItemID: id, Time: t, Title: title, CreatedAt: c.nowMs()}
	c.user.Bookmarks = append(c.user.Bookmarks, bm)
	c.sendJSON(bookmarkJSON(bm))
}

// PATCH /api/me/item/:id/bookmark: MeController.updateBookmark (404 when no
// bookmark is at that time).
func hBookmarkUpdate(c *ctx) {
	if c.itemForMe("id") == nil {
		return
	}
	t, title, ok := c.bookmarkInput()
	if !ok {
		return
	}
	i := c.findBookmark(c.params["id"], t)
	if i < 0 {
		c.sendStatus(http.StatusNotFound)
		return
	}
	c.user.Bookmarks[i].Title = title
	c.sendJSON(bookmarkJSON(c.user.Bookmarks[i]))
}

// DELETE /api/me/item/:id/bookmark/:time: MeController.removeBookmark and
// User.removeBookmark. The bookmark is found with ==, but removed with !==:
// a bookmark whose time was stored as a string is found, "removed" (200 OK)
// and stays.
func hBookmarkDelete(c *ctx) {
	if c.itemForMe("id") == nil {
		return
	}
	t := stringToNumber(c.params["time"])
	if math.IsNaN(t) {
		c.send(http.StatusBadRequest, "Invalid time")
		return
	}
	id := c.params["id"]
	if c.findBookmark(id, t) < 0 {
		c.sendStatus(http.StatusNotFound)
		return
	}
	kept := c.user.Bookmarks[:0:0]
	for _, bm := range c.user.Bookmarks {
		if bm.LibraryItemID != id || !strictEqual(bm.Time, t) {
			kept = append(kept, bm)
		}
	}
	c.user.Bookmarks = kept
	c.sendStatus(http.StatusOK)
}

// GET /api/me/items-in-progress: MeController.getAllLibraryItemsInProgress.
func hMeItemsInProgress(c *ctx) {
	limit := 25.0
	if v := c.queryValue("limit"); !jsIsNaN(v) {
		if n := toNumber(v); n != 0 {
			limit = n
		}
	}
	type entry struct {
		j    jobj
		last int64
	}
	var entries []entry
	for i := range c.user.MediaProgress {
		mp := &c.user.MediaProgress[i]
		if mp.IsFinished || !(mp.CurrentTime > 0 || mp.EbookProgress > 0) {
			continue
		}
		li := c.s.item(mp.LibraryItemID)
		if li == nil {
			continue
		}
		if mp.EpisodeID != "" && li.Podcast != nil {
			for _, ep := range li.Podcast.Episodes {
				if ep.ID == mp.EpisodeID {
					j := c.s.itemMinified(li, viewOpts{})
					j.set("recentEpisode", episodeOld(li.ID, li.Podcast.ID, ep))
					j.set("progressLastUpdate", mp.LastUpdate)
					entries = append(entries, entry{j, mp.LastUpdate})
				}
			}
		} else if mp.EpisodeID == "" {
			j := c.s.itemMinified(li, viewOpts{})
			j.set("progressLastUpdate", mp.LastUpdate)
			entries = append(entries, entry{j, mp.LastUpdate})
		}
	}
	stableSortBy(entries, func(a, b entry) int { return cmpInt64(b.last, a.last) })
	s, e := jsSliceBounds(len(entries), 0, limit)
	out := []jobj{}
	for _, en := range entries[s:e] {
		out = append(out, en.j)
	}
	c.sendJSON(jobj{{"libraryItems", out}})
}

// GET /api/me/stats/year/:year: MeController.getStatsForYear and
// server/utils/queries/userStats.js getStatsForYear.
func hMeYearStats(c *ctx) {
	year := stringToNumber(c.params["year"])
	if math.IsNaN(year) || year < 2000 || year > 9999 {
		c.send(http.StatusBadRequest, "Invalid year")
		return
	}
	y := int(year)
	// createdAt >= 'YYYY-01-01' AND createdAt < 'YYYY+1-01-01' (UTC).
	inYear := func(ms int64) bool { return ms != 0 && time.UnixMilli(ms).UTC().Year() == y }
	var sessions []*Session
	for i := range c.s.data.Sessions {
		se := &c.s.data.Sessions[i]
		if se.UserID == c.user.ID && inYear(se.StartedAt) {
			sessions = append(sessions, se)
		}
	}
	numFinished := 0
	var longest jobj
	var longestDur float64
	for i := range c.user.MediaProgress {
		mp := &c.user.MediaProgress[i]
		if mp.MediaItemType != "book" || !inYear(mp.FinishedAt) {
			continue
		}
		li := c.s.itemByBookID(mp.MediaItemID)
		if li == nil {
			continue
		}
		numFinished++
		if mp.Duration != 0 && (longest == nil || longestDur == 0 || mp.Duration > longestDur) {
			longestDur = mp.Duration
			longest = jobj{{"id", li.Book.ID}, {"title", li.Book.Title}, {"duration", math.Round(mp.Duration)},
				{"finishedAt", time.UnixMilli(mp.FinishedAt).UTC().Format("2006-01-02T15:04:05.000Z")}}
		}
	}
	var total, bookTotal, podcastTotal float64
	authorMap, genreMap, narratorMap, monthMap, bookMap := jobj{}, jobj{}, jobj{}, jobj{}, jobj{}
	add := func(m *jobj, k string, v float64) {
		cur, _ := m.get(k).(float64)
		m.set(k, cur+v)
	}
	for _, se := range sessions {
		t := se.TimeListening
		add(&monthMap, jsNumberToString(float64(time.UnixMilli(se.StartedAt).UTC().Month()-1)), t)
		total += t
		if se.EpisodeID != "" {
			podcastTotal += t
			continue
		}
		bookTotal += t
		if se.DisplayTitle != "" {
			add(&bookMap, se.DisplayTitle, t)
		}
		md := sessionMetadataValues(c.s.sessionMetadata(se))
		for _, a := range md.authors {
			add(&authorMap, a, t)
		}
		for _, n := range md.narrators {
			add(&narratorMap, n, t)
		}
		for _, g := range md.genres {
			lg := strings.ToLower(g)
			if g != "" && !strings.Contains(lg, "audiobook") && !strings.Contains(lg, "audio book") {
				add(&genreMap, g, t)
			}
		}
	}
	top := func(m jobj, key string) []jobj {
		rows := append(jobj(nil), m...)
		stableSortBy(rows, func(a, b kv) int { return cmpFloat(math.Round(b.v.(float64)), math.Round(a.v.(float64))) })
		out := []jobj{}
		for _, r := range page(rows, 3, 0) {
			out = append(out, jobj{{key, r.k}, {"time", math.Round(r.v.(float64))}})
		}
		return out
	}
	var narrator, month any
	var narratorTime, monthTime float64
	for _, e := range narratorMap {
		if v := e.v.(float64); narrator == nil || narratorTime == 0 || v > narratorTime {
			narratorTime = math.Round(v)
			narrator = jobj{{"time", narratorTime}, {"name", e.k}}
		}
	}
	// for...in visits integer-like keys (the months) in ascending order.
	for m := 0; m < 12; m++ {
		v, ok := monthMap.get(jsNumberToString(float64(m))).(float64)
		if !ok {
			continue
		}
		if month == nil || monthTime == 0 || v > monthTime {
			monthTime = math.Round(v)
			month = jobj{{"month", m}, {"time", monthTime}}
		}
	}
	var longestAny any
	if longest != nil {
		longestAny = longest
	}
	c.sendJSON(jobj{
		{"totalListeningSessions", len(sessions)},
		{"totalListeningTime", math.Round(total)},
		{"totalBookListeningTime", math.Round(bookTotal)},
		{"totalPodcastListeningTime", math.Round(podcastTotal)},
		{"topAuthors", top(authorMap, "name")},
		{"topGenres", top(genreMap, "genre")},
		{"mostListenedNarrator", narrator},
		{"mostListenedMonth", month},
		{"numBooksFinished", numFinished},
		{"numBooksListened", len(bookMap)},
		{"longestAudiobookFinished", longestAny},
		// Upstream lists only items whose cover file exists on disk.
		{"booksWithCovers", []string{}},
		{"finishedBooksWithCovers", []string{}},
	})
}

type mdValues struct{ authors, narrators, genres []string }

// sessionMetadataValues reads authors[].name, narrators and genres from a
// session's mediaMetadata.
func sessionMetadataValues(v any) mdValues {
	var out mdValues
	b, err := marshalJS(v)
	if err != nil {
		return out
	}
	var m struct {
		Authors   []struct{ Name string } `json:"authors"`
		Narrators []string                `json:"narrators"`
		Genres    []string                `json:"genres"`
	}
	if json.Unmarshal(b, &m) != nil {
		return out
	}
	for _, a := range m.Authors {
		out.authors = append(out.authors, a.Name)
	}
	out.narrators, out.genres = m.Narrators, m.Genres
	return out
}

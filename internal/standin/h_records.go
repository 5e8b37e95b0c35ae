package standin

import (
	"net/http"
	"strings"
)

// PATCH /api/series/:id: SeriesController.middleware and update. 404 for
// an unknown series or one none of whose books the user may access, 403
// without update; name and description are read only when strings (null
// is ignored), 400 "No valid fields to update" when neither is. No merge:
// a name another series has is taken as it is. Answers the series;
// updatedAt moves only when a value changed.
func hSeriesUpdate(c *ctx) {
	se := c.s.seriesByID(c.params["id"])
	if se == nil || len(c.booksOfSeries(se)) == 0 {
		c.sendStatus(http.StatusNotFound)
		return
	}
	if !c.user.canUpdate() {
		c.sendStatus(http.StatusForbidden)
		return
	}
	body, _ := c.body.(map[string]any)
	changed, any := false, false
	for _, k := range []struct {
		key string
		p   *string
	}{{"name", &se.Name}, {"description", &se.Description}} {
		v, isStr := body[k.key].(string)
		if !isStr {
			continue
		}
		any = true
		if *k.p != v {
			*k.p = v
			changed = true
		}
	}
	if !any {
		c.send(http.StatusBadRequest, "No valid fields to update")
		return
	}
	if changed {
		se.UpdatedAt = c.nowMs()
	}
	c.sendJSON(seriesJSON(se))
}

// POST /api/authors/:id/image: AuthorController.middleware (404, 403
// without update) and uploadImage (403 without upload; 400 without a url
// or with one that is not http: or https:). The stand-in downloads
// nothing: a url whose host is "unreachable.invalid" fails as a download
// does (400 with its reason); any other becomes the image at
// <metadata>/authors/<id>.jpg (.png when the url ends in png), over the
// old one. Answers {author}.
func hAuthorImage(c *ctx) {
	a := c.s.author(c.params["id"])
	if a == nil {
		c.sendStatus(http.StatusNotFound)
		return
	}
	if !c.user.canUpdate() || !c.user.Permissions.Upload || !c.user.IsActive {
		c.sendStatus(http.StatusForbidden)
		return
	}
	body, _ := c.body.(map[string]any)
	url, _ := body["url"].(string)
	if url == "" {
		c.send(http.StatusBadRequest, "Invalid request payload. 'url' not in request body")
		return
	}
	if !strings.HasPrefix(url, "http:") && !strings.HasPrefix(url, "https:") {
		c.send(http.StatusBadRequest, `Invalid request payload. Invalid url "`+url+`"`)
		return
	}
	if strings.Contains(url, "://unreachable.invalid") {
		c.send(http.StatusBadRequest, "Failed to download image from url")
		return
	}
	ext := "jpg" // AuthorFinder.saveAuthorImage: png only when the url ends so
	if parts := strings.Split(strings.ToLower(url), "."); parts[len(parts)-1] == "png" {
		ext = "png"
	}
	a.ImagePath = "/metadata/authors/" + a.ID + "." + ext
	a.UpdatedAt = c.nowMs()
	c.sendJSON(jobj{{"author", authorJSON(a)}})
}

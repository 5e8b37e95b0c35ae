package absdata_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/compact"
)

// Unmarshal (segmentio/encoding/json) decodes the stand-in's answers into
// the projections' types exactly as encoding/json does, and fails where it
// fails.
func TestUnmarshalAgreesWithEncodingJSON(t *testing.T) {
	sd := standin.New(standin.Options{Now: standin.SampleNow})
	get := func(path string) []byte {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("Authorization", "Bearer "+standin.DefaultAPIKey)
		w := httptest.NewRecorder()
		sd.Handler().ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, w.Code, w.Body)
		}
		return w.Body.Bytes()
	}
	type page struct {
		Results []absdata.Item `json:"results"`
		Total   *int           `json:"total"`
	}
	same := func(what string, body []byte, std, seg any) {
		t.Helper()
		errStd, errSeg := json.Unmarshal(body, std), absdata.Unmarshal(body, seg)
		if (errStd == nil) != (errSeg == nil) {
			t.Errorf("%s: encoding/json: %v; unmarshal: %v", what, errStd, errSeg)
			return
		}
		if errStd == nil && !reflect.DeepEqual(std, seg) {
			t.Errorf("%s: decoded differently:\nencoding/json %+v\nunmarshal     %+v", what, std, seg)
		}
	}
	for _, it := range sd.Snapshot().Items {
		body := get("/api/items/" + it.ID + "?expanded=1&include=progress")
		same("item "+it.ID, body, &absdata.Item{}, &absdata.Item{})
		var a, b absdata.Item
		_ = json.Unmarshal(body, &a)
		_ = absdata.Unmarshal(body, &b)
		if !reflect.DeepEqual(compact.Detail(&a), compact.Detail(&b)) {
			t.Errorf("item %s: projections differ", it.ID)
		}
	}
	for _, lib := range []string{standin.LibraryBooksID, standin.LibraryPodcastsID} {
		same("page of "+lib, get("/api/libraries/"+lib+"/items?limit=50"), &page{}, &page{})
		same("series page of "+lib, get("/api/libraries/"+lib+"/items?limit=50&filter=series."+
			"MmE1Yjc1OWItZDczZS00YjZmLWI1ZTItYjZhMmEyYWJjMjFh"), &page{}, &page{})
	}
	same("me", get("/api/me"), &absdata.User{}, &absdata.User{})

	// Answers that are not what a projection expects.
	for _, body := range []string{
		``, `null`, `[]`, `"x"`, `{`, `{"id":1}`, `{"media":{"audioFiles":{}}}`, `{"media":{"audioFiles":[1]}}`,
		`{"media":{"metadata":{"series":{"id":"s","sequence":2}}}}`, `{"media":{"metadata":{"publishedYear":1990}}}`,
		`{"media":{"metadata":{"publishedYear":true}}}`, `{"ID":"upper","MEDIATYPE":"book"}`, `{"id":"a"} trailing`,
		"{\"id\":\"\xff\xfe\"}", `{"id":"\ud800"}`, `<!doctype html><html></html>`,
	} {
		same("body "+body, []byte(body), &absdata.Item{}, &absdata.Item{})
	}
}

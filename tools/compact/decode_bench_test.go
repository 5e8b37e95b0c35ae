package compact

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
)

// BenchmarkDecodePage is what a list's compact form costs to decode: a
// page of the sample library's books and of its podcasts.
func BenchmarkDecodePage(b *testing.B) {
	sd := standin.New(standin.Options{Now: standin.SampleNow})
	for _, lib := range []string{standin.LibraryBooksID, standin.LibraryPodcastsID} {
		req := httptest.NewRequest(http.MethodGet, "/api/libraries/"+lib+"/items?limit=50", nil)
		req.Header.Set("Authorization", "Bearer "+standin.DefaultAPIKey)
		w := httptest.NewRecorder()
		sd.Handler().ServeHTTP(w, req)
		body := w.Body.Bytes()
		b.Run(lib[:8], func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				var v struct {
					Results []absdata.Item `json:"results"`
				}
				if err := absdata.Unmarshal(body, &v); err != nil {
					b.Fatal(err)
				}
				for i := range v.Results {
					_ = Brief(&v.Results[i], nil)
				}
			}
		})
	}
}

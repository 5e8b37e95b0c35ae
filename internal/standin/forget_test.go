package standin

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestForgetRequests(t *testing.T) {
	s := New(Options{}).ForgetRequests()
	for range 3 {
		req := httptest.NewRequest(http.MethodGet, "/api/items/"+ItemMort, nil)
		req.Header.Set("Authorization", "Bearer "+DefaultAPIKey)
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			t.Fatalf("GET item: %d %s", w.Code, w.Body)
		}
	}
	if n := len(s.Requests()); n != 0 {
		t.Fatalf("%d requests kept, want none", n)
	}
	// Without it the log is kept, as before.
	k := New(Options{})
	k.Handler().ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/ping", nil))
	if n := len(k.Requests()); n != 1 {
		t.Fatalf("%d requests kept, want 1", n)
	}
}

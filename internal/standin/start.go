package standin

import "testing"

// Start makes a server and serves it with httptest.NewServer until the test
// ends.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	s := New(opts)
	s.startTest()
	t.Cleanup(s.Close)
	return s
}

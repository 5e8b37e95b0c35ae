package standin

// TB is the part of testing.TB that Start needs; the stand-in does not
// import testing, so that the binary, which links it for --demo, does not
// carry the test framework.
type TB interface {
	Helper()
	Cleanup(func())
	Fatalf(format string, args ...any)
}

// Start makes a server and serves it on a free loopback port until the test
// ends.
func Start(t TB, opts Options) *Server {
	t.Helper()
	s := New(opts)
	if _, err := s.Listen("127.0.0.1:0"); err != nil {
		t.Fatalf("%v", err)
	}
	s.lnMu.Lock()
	s.abrupt = true
	s.lnMu.Unlock()
	t.Cleanup(s.Close)
	return s
}

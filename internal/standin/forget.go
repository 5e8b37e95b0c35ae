package standin

import "net/http"

// ForgetRequests makes s keep no request log: each request is forgotten
// once it is answered, so that a server that runs for long (--demo) does not
// grow with every call (the log holds about 2 KiB a request). Call it before
// Start or Listen; Requests and Mutations then return nothing. It returns s.
func (s *Server) ForgetRequests() *Server {
	h := s.handler
	s.handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		s.ResetRequests()
	})
	return s
}

// Package reliability holds the tests behind SECURITY.md: what the server
// does when Audiobookshelf misbehaves (refused connections, silence, slow
// headers, 5xx, HTML, truncated and oversized bodies, redirects, untrusted
// certificates), which requests it retries, how it holds many concurrent
// sessions over streamable HTTP, what it does with hostile arguments and
// hostile metadata, and where the API key can never show up.
//
// Several tests count what they try (faults, calls, bad inputs) and check
// that SECURITY.md states the same figures, so the document cannot drift
// from the tests. It has no non-test code.
package reliability

// Package spec holds the OpenAPI 3.0 description of the Audiobookshelf routes
// that the tools call (audiobookshelf.yaml, written by hand from the
// Audiobookshelf 2.36.0 server source) and the oapi-codegen configuration
// (oapi-codegen.yaml, with the overlay oapi-codegen-overlay.yaml that it
// applies to its own copy) that turns it into the client in gen/abs.
//
// The Go code here is only the test that keeps the description valid and
// complete: every operation the tools use, with its controller and its
// measured quirks in the description.
package spec

// Package abs is the typed HTTP client for the Audiobookshelf API, generated
// from spec/audiobookshelf.yaml by oapi-codegen (configuration in
// spec/oapi-codegen.yaml). It holds what the tools send: one method per
// operation, answering the raw *http.Response, with the parameter and
// request-body types. No answer is decoded into a generated type: the tools
// decode every answer themselves (spec/oapi-codegen.yaml says how the rest
// is left out).
//
// abs.gen.go is generated: do not edit it by hand. Change the spec and run
// `go generate ./gen/abs` (or `make generate`) instead.
package abs

//go:generate go tool oapi-codegen -config ../../spec/oapi-codegen.yaml ../../spec/audiobookshelf.yaml

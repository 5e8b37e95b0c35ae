// Package abs is the typed HTTP client for the Audiobookshelf API, generated
// from spec/audiobookshelf.yaml by oapi-codegen (configuration in
// spec/oapi-codegen.yaml).
//
// abs.gen.go is generated: do not edit it by hand. Change the spec and run
// `go generate ./gen/abs` (or `make generate`) instead.
package abs

//go:generate go tool oapi-codegen -config ../../spec/oapi-codegen.yaml ../../spec/audiobookshelf.yaml

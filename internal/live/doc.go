// Package live holds the contract run against a real Audiobookshelf
// (`make test-live`): every tool of the built binary, driven over stdio by a
// go-sdk client, with the binary's requests going through a recording
// reverse proxy that validates each answer against spec/audiobookshelf.yaml
// (internal/contract). It makes its own "contract-" fixtures and removes
// them, so the library ends as it was found. Only the test file has code.
package live

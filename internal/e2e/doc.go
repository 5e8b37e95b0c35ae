// Package e2e holds end-to-end tests of the assembled server: every tool
// through a real go-sdk client over an in-memory transport, against the
// Audiobookshelf stand-in over real HTTP, checking both what the tool
// answers and what the stand-in received. It has no non-test code.
package e2e

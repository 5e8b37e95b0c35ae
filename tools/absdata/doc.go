// Package absdata decodes what Audiobookshelf answers: one Go type for
// each object the tools read (a library item with its media and metadata,
// an episode, series and author references, a series, progress, a
// bookmark, a user, a library, a collection, a playlist, a session), and
// every toolset decodes that object with it. docs/architecture.md has the
// table of objects and says why they are decoded here, by hand, and not
// into gen/abs's models (which are not generated).
package absdata

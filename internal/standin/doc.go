// Package standin is an in-process stand-in for an Audiobookshelf 2.36.0
// server: real HTTP on a real loopback listener, real mutable state behind a
// mutex, the JSON shapes and plain-text errors the real server sends, and a
// record of every request it received.
//
// It exists so that tests (and the --demo mode) can exercise the MCP tools
// against something that behaves like Audiobookshelf, including the traps a
// user falls into on a real server. Every behaviour is written from the
// Audiobookshelf source (github.com/advplyr/audiobookshelf, tag v2.36.0:
// server/controllers/, server/models/, server/routers/ApiRouter.js) and,
// where the source does not settle it, measured on a real 2.36.0 server; the
// comment next to each one names the upstream file and function it
// reproduces. No upstream code is copied: the Go
// here re-implements the behaviour.
//
// What belongs here: the route table, the state (Data and its types), the JSON
// renderers mirroring the upstream models' toOldJSON* methods, the sample
// library, and helpers that reproduce JavaScript semantics where the upstream
// behaviour depends on them (loose equality, Number(), isNaN, base64 decoding
// as Node does it, SQLite LIKE/NOCASE).
//
// Use:
//
//	s := standin.Start(t, standin.Options{Now: standin.SampleNow})
//	// s.URL(), bearer standin.DefaultAPIKey; s.Requests(), s.Mutations();
//	// s.Collection(standin.CollectionDiscworldInOrder), s.Progress(...), ...
//
// The sample library (SampleData) has fixed ids (sample_ids.go). Its dates
// are fixed around SampleNow; with the default wall clock the "last 60 days"
// shelves are empty, as on a real server with an old library.
//
// The sample is a household. The default key (Options.APIKey) is
// Data.Users[0], "root", with every permission; PartnerAPIKey is "partner",
// who may update but not delete and has their own progress, bookmarks,
// playlist and listening sessions; ListenerAPIKey is "listener", a plain user
// who may neither update nor delete and owns one playlist. Collections are
// the server's, the same for everyone, as upstream. Progress, bookmarks,
// playlists, listening sessions and stats, and GET /api/me follow the user
// the request's key authenticates. SetCanDelete, SetCanUpdate and
// SetPermissions change the first user's permissions, SetUserPermissions
// anyone's; AddUser adds a user with its own key. Every recorded Request
// carries the credential it presented and the user it authenticated, so a
// test can tell which key made each request (RequestsBy).
//
// Known simplifications (none of them changes a measured behaviour):
//   - Anything random upstream (Discover shelf, sort=random) is deterministic:
//     data order.
//   - Sub-series collapsing (collapseseries=1 together with a series filter)
//     returns the series' books without collapsing sub-series.
//   - Cover files do not exist, so year stats never list books with covers.
//   - An unhandled exception that would kill the Node process is simulated by
//     hijacking the connection and closing it without a response; the
//     stand-in itself keeps serving (Crashes counts them). Without a
//     Hijacker (an httptest.ResponseRecorder) it panics with
//     http.ErrAbortHandler. State changed before the throw stays changed, as
//     it would in the database.
//   - Media progress attributes set from a request are stored as numbers
//     (null as 0); upstream keeps whatever JSON value was sent in memory.
//   - No RSS feeds, shares, API-key routes or file routes. A cover is
//     drawn (noise, JPEG) instead of read from a file; metadata providers
//     are not asked (a fixed result, SetMatchResult); a scan applies what
//     a test put on disk with ScanAdds, ScanMisses and ScanUpdates
//     (h_upkeep.go); description HTML is not sanitized.
package standin

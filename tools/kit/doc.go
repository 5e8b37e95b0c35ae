// Package kit is what talks to Audiobookshelf, one concern to a file: what
// a call depends on (deps.go: the client, the key, the budget), requests
// to Audiobookshelf and how they fail (request.go, retry.go, redact.go,
// versions.go), tool errors and the one edge where they become results
// (errors.go), the text safety of what answers and errors carry (text.go),
// the plans of write tools and what a write's answer must be (plan.go,
// writes.go), who asks and what they may do and see (identity.go,
// permit.go, scope.go), requests made at the same time (concurrent.go),
// one write at a time per item (itemlock.go), the reads several toolsets
// make (reads.go), progress notifications (notify.go) and --check
// (check.go).
//
// How an answer is made and held to the budget is tools/result; how names
// become ids and targets are named is tools/naming. Both import kit; kit
// imports neither. It holds no tool: each tool is in its toolset's
// package, tools/TOOLSET.
package kit

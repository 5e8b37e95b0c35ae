// Package kit is the machinery every toolset is built with, one concern to
// a file: what a call depends on (deps.go: the client, the key, the
// budget), requests to Audiobookshelf and how they fail (request.go,
// retry.go, redact.go, versions.go), tool errors and the one edge where
// they become results (errors.go), results and the text safety of what
// they carry (results.go, text.go), paging and the result budget
// (paging.go, budget.go), the plans and put-backs of write tools and what
// a write's answer must be (plan.go, putback.go, writes.go), ids as the
// tools check and name them (ids.go), requests made at the same time
// (concurrent.go), the reads several toolsets make (reads.go), per-person
// keys (identity.go), progress notifications (notify.go) and --check
// (check.go).
//
// It holds no tool: each tool is in its toolset's package, tools/TOOLSET.
package kit

// Package naming is how titles and names become ids and how targets are
// named: the one resolver of tool arguments, prompt arguments and
// completions (resolve.go, names.go: Resolve and what each name matched),
// how names are compared (fold.go), completions (complete.go), a prompt's
// arguments (prompt.go) and targets named by their quoted titles beside
// their ids (named.go). It imports kit, never result.
package naming

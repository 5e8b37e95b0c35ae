// Package result is how a tool's answer is made and held to the result
// budget: text and JSON results (results.go), the budget and the refusal
// of an answer over it (budget.go), the one paging helper, Page, and the
// fitting of lists (paging.go), ids in sentences and sets of ids (ids.go),
// and the put-back a write's answer carries (putback.go). It imports kit
// (the Deps a call carries, its errors and text safety), never naming.
package result

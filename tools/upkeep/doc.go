// Package upkeep is the upkeep toolset of tools.yaml: scanning a library (scan.go),
// editing and matching a book's metadata (book.go, metadata.go, match.go),
// seeing or removing a cover (cover.go).
//
// One exported function per tool, named after it (ListLibraries is
// list_libraries; a guarded tool's is its plan, PlanDeleteCollection for
// delete_collection, see kit.Plan): gen/registry, generated from
// tools.yaml, calls it after decoding the arguments. A tool's facts
// (annotations, guard, permission, request count, toolset) are in
// tools.yaml alone; what is shared by toolsets is in tools/kit (machinery),
// tools/absdata (decoders) and tools/compact (projections).
package upkeep

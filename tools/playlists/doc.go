// Package playlists is the playlists toolset of tools.yaml: the user's
// playlists of books or podcast episodes, with their order.
//
// One exported function per tool, named after it (ListLibraries is
// list_libraries; a guarded tool's is its plan, PlanDeleteCollection for
// delete_collection, see kit.Plan): gen/registry, generated from
// tools.yaml, calls it after decoding the arguments. A tool's facts
// (annotations, guard, permission, request count, toolset) are in
// tools.yaml alone; what is shared by toolsets is in tools/kit (machinery),
// tools/absdata (decoders) and tools/compact (projections).
package playlists

// Package me is the me toolset of tools.yaml: the user of the key, what
// they are listening to, their listening stats and sessions.
//
// One exported function per tool, named after it (ListLibraries is
// list_libraries; a guarded tool's is its plan, PlanDeleteCollection for
// delete_collection, see kit.Plan): gen/registry, generated from
// tools.yaml, calls it after decoding the arguments. A tool's facts
// (annotations, guard, permission, request count, toolset) are in
// tools.yaml alone; what is shared by toolsets is in tools/kit (machinery),
// tools/absdata (decoders) and tools/compact (projections).
package me

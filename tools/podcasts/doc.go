// Package podcasts is the podcasts toolset of tools.yaml: searching
// (iTunes, through Audiobookshelf), reading feeds as Audiobookshelf parses
// them (feed.go), subscribing (subscribe.go, folder.go), finding and
// queueing the episodes a feed has that the library lacks (downloads.go),
// and deleting an episode or a podcast (delete.go).
//
// One exported function per tool, named after it (ListLibraries is
// list_libraries; a guarded tool's is its plan, PlanDeleteCollection for
// delete_collection, see kit.Plan): gen/registry, generated from
// tools.yaml, calls it after decoding the arguments. A tool's facts
// (annotations, guard, permission, request count, toolset) are in
// tools.yaml alone; what is shared by toolsets is in tools/kit (machinery),
// tools/absdata (decoders) and tools/compact (projections).
package podcasts

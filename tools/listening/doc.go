// Package listening is the listening toolset of tools.yaml: what a listener asks, answered from
// Audiobookshelf's own routes in one call each. What to listen to next
// (next.go), where the person is in each series (series.go), their
// listening by day, week or month (period.go), and the Continue Series
// shelf (shelf.go); and the prompts that ask for them (prompts.go).
//
// One exported function per tool, named after it (WhatNext is what_next):
// gen/registry, generated from tools.yaml, calls it after decoding the
// arguments; one per prompt of tools.yaml, Prompt and its name
// (PromptWhereAmIInASeries), which writes the prompt's text. A tool's facts (annotations, request count, toolset) are in
// tools.yaml alone; what is shared by toolsets is in tools/kit (machinery),
// tools/absdata (decoders) and tools/compact (projections).
package listening

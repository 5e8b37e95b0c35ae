// Package compact holds the compact projections that more than one
// toolset shows: what a model needs to browse and answer questions, in a
// fraction of Audiobookshelf's JSON. Field names are short and stable; ids
// are always kept; detail "full" returns the raw object instead. An item
// in a list (ItemBrief) or alone (ItemDetail), an episode, a progress
// record, and the renderings of seconds, percentages and dates are here; a
// projection that one toolset alone shows is in that toolset's package.
package compact

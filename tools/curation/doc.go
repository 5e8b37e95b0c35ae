// Package curation is the curation toolset of tools.yaml: audits that find what is wrong in a
// book library, read-only, one call each (audits.go), over what
// Audiobookshelf's own routes and filters give (read.go), with the
// spellings compared as normalise.go folds them; and the tidy_a_library
// prompt, which asks for the audits and the fixes there are (prompts.go).
//
// One exported function per tool, named after it (AuditSeries is
// audit_series): gen/registry, generated from tools.yaml, calls it after
// decoding the arguments. A tool's facts (annotations, request count,
// toolset) are in tools.yaml alone.
package curation

// Package docs carries the generated reference pages (tools.md, guards.md,
// written by cmd/toolgen) into the binary, so that `audiobookshelf-mcp
// tools` and `audiobookshelf-mcp guards` print exactly what the repository
// documents for the build that runs.
package docs

import _ "embed"

// Tools is docs/tools.md: every tool, its hints, guard and parameters.
//
//go:embed tools.md
var Tools string

// Guards is docs/guards.md: which tools ask a person first, and what for.
//
//go:embed guards.md
var Guards string

package kit

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Plan is a guarded tool's call, prepared but not made: what the guard's
// question says, and the mutation to run once it is approved. Plan functions
// only read; everything that changes Audiobookshelf is inside Execute, which
// the generated registry calls after guard.Check approves.
type Plan struct {
	// Targets are the ids acted on.
	Targets []string
	// Action is the dialog's first sentence: what will change, each target
	// named by its title or name beside its id (guard.Named, Named,
	// ListTitled: cleaned, clipped and quoted, never as prose), the counts,
	// and a merge's or rename's direction in words. Descriptions and other
	// long text stay out.
	Action string
	// Consequences are further sentences that depend on what was read,
	// naming what they name as Action does.
	Consequences []string
	// Read is what the plan read that the change takes out (ids, order,
	// timestamps, a bookmark's title): the approval is bound to a digest of
	// it, and the call that comes back with the approval reads again. It
	// never reaches a question's text.
	Read any
	// Effects names what the plan found the call would do that makes it
	// ask under a condition "when effect NAME" of tools.yaml (for example
	// that it would clear a finished date Audiobookshelf will not take
	// back). Names not declared there are never looked at.
	Effects []string
	// Execute makes the change.
	Execute func(ctx context.Context) (*mcp.CallToolResult, error)
}

// Effect reports whether the plan found the effect name.
func (p *Plan) Effect(name string) bool {
	for _, e := range p.Effects {
		if e == name {
			return true
		}
	}
	return false
}

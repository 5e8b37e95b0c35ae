package kit

import (
	"context"
	"fmt"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/permission"
)

// The Audiobookshelf permission a tool needs is declared in tools.yaml
// (permission:) and checked once, by Permit, which the generated handler
// calls once the arguments are checked and before the tool reads, asks or
// sends anything. Nothing else here checks a permission: an AST test
// (internal/app) fails on a permission or a guard question written by hand.

type personCtx struct{}

// WithPerson returns ctx for a call made for p (per-person mode): Permit
// checks p's permissions, from the check of their key, instead of reading
// the user of the configured key.
func WithPerson(ctx context.Context, p Person) context.Context {
	return context.WithValue(ctx, personCtx{}, p)
}

type needCtx struct{}

type checkedCtx struct{}

// Checked is the user of the configured key as Permit read it (GET
// /api/me) for the running call's permission; false outside a call that
// needs a permission, and per person, whose user comes from the check of
// their key and may be up to a minute old.
func Checked(ctx context.Context) (Person, bool) {
	p, ok := ctx.Value(checkedCtx{}).(Person)
	return p, ok
}

// NeededBy is the permission the running tool needs (tools.yaml), none
// outside a call that Permit let through.
func NeededBy(ctx context.Context) permission.Name {
	n, _ := ctx.Value(needCtx{}).(permission.Name)
	return n
}

// Permit refuses a call of tool whose Audiobookshelf user lacks need, the
// permission tools.yaml declares for it; nil when the call may go on, with
// ctx carrying need (for what a 403 that comes anyway says) and, with one
// key for everyone, the user read (Checked). Per person it
// reads the person the call is made for (WithPerson); with one key for
// everyone it reads the key's user (GET /api/me), on every call. A refused
// call is refused before anything else is read, asked or sent, naming the
// permission and the user: nobody approves what Audiobookshelf would then
// refuse with 403.
func (d *Deps) Permit(ctx context.Context, tool string, need permission.Name) (context.Context, error) {
	if need.None() {
		return ctx, nil
	}
	ctx = context.WithValue(ctx, needCtx{}, need)
	if p, ok := ctx.Value(personCtx{}).(Person); ok {
		if !p.Has(need) {
			d.logRefusal(tool, p, need)
			return ctx, refuseFor(tool, need, p, "the Audiobookshelf user this call is made for")
		}
		return ctx, nil
	}
	if d.PerPerson {
		// The HTTP layer refuses a call without a person first; this is the
		// same, should one get here.
		return ctx, Errorf(NotSent, "%s needs Audiobookshelf's %s permission, and this call came without the Audiobookshelf API key of a person to check it with.", tool, need)
	}
	me, err := d.WhoIs(ctx, "")
	if err != nil {
		return ctx, Errorf(NotAsked, "%s needs Audiobookshelf's %s permission, and the user of the API key could not be read to check it: %s.", tool, need, err.Error())
	}
	if !me.Has(need) {
		d.logRefusal(tool, *me, need)
		return ctx, refuseFor(tool, need, *me, "the Audiobookshelf user of the configured API key")
	}
	return context.WithValue(ctx, checkedCtx{}, *me), nil
}

func (d *Deps) logRefusal(tool string, p Person, need permission.Name) {
	if d.Log != nil {
		d.Log.Info("refused: no permission", "tool", tool, "user", p.UserID, "permission", need.String())
	}
}

// refuseFor is the error of a call refused because user p lacks need;
// who says whose user it is. It carries, as structured content, that
// nothing changed and which permission is missing.
func refuseFor(tool string, need permission.Name, p Person, who string) error {
	text := fmt.Sprintf(
		"%s did not run because it needs Audiobookshelf's %s permission (%s), and %s (%s, id %s) has it off; Audiobookshelf would refuse it (403). An Audiobookshelf admin can grant it under Settings → Users.",
		tool, need, need.Field(), who, Quote(Clip(p.Username, 100)), ShowID(p.UserID))
	if need.ForAdmins() {
		text = fmt.Sprintf("%s did not run because %s (%s, id %s) is of type %s, and Audiobookshelf lets only admin and root users do this.", tool, who, Quote(Clip(p.Username, 100)), ShowID(p.UserID), ShowID(p.Type))
	}
	return &Error{Text: text, Outcome: NotAsked,
		Structured: map[string]any{"status": "not_changed", "outcome": "no permission", "missing_permission": need.String()}}
}

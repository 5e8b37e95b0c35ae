package kit

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/permission"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
)

// Per-person mode: every request to Audiobookshelf of one call is made with
// the key of the person who made the call, which the HTTP layer puts into
// the call's context (WithKey). The server holds no key of its own then.

type keyCtx struct{}

// WithKey returns ctx carrying the Audiobookshelf API key that every request
// made with it sends (instead of the configured one).
func WithKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, keyCtx{}, key)
}

// keyFrom is the key WithKey put in ctx, "" for none.
func keyFrom(ctx context.Context) string {
	k, _ := ctx.Value(keyCtx{}).(string)
	return k
}

// Person is who an Audiobookshelf API key belongs to, from GET /api/me.
type Person struct {
	UserID, Username, Type string
	// CanUpdate, CanDelete, CanDownload and CanUpload are the flags of the
	// user's permissions (Has reads them).
	CanUpdate, CanDelete, CanDownload, CanUpload bool
	// SeesEverything: the user may access every library, every tag and
	// explicit content, so no book of the server is kept from them.
	SeesEverything bool
}

// Has reports whether p holds permission n.
func (p Person) Has(n permission.Name) bool {
	return n.HeldBy(permission.User{Type: p.Type, Update: p.CanUpdate, Delete: p.CanDelete, Download: p.CanDownload, Upload: p.CanUpload})
}

// ErrKeyRefused is returned by WhoIs when Audiobookshelf refuses the key.
var ErrKeyRefused = errors.New("this API key is refused by Audiobookshelf")

// maxMeBytes bounds the answer of GET /api/me read to learn who a key is
// (it carries the user's progress and bookmarks).
const maxMeBytes = 16 << 20

// WhoIs asks Audiobookshelf whose key this is (GET /api/me, made with the
// key). ErrKeyRefused when Audiobookshelf answers 401 or the account is
// inactive; any other failure is an error saying what happened, never
// carrying the key.
func (d *Deps) WhoIs(ctx context.Context, key string) (*Person, error) {
	if d.API == nil {
		return nil, errors.New("AUDIOBOOKSHELF_URL is not set")
	}
	ctx, cancel := context.WithTimeout(WithKey(ctx, key), d.Timeout)
	defer cancel()
	resp, err := d.API.GetMe(ctx)
	if err != nil {
		var reason string
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			reason = fmt.Sprintf("no answer within %s", d.Timeout)
		default:
			reason = "the server could not be reached"
		}
		return nil, fmt.Errorf("the key could not be checked with the Audiobookshelf server at %s: %s", d.BaseURL, reason)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusUnauthorized {
		return nil, ErrKeyRefused
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the Audiobookshelf server at %s answered GET /api/me with HTTP %d while checking the key", d.BaseURL, resp.StatusCode)
	}
	body, err := ReadLimited(resp.Body, resp.ContentLength, maxMeBytes)
	if err != nil {
		return nil, fmt.Errorf("the Audiobookshelf server at %s: its answer to GET /api/me could not be read while checking the key", d.BaseURL)
	}
	var me absdata.User
	if err := absdata.Unmarshal(body, &me); err != nil {
		// The error's words, not the answer's: /api/me carries the user's
		// tokens.
		return nil, fmt.Errorf("the Audiobookshelf server at %s answered GET /api/me with a user that could not be read while checking the key (%s); is AUDIOBOOKSHELF_URL the Audiobookshelf server itself, version 2.26 or newer?", d.BaseURL, Clip(err.Error(), 120))
	}
	if me.ID == "" {
		return nil, fmt.Errorf("the Audiobookshelf server at %s answered GET /api/me without a user id while checking the key; is AUDIOBOOKSHELF_URL the Audiobookshelf server itself?", d.BaseURL)
	}
	if !me.Active() {
		return nil, ErrKeyRefused
	}
	p := PersonOf(&me)
	return &p, nil
}

// PersonOf is user u as a permission check reads it.
func PersonOf(u *absdata.User) Person {
	p := &u.Permissions
	return Person{UserID: u.ID, Username: u.Username, Type: u.Type,
		CanUpdate: p.Update, CanDelete: p.Delete, CanDownload: p.Download, CanUpload: p.Upload,
		SeesEverything: p.AccessAllLibraries && p.AccessAllTags && p.AccessExplicitContent}
}

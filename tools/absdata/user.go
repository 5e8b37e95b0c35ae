package absdata

import (
	"encoding/json"
	"fmt"
)

// User is an Audiobookshelf user: GET /api/me (the user of the key, with
// their progress and bookmarks), the same record WhoIs reads to learn who
// a key belongs to.
type User struct {
	ID       string `json:"id"`
	Username string `json:"username"`
	Type     string `json:"type"`
	// IsActive is false for a deactivated account; a record without it is
	// taken as active.
	IsActive      *bool      `json:"isActive"`
	MediaProgress []Progress `json:"mediaProgress"`
	Bookmarks     []Bookmark `json:"bookmarks"`
	// Permissions are the user's flags, read for a permission check
	// (kit.PersonOf) and kept as they came too: get_me shows them whole.
	Permissions         Permissions `json:"permissions"`
	LibrariesAccessible []string    `json:"librariesAccessible"`
	ItemTagsSelected    []string    `json:"itemTagsSelected"`
	SeriesHideFromCL    []string    `json:"seriesHideFromContinueListening"`
	LastSeen            int64       `json:"lastSeen"`
	CreatedAt           int64       `json:"createdAt"`
}

// Permissions is a user's permissions object (User.permissions): the
// flags the tools check, and the object as Audiobookshelf sent it, which
// MarshalJSON gives back whole (with the flags no tool reads).
type Permissions struct {
	Download              bool `json:"download"`
	Update                bool `json:"update"`
	Delete                bool `json:"delete"`
	Upload                bool `json:"upload"`
	AccessAllLibraries    bool `json:"accessAllLibraries"`
	AccessAllTags         bool `json:"accessAllTags"`
	AccessExplicitContent bool `json:"accessExplicitContent"`
	raw                   json.RawMessage
}

// UnmarshalJSON reads the flags, failing on one that is not a boolean, and
// keeps the object.
func (p *Permissions) UnmarshalJSON(b []byte) error {
	type flags Permissions // without this method
	var f flags
	if err := Unmarshal(b, &f); err != nil {
		return fmt.Errorf("the user's permissions: %w", err)
	}
	*p = Permissions(f)
	p.raw = append(json.RawMessage(nil), b...)
	return nil
}

// MarshalJSON is the object as Audiobookshelf sent it; null when none
// was.
func (p Permissions) MarshalJSON() ([]byte, error) {
	if len(p.raw) == 0 {
		return []byte("null"), nil
	}
	return p.raw, nil
}

// Active reports whether the account may be used.
func (u *User) Active() bool { return u.IsActive == nil || *u.IsActive }

package absdata

import "encoding/json"

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
	// Permissions is kept as it came: get_me shows it whole, and
	// kit.PersonOf reads the flags a permission check needs.
	Permissions         json.RawMessage `json:"permissions"`
	LibrariesAccessible []string        `json:"librariesAccessible"`
	ItemTagsSelected    []string        `json:"itemTagsSelected"`
	SeriesHideFromCL    []string        `json:"seriesHideFromContinueListening"`
	LastSeen            int64           `json:"lastSeen"`
	CreatedAt           int64           `json:"createdAt"`
}

// Active reports whether the account may be used.
func (u *User) Active() bool { return u.IsActive == nil || *u.IsActive }

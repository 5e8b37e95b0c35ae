package absdata

import "encoding/json"

type User struct {
	ID                  string          `json:"id"`
	Username            string          `json:"username"`
	Type                string          `json:"type"`
	IsActive            bool            `json:"isActive"`
	MediaProgress       []Progress      `json:"mediaProgress"`
	Bookmarks           []Bookmark      `json:"bookmarks"`
	Permissions         json.RawMessage `json:"permissions"`
	LibrariesAccessible []string        `json:"librariesAccessible"`
	ItemTagsSelected    []string        `json:"itemTagsSelected"`
	SeriesHideFromCL    []string        `json:"seriesHideFromContinueListening"`
	LastSeen            int64           `json:"lastSeen"`
	CreatedAt           int64           `json:"createdAt"`
}

// Can reports one of the user's permissions (GET /api/me
// permissions: download, update, delete, upload, ...). Admins and root have
// them all.
func (u *User) Can(name string) bool {
	if u.Type == "root" || u.Type == "admin" {
		return true
	}
	var p map[string]any
	if Unmarshal(u.Permissions, &p) != nil {
		return false
	}
	v, _ := p[name].(bool)
	return v
}

// Package permission names the Audiobookshelf permissions a tool can need,
// as Audiobookshelf names them, and says whether a user holds one.
//
// tools.yaml's `permission:` is the one home of which tool needs which:
// cmd/toolgen accepts only the names here and emits each tool's into
// gen/registry, whose handlers check it (kit.Deps.Permit) and from which
// per-person tools/list leaves out what a person may not run. A Name cannot
// be made outside this package, and an AST test keeps hand-written code in
// tools/, internal/app and guard/ from naming one, so a permission reaches a
// check only from the manifest.
package permission

// Name is one permission; the zero value is none.
type Name struct{ name string }

// The permissions a tool can need. Update, Delete, Download and Upload are
// the flags of a user's record (permissions.update, ...); Admin is a user
// of type admin or root.
var (
	Update   = Name{"update"}
	Delete   = Name{"delete"}
	Download = Name{"download"}
	Upload   = Name{"upload"}
	Admin    = Name{"admin"}
)

// All lists every permission, in the order tools.yaml's refusal names them.
var All = []Name{Update, Delete, Download, Upload, Admin}

// Parse is the permission named s ("update", ...); ok is false for any
// other s, "" included.
func Parse(s string) (n Name, ok bool) {
	for _, p := range All {
		if p.name == s {
			return p, true
		}
	}
	return Name{}, false
}

// String is the name as tools.yaml and Audiobookshelf spell it, "" for
// none.
func (n Name) String() string { return n.name }

// None reports whether n is no permission at all.
func (n Name) None() bool { return n.name == "" }

// ForAdmins reports whether n is being an admin (or root) rather than a
// flag of the user's record.
func (n Name) ForAdmins() bool { return n == Admin }

// Field is how Audiobookshelf's user model names the flag (canUpdate,
// canDelete, canDownload, canUpload); "" for Admin and none.
func (n Name) Field() string {
	if n.None() || n.ForAdmins() {
		return ""
	}
	return "can" + string(n.name[0]-'a'+'A') + n.name[1:]
}

// User is what a check needs of an Audiobookshelf user (GET /api/me).
type User struct {
	// Type is root, admin, user or guest.
	Type string
	// The flags of the user's permissions.
	Update, Delete, Download, Upload bool
}

// HeldBy reports whether u holds n (every user holds none). The flags are
// the user's own, as Audiobookshelf checks them (User.canUpdate and the
// others read the flag alone, for admins too); Admin is a user of type
// admin or root.
func (n Name) HeldBy(u User) bool {
	switch n {
	case Update:
		return u.Update
	case Delete:
		return u.Delete
	case Download:
		return u.Download
	case Upload:
		return u.Upload
	case Admin:
		return u.Type == "admin" || u.Type == "root"
	}
	return true
}

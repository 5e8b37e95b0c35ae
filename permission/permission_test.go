package permission

import "testing"

func TestParseAndNames(t *testing.T) {
	for _, c := range []struct{ in, field string }{{"update", "canUpdate"}, {"delete", "canDelete"}, {"download", "canDownload"}, {"upload", "canUpload"}, {"admin", ""}} {
		n, ok := Parse(c.in)
		if !ok || n.String() != c.in || n.Field() != c.field || n.None() {
			t.Errorf("%s: %v %q %q", c.in, ok, n, n.Field())
		}
	}
	for _, bad := range []string{"", "Update", "canUpdate", "root", "delete "} {
		if n, ok := Parse(bad); ok || !n.None() {
			t.Errorf("%q parsed as %q", bad, n)
		}
	}
	if !Admin.ForAdmins() || Update.ForAdmins() || (Name{}).ForAdmins() {
		t.Error("ForAdmins")
	}
}

// The flags are each user's own, for admins too; being an admin is the
// type, admin or root; no permission is held by everyone.
func TestHeldBy(t *testing.T) {
	listener := User{Type: "user"}
	partner := User{Type: "user", Update: true, Download: true}
	root := User{Type: "root"}
	admin := User{Type: "admin", Update: true, Delete: true, Download: true, Upload: true}
	for _, c := range []struct {
		n    Name
		u    User
		want bool
	}{
		{Name{}, listener, true},
		{Update, listener, false}, {Update, partner, true}, {Update, root, false}, {Update, admin, true},
		{Delete, partner, false}, {Delete, admin, true},
		{Download, partner, true}, {Download, listener, false},
		{Upload, partner, false}, {Upload, admin, true},
		{Admin, partner, false}, {Admin, root, true}, {Admin, admin, true}, {Admin, User{Type: "guest"}, false},
	} {
		if got := c.n.HeldBy(c.u); got != c.want {
			t.Errorf("%q held by %+v: %v", c.n, c.u, got)
		}
	}
}

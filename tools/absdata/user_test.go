package absdata_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
)

// A user's permissions are read into their flags, a flag that is not a
// boolean fails the user's decode (a permission check never reads it as
// false), and the object is given back whole, with the flags no tool reads.
func TestUserPermissions(t *testing.T) {
	const perms = `{"download":true,"update":false,"delete":true,"upload":false,"accessAllLibraries":true,"accessAllTags":false,"accessExplicitContent":true,"createEreader":false}`
	var u absdata.User
	if err := absdata.Unmarshal([]byte(`{"id":"u1","permissions":`+perms+`}`), &u); err != nil {
		t.Fatal(err)
	}
	p := u.Permissions
	if !p.Download || p.Update || !p.Delete || p.Upload || !p.AccessAllLibraries || p.AccessAllTags || !p.AccessExplicitContent {
		t.Errorf("flags read as %+v from %s", p, perms)
	}
	b, err := json.Marshal(map[string]any{"permissions": u.Permissions})
	if err != nil || string(b) != `{"permissions":`+perms+`}` {
		t.Errorf("given back as %s (%v), want the object whole", b, err)
	}
	for _, body := range []string{`{"id":"u1"}`, `{"id":"u1","permissions":null}`} {
		var none absdata.User
		if err := absdata.Unmarshal([]byte(body), &none); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if b, _ := json.Marshal(none.Permissions); string(b) != "null" || none.Permissions.Update {
			t.Errorf("%s: permissions %s, %+v; want null and no flag", body, b, none.Permissions)
		}
	}
	var bad absdata.User
	err = absdata.Unmarshal([]byte(`{"id":"u1","permissions":{"update":"yes"}}`), &bad)
	if err == nil || !strings.Contains(err.Error(), "permissions") {
		t.Errorf("a flag that is not a boolean: error %v, want one naming the permissions", err)
	}
}

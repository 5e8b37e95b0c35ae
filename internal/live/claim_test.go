package live

import (
	crand "crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/contract"
)

// Claims: a live test that changes books it did not make claims them first,
// so that two runs on one server never change the same book at once. A
// claim is an inactive API key of the root user named claimPrefix+item id
// (keys are in no test's comparison, and the key never works): when two
// runs claim one book at the same moment, the older key (then the smaller
// id) wins and the other run lets go and picks another book. A claim older
// than claimStale is a run that died, and is ignored.
const (
	claimPrefix = "mcp-live-claim "
	claimStale  = time.Hour
)

type claimKey struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	CreatedAt string `json:"createdAt"`
	UserID    string `json:"userId"`
}

// claims are the live claims on the server by item id, oldest first.
func (a *abs) claims() map[string][]claimKey {
	a.t.Helper()
	var keys struct {
		APIKeys []claimKey `json:"apiKeys"`
	}
	a.get("/api/api-keys", &keys)
	out := map[string][]claimKey{}
	for _, k := range keys.APIKeys {
		id, ok := strings.CutPrefix(k.Name, claimPrefix)
		if !ok {
			continue
		}
		if at, err := time.Parse(time.RFC3339, k.CreatedAt); err == nil && time.Since(at) > claimStale {
			continue
		}
		out[id] = append(out[id], k)
	}
	for _, l := range out {
		sort.Slice(l, func(i, j int) bool {
			if l[i].CreatedAt != l[j].CreatedAt {
				return l[i].CreatedAt < l[j].CreatedAt
			}
			return l[i].ID < l[j].ID
		})
	}
	return out
}

// claimBooks claims n books of the book library lib for the test, in the
// library's order, skipping those fits refuses and those another run
// holds; the claims are let go when the test ends (after its own
// clean-ups). It waits up to ten minutes for books other runs hold, and
// fails the test when the library has too few that fit. a must be the
// root user's.
func claimBooks(a *abs, lib string, n int, fits func(item map[string]any) bool) []string {
	t := a.t
	t.Helper()
	var me struct {
		ID string `json:"id"`
	}
	a.get("/api/me", &me)
	var mine []claimKey
	release := func() {
		for _, k := range mine {
			a.do("DELETE", "/api/api-keys/"+k.ID, nil, nil)
		}
		mine = nil
	}
	t.Cleanup(release)
	deadline := time.Now().Add(10 * time.Minute)
	for {
		var items struct {
			Results []map[string]any `json:"results"`
		}
		a.get("/api/libraries/"+lib+"/items?limit=500", &items)
		var candidates []string
		for _, it := range items.Results {
			if id, _ := it["id"].(string); id != "" && (fits == nil || fits(it)) {
				candidates = append(candidates, id)
			}
		}
		if len(candidates) < n {
			t.Fatalf("the book library has %d books that fit the test; it needs %d", len(candidates), n)
		}
		held := a.claims()
		var got []string
		for _, id := range candidates {
			if len(got) == n {
				break
			}
			if len(held[id]) > 0 {
				continue
			}
			var made struct {
				APIKey claimKey `json:"apiKey"`
			}
			if st := a.do("POST", "/api/api-keys", map[string]any{"name": claimPrefix + id, "userId": me.ID, "isActive": false}, &made); st != 200 || made.APIKey.ID == "" {
				t.Fatalf("claiming %s: POST /api/api-keys: %d", id, st)
			}
			mine = append(mine, made.APIKey)
			if l := a.claims()[id]; len(l) > 0 && l[0].ID == made.APIKey.ID {
				got = append(got, id)
			} else {
				a.do("DELETE", "/api/api-keys/"+made.APIKey.ID, nil, nil)
				mine = mine[:len(mine)-1]
			}
		}
		if len(got) == n {
			liveRun.mu.Lock()
			for _, id := range got {
				liveRun.claimed[id] = true
			}
			liveRun.mu.Unlock()
			t.Logf("claimed %v", got)
			return got
		}
		release()
		if time.Now().After(deadline) {
			t.Fatalf("another run held the books this test needs for ten minutes")
		}
		time.Sleep(time.Duration(2000+rand.IntN(3000)) * time.Millisecond)
	}
}

// noSeries is a claimBooks filter: a book in no series.
func noSeries(it map[string]any) bool {
	return fmt.Sprint(at(it, "media", "metadata", "seriesName")) == "" || at(it, "media", "metadata", "seriesName") == nil
}

// ownUser makes a user for the test with permissions, and an API key of
// it, with root (the root user's client); both are deleted when the test
// ends. It answers a client of the user and the key. With libraries, the
// user may open those alone (a library another run makes meanwhile is not
// the user's).
func ownUser(t *testing.T, root *abs, what string, permissions map[string]any, libraries ...string) (*abs, string) {
	t.Helper()
	pw := make([]byte, 16)
	crand.Read(pw)
	name := prefix + what + "-" + hex.EncodeToString(pw[:4])
	body := map[string]any{"username": name, "password": hex.EncodeToString(pw), "type": "user", "isActive": true, "permissions": permissions}
	if len(libraries) > 0 {
		p := maps.Clone(permissions)
		p["accessAllLibraries"] = false
		body["permissions"], body["librariesAccessible"] = p, libraries
	}
	var made struct{ User struct{ ID string } }
	if st := root.do("POST", "/api/users", body, &made); st != 200 || made.User.ID == "" {
		t.Fatalf("POST /api/users: %d", st)
	}
	t.Cleanup(func() {
		if st := root.do("DELETE", "/api/users/"+made.User.ID, nil, nil); st != 200 {
			t.Errorf("deleting the user %s the test made: %d", made.User.ID, st)
		}
	})
	var key struct{ APIKey struct{ ID, APIKey string } }
	if st := root.do("POST", "/api/api-keys", map[string]any{"name": name, "userId": made.User.ID, "isActive": true}, &key); st != 200 || key.APIKey.APIKey == "" {
		t.Fatalf("POST /api/api-keys: %d", st)
	}
	t.Cleanup(func() { root.do("DELETE", "/api/api-keys/"+key.APIKey.ID, nil, nil) })
	return &abs{t: t, base: root.base, key: key.APIKey.APIKey, hc: root.hc}, key.APIKey.APIKey
}

// deleteSessionsAtEnd deletes, with root, the listening sessions of user
// when the test ends.
func deleteSessionsAtEnd(t *testing.T, root, user *abs) {
	t.Cleanup(func() {
		var page struct{ Sessions []struct{ ID string } }
		if user.do("GET", "/api/me/listening-sessions?itemsPerPage=100", nil, &page) == 200 {
			for _, s := range page.Sessions {
				root.do("DELETE", "/api/sessions/"+s.ID, nil, nil)
			}
		}
	})
}

// listener is how a listening test starts: the validating proxy (what it
// recorded, the spec it holds answers to), the root user's client, and a
// user of the test's own that may download and nothing else, with its
// API key.
type listener struct {
	proxyURL   string
	rec        *recorder
	spec       *contract.Spec
	root, user *abs
	userKey    string
}

// startListener skips the test unless ABS_LIVE is 1, else starts it as a
// user of its own named after what, whose listening sessions are deleted
// when the test ends (before the user: cleanups run last first).
func startListener(t *testing.T, what string) listener {
	t.Helper()
	if os.Getenv("ABS_LIVE") != "1" {
		t.Skip("run by `make test-live` (ABS_LIVE=1) with AUDIOBOOKSHELF_URL and AUDIOBOOKSHELF_API_KEY (a root user's key) of a throwaway Audiobookshelf")
	}
	target, rootKey := liveServer(t)
	l := listener{}
	l.proxyURL, l.rec, l.spec, _ = specProxy(t, target, rootKey)
	hc := &http.Client{Timeout: 60 * time.Second}
	l.root = &abs{t: t, base: target.String(), key: rootKey, hc: hc}
	l.user, l.userKey = ownUser(t, l.root, what, map[string]any{"download": true, "update": false, "delete": false, "upload": false})
	deleteSessionsAtEnd(t, l.root, l.user)
	return l
}

// syncSession syncs, as user, a local listening session of secs seconds
// of book item of library lib, counted on the day of on, started at start
// and last updated at end.
func syncSession(t *testing.T, user *abs, lib, item string, on, start, end time.Time, secs float64) {
	t.Helper()
	sid := make([]byte, 16)
	crand.Read(sid)
	body := map[string]any{"id": fmt.Sprintf("%x-%x-%x-%x-%x", sid[:4], sid[4:6], sid[6:8], sid[8:10], sid[10:]), "libraryItemId": item, "libraryId": lib, "mediaType": "book", "displayTitle": "",
		"date": on.Format("2006-01-02"), "dayOfWeek": on.Weekday().String(), "timeListening": secs, "startTime": 0, "currentTime": secs,
		"startedAt": start.UnixMilli(), "updatedAt": end.UnixMilli()}
	if st := user.do("POST", "/api/session/local", body, nil); st != 200 {
		t.Fatalf("POST /api/session/local: %d", st)
	}
}

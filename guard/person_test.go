package guard

import (
	"context"
	"strings"
	"testing"
)

// In a per-person deployment an approval is bound to the Audiobookshelf user
// it was given to: a state or token of person A is refused for person B (and
// for a call with no person), and is still good for A afterwards; the
// used-approval record is keyed by user and nonce.
func TestApprovalBoundToPerson(t *testing.T) {
	g, err := New(Config{Elicitation: true})
	if err != nil {
		t.Fatal(err)
	}
	fp, _ := fingerprint("delete_thing", boundArgs{ID: "t1"})
	read, _ := readDigest("v1")

	st := g.seal("delete_thing", "user-a", fp, read, t0)
	for _, other := range []string{"user-b", ""} {
		if ok, why := g.open(context.Background(), st, "delete_thing", other, fp, read, t0); ok || why != otherPerson {
			t.Errorf("A's state opened for %q: %v %q", other, ok, why)
		}
	}
	if ok, why := g.open(context.Background(), st, "delete_thing", "user-a", fp, read, t0); !ok {
		t.Errorf("A's state refused for A after B tried it: %q", why)
	}
	if ok, why := g.open(context.Background(), st, "delete_thing", "user-a", fp, read, t0); ok || why != "already used" {
		t.Errorf("A's state used twice: %v %q", ok, why)
	}
	// A state with no person (one key for everyone) does not open for a person.
	if ok, why := g.open(context.Background(), g.seal("delete_thing", "", fp, read, t0), "delete_thing", "user-a", fp, read, t0); ok || why != otherPerson {
		t.Errorf("a state without a person opened for A: %v %q", ok, why)
	}
	if !strings.Contains(g.renewedNote(otherPerson), "another person") {
		t.Errorf("renewal note %q", g.renewedNote(otherPerson))
	}

	tok := g.issueToken("delete_thing", "user-a", fp, read, t0)
	if len(tok) != tokenLen {
		t.Fatalf("token of %d characters", len(tok))
	}
	if why := g.redeemToken(context.Background(), tok, "delete_thing", "user-b", fp, read, t0); why != tokenOtherPerson {
		t.Errorf("A's token for B: %q", why)
	}
	if why := g.redeemToken(context.Background(), tok, "delete_thing", "", fp, read, t0); why != tokenUnknown {
		t.Errorf("A's token with no person: %q", why)
	}
	if why := g.redeemToken(context.Background(), tok, "delete_thing", "user-a", fp, read, t0); why != "" {
		t.Errorf("A's token refused for A after B tried it: %q", why)
	}
	if why := g.redeemToken(context.Background(), tok, "delete_thing", "user-a", fp, read, t0); why != tokenUsed {
		t.Errorf("A's token used twice: %q", why)
	}
	if !strings.Contains(g.rejectedSentence(tokenOtherPerson, ""), "not issued to this person") {
		t.Errorf("sentence %q", g.rejectedSentence(tokenOtherPerson, ""))
	}

	if ApprovalID("u1", "n") == ApprovalID("u2", "n") || ApprovalID("", "n") != "n" {
		t.Error("ApprovalID does not tell people apart")
	}
	if UserFrom(WithUser(context.Background(), "u1")) != "u1" || UserFrom(context.Background()) != "" {
		t.Error("WithUser/UserFrom")
	}
}

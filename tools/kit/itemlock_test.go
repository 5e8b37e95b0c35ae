package kit

import (
	"context"
	"errors"
	"testing"
)

// TestKeyedLock: a second holder of one key waits (here: gives up when its
// context ends, holding nothing), another key is free at once, and a key
// nobody holds or waits for is forgotten.
func TestKeyedLock(t *testing.T) {
	k := &keyedLock{held: map[string]*keyEntry{}}
	release, err := k.acquire(context.Background(), "a")
	if err != nil {
		t.Fatal(err)
	}
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := k.acquire(ended, "a"); !errors.Is(err, context.Canceled) {
		t.Errorf("a second holder of a held key got %v, want to wait until its context ended", err)
	}
	other, err := k.acquire(ended, "b")
	if err != nil {
		// A free key is taken even by a context that has ended: the
		// select may pick either ready case, so take it again live.
		other, err = k.acquire(context.Background(), "b")
		if err != nil {
			t.Fatal(err)
		}
	}
	other()
	release()
	again, err := k.acquire(context.Background(), "a")
	if err != nil {
		t.Fatalf("a released key: %v", err)
	}
	again()
	if len(k.held) != 0 {
		t.Errorf("keys left behind: %v", k.held)
	}
}

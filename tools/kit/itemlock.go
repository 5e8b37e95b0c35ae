package kit

import (
	"context"
	"slices"
	"sync"
)

// Writes to one library item are made one at a time. Audiobookshelf 2.36
// can die on two writes to one item at the same moment: two quick matches
// of one book, or metadata edits adding the same new author or series,
// race in its scanner to create the same record, and the unique-constraint
// error that loses is not handled (the process exits). So every write this
// server sends for an item (update_item_metadata, match_library_item,
// remove_item_cover, the podcast writes on one podcast, and a batch of
// items in one request, which waits for each of them) waits for the one
// before it to be answered; writes to other items go on together.
//
// What this does not cover: it holds within one process. Several instances
// of this server in front of one Audiobookshelf, or another client (the
// web interface, another app) writing the same item, are not serialised
// with it.

// itemKey carries the library item a call writes to (ForItem).
type itemKey struct{}

// ForItem marks ctx as a call that writes to library item id: Send makes
// its mutating requests one at a time with every other write to that item
// from this process.
func ForItem(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, itemKey{}, id)
}

// ForItems marks ctx as a call whose one request writes to every item of
// ids (the curation toolset's batch updates): it waits for each of them, taken in the order
// of their ids, so that two such calls never wait for each other.
func ForItems(ctx context.Context, ids []string) context.Context {
	sorted := slices.Compact(slices.Sorted(slices.Values(ids)))
	return context.WithValue(ctx, itemKey{}, sorted)
}

// itemLocks serialises writes per Audiobookshelf and item across every
// Deps of the process (each person's server in per-person mode shares it).
var itemLocks = &keyedLock{held: map[string]*keyEntry{}}

type keyedLock struct {
	mu   sync.Mutex
	held map[string]*keyEntry
}

type keyEntry struct {
	turn chan struct{} // holds a token while the key is held
	refs int           // holders and waiters
}

// acquire waits for key, or for ctx to end (then it holds nothing and
// returns ctx's error). release gives the key to the next waiter.
func (k *keyedLock) acquire(ctx context.Context, key string) (release func(), err error) {
	k.mu.Lock()
	e := k.held[key]
	if e == nil {
		e = &keyEntry{turn: make(chan struct{}, 1)}
		k.held[key] = e
	}
	e.refs++
	k.mu.Unlock()
	done := func() {
		k.mu.Lock()
		e.refs--
		if e.refs == 0 {
			delete(k.held, key)
		}
		k.mu.Unlock()
	}
	select {
	case e.turn <- struct{}{}:
		return func() { <-e.turn; done() }, nil
	case <-ctx.Done():
		done()
		return nil, ctx.Err()
	}
}

// lockItem takes the lock of the item ctx writes to, if it names one, or
// of each item of a batch, in order.
func (d *Deps) lockItem(ctx context.Context) (release func(), err error) {
	var ids []string
	switch v := ctx.Value(itemKey{}).(type) {
	case string:
		if v != "" {
			ids = []string{v}
		}
	case []string:
		ids = v
	}
	var held []func()
	releaseAll := func() {
		for i := len(held) - 1; i >= 0; i-- {
			held[i]()
		}
	}
	for _, id := range ids {
		r, err := itemLocks.acquire(ctx, d.BaseURL+"\x00"+id)
		if err != nil {
			releaseAll()
			return nil, Errorf(NotSent, "The call ended while it waited for another write to library item %s to be answered (writes to one item are sent one at a time).", ShowID(id))
		}
		held = append(held, r)
	}
	return releaseAll, nil
}

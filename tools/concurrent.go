package tools

import (
	"context"
	"net/http"
	"sync"
)

// pending is a request sent alongside the one a call waits for: a tool
// that needs two answers which do not depend on each other asks for both
// at once, so the call takes one round trip instead of two.
type pending[T any] struct {
	done     chan struct{}
	cancel   context.CancelFunc
	v        T
	panicked *caught
}

// caught is a panic recovered in a background goroutine, to be raised again
// in the goroutine of the call, where the server's handler turns it into an
// error result: a panic there must not end the process.
type caught struct{ v any }

// alongside starts f in the background. Each pending must end with wait
// or abandon, so nothing outlives the call.
func alongside[T any](ctx context.Context, f func(context.Context) T) *pending[T] {
	ctx, cancel := context.WithCancel(ctx)
	p := &pending[T]{done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(p.done)
		defer func() {
			if r := recover(); r != nil {
				p.panicked = &caught{r}
			}
		}()
		p.v = f(ctx)
	}()
	return p
}

// wait is f's result, once it has come; a panic in f is raised here.
func (p *pending[T]) wait() T {
	<-p.done
	p.cancel()
	if p.panicked != nil {
		panic(p.panicked.v)
	}
	return p.v
}

// abandon cancels f (its answer is no longer needed) and waits for it to
// end; a panic in f is raised here.
func (p *pending[T]) abandon() {
	p.cancel()
	<-p.done
	if p.panicked != nil {
		panic(p.panicked.v)
	}
}

// eachLimit runs f(i) for i in [0, n), at most limit at a time, and waits
// for all of them; a panic in any is raised here, once all have ended.
func eachLimit(n, limit int, f func(i int)) {
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first *caught
	for i := range n {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() {
				if r := recover(); r != nil {
					mu.Lock()
					if first == nil {
						first = &caught{r}
					}
					mu.Unlock()
				}
				<-sem
				wg.Done()
			}()
			f(i)
		}()
	}
	wg.Wait()
	if first != nil {
		panic(first.v)
	}
}

// progressRecords reads every progress record of the user. It is read
// fresh on every call and never kept: progress changes while a person
// listens (a player reports every few seconds).
//
// GET /api/me/progress answers the records alone; a server older than
// Audiobookshelf 2.36 answers it 404, and then GET /api/me, which carries
// the same records inside the whole user, is asked instead, now and for
// the rest of this process (what is remembered is which route the server
// has, not anything of the user's).
func (d *Deps) progressRecords(ctx context.Context) ([]absProgress, error) {
	if !d.noProgressRoute.Load() {
		r, err := d.send(ctx, false, func(ctx context.Context) (*http.Response, error) {
			return d.API.ListMediaProgress(ctx)
		})
		if err != nil {
			return nil, err
		}
		if r.Status/100 == 2 {
			var v struct {
				MediaProgress []absProgress `json:"mediaProgress"`
			}
			if err := decode(r.Body, &v); err != nil {
				return nil, err
			}
			return v.MediaProgress, nil
		}
		if r.Status != http.StatusNotFound {
			return nil, statusError(r, "the user's progress", false)
		}
		d.noProgressRoute.Store(true)
	}
	_, me, err := d.getMe(ctx)
	if err != nil {
		return nil, err
	}
	return me.MediaProgress, nil
}

// bookProgress is progressRecords by library item id, books only (an
// episode's record is left out): what list entries show beside each book.
// A failure only leaves the progress out of the list.
func (d *Deps) bookProgress(ctx context.Context) map[string]*absProgress {
	recs, err := d.progressRecords(ctx)
	if err != nil {
		return nil
	}
	out := make(map[string]*absProgress, len(recs))
	for i := range recs {
		p := &recs[i]
		if p.EpisodeID == nil || *p.EpisodeID == "" {
			out[p.LibraryItemID] = p
		}
	}
	return out
}

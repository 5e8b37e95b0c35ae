package kit

import (
	"context"
	"sync"
)

// Pending is a request sent alongside the one a call waits for: a tool
// that needs two answers which do not depend on each other asks for both
// at once, so the call takes one round trip instead of two.
type Pending[T any] struct {
	done     chan struct{}
	cancel   context.CancelFunc
	v        T
	panicked *caught
}

// caught is a panic recovered in a background goroutine, to be raised again
// in the goroutine of the call, where the server's handler turns it into an
// error result: a panic there must not end the process.
type caught struct{ v any }

// Alongside starts f in the background. Each pending must end with wait
// or abandon, so nothing outlives the call.
func Alongside[T any](ctx context.Context, f func(context.Context) T) *Pending[T] {
	ctx, cancel := context.WithCancel(ctx)
	p := &Pending[T]{done: make(chan struct{}), cancel: cancel}
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

// Wait is f's result, once it has come; a panic in f is raised here.
func (p *Pending[T]) Wait() T {
	<-p.done
	p.cancel()
	if p.panicked != nil {
		panic(p.panicked.v)
	}
	return p.v
}

// Abandon cancels f (its answer is no longer needed) and waits for it to
// end; a panic in f is raised here.
func (p *Pending[T]) Abandon() {
	p.cancel()
	<-p.done
	if p.panicked != nil {
		panic(p.panicked.v)
	}
}

// EachLimit runs f(i) for i in [0, n), at most limit at a time, and waits
// for all of them; a panic in any is raised here, once all have ended.
func EachLimit(n, limit int, f func(i int)) {
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

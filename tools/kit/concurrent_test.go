package kit

import (
	"context"
	"testing"
)

// A panic in a request sent alongside, or in one of several sent at once,
// comes back to the call's own goroutine (where the server's handler
// recovers it) instead of ending the process.
func TestPanicsComeBackToTheCall(t *testing.T) {
	caught := func(f func()) (v any) {
		defer func() { v = recover() }()
		f()
		return nil
	}
	boom := func(context.Context) int { panic("boom") }
	if v := caught(func() { Alongside(context.Background(), boom).Wait() }); v != "boom" {
		t.Errorf("wait: recovered %v", v)
	}
	if v := caught(func() { Alongside(context.Background(), boom).Abandon() }); v != "boom" {
		t.Errorf("abandon: recovered %v", v)
	}
	ran := make([]bool, 6)
	v := caught(func() {
		EachLimit(6, 2, func(i int) {
			ran[i] = true
			if i == 3 {
				panic("three")
			}
		})
	})
	if v != "three" {
		t.Errorf("eachLimit: recovered %v", v)
	}
	for i, r := range ran {
		if !r {
			t.Errorf("eachLimit: %d did not run", i)
		}
	}
	if got := Alongside(context.Background(), func(context.Context) int { return 7 }).Wait(); got != 7 {
		t.Errorf("wait = %d", got)
	}
}

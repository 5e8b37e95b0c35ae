package app

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// pipeEnd is a drainingReader over lines that then end, and the
// answerWriter of the same pending set.
// Input arrives one byte per read, so that every message is split.
func pipeEnd(lines string, drain time.Duration) (*drainingReader, *answerWriter) {
	p := newPending(drain)
	w := &answerWriter{w: io.Discard, p: p}
	return &drainingReader{r: iotest.OneByteReader(strings.NewReader(lines)), p: p, w: w}, w
}

// readToEnd reads r until the end of input and says when that came.
func readToEnd(t *testing.T, r io.Reader) <-chan time.Time {
	t.Helper()
	end := make(chan time.Time, 1)
	go func() {
		if _, err := io.ReadAll(r); err != nil {
			t.Error(err)
		}
		end <- time.Now()
	}()
	return end
}

// held fails unless the end of input stays held for a while.
func held(t *testing.T, end <-chan time.Time, what string) {
	t.Helper()
	select {
	case <-end:
		t.Fatalf("%s: the end of input was passed on with a request unanswered", what)
	case <-time.After(30 * time.Millisecond):
	}
}

// released fails unless the end of input comes soon.
func released(t *testing.T, end <-chan time.Time, what string) {
	t.Helper()
	select {
	case <-end:
	case <-time.After(hangGuard):
		t.Fatalf("%s: the end of input is still held after %s", what, hangGuard)
	}
}

func TestEndOfInputWaitsForAnswers(t *testing.T) {
	cases := []struct {
		name, in string
		out      []string // written while the end is held; the last releases it
	}{
		{"one request", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n",
			[]string{`{"jsonrpc":"2.0","id":1,"result":{}}`}},
		{"two requests, answered out of order",
			`{"jsonrpc":"2.0","id":1,"method":"a"}` + "\n" + `{"jsonrpc":"2.0","id":"x","method":"b"}` + "\n",
			[]string{`{"jsonrpc":"2.0","id":"x","result":{}}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}`}},
		{"an answer with its id after its result", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n",
			[]string{`{"result":{"tools":[]},"jsonrpc":"2.0","id":1}`}},
		{"a batch", `[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":2,"method":"b"}]` + "\n",
			[]string{`{"jsonrpc":"2.0","id":1,"result":{}}`, `[{"jsonrpc":"2.0","id":2,"result":{}}]`}},
		{"the same number written otherwise", `{"jsonrpc":"2.0","id":7,"method":"a"}` + "\n",
			[]string{`{"jsonrpc":"2.0","id":"7","result":{}}`, `{"jsonrpc":"2.0","id":7.0,"result":{}}`}},
		{"cancelled by the client", `{"jsonrpc":"2.0","id":3,"method":"tools/call"}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}` + "\n",
			nil},
		{"the server asks the client", `{"jsonrpc":"2.0","id":1,"method":"tools/call"}` + "\n",
			[]string{`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`, `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{}}`}},
		{"a line that is not JSON", `{"jsonrpc":"2.0","id":5,"method":"a"}` + "\nnot json\n{\"id\":\n",
			[]string{`{"jsonrpc":"2.0","id":5,"result":{}}`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, w := pipeEnd(c.in, time.Minute)
			end := readToEnd(t, r)
			for _, line := range c.out {
				held(t, end, "before "+line)
				if _, err := w.Write([]byte(line + "\n")); err != nil {
					t.Fatal(err)
				}
			}
			released(t, end, c.name)
		})
	}
}

// TestAnsweredQuestionHoldsNothing: a question the client answered before
// its input ended does not let the end through while a request is pending.
func TestAnsweredQuestionHoldsNothing(t *testing.T) {
	pr, pw := io.Pipe()
	p := newPending(time.Minute)
	w := &answerWriter{w: io.Discard, p: p}
	r := &drainingReader{r: pr, p: p, w: w}
	end := readToEnd(t, r)
	send := func(line string) {
		if _, err := io.WriteString(pw, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	answer := func(line string) {
		if _, err := w.Write([]byte(line + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call"}`)
	answer(`{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{}}`)
	send(`{"jsonrpc":"2.0","id":1,"result":{"action":"accept"}}`)
	answer(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	pw.Close()
	held(t, end, "request 2 unanswered")
	answer(`{"jsonrpc":"2.0","id":2,"result":{}}`)
	released(t, end, "all answered")
}

func TestEndOfInputIsHeldAtMostDrain(t *testing.T) {
	r, _ := pipeEnd(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`+"\n", 100*time.Millisecond)
	start := time.Now()
	end := readToEnd(t, r)
	released(t, end, "never answered")
	if waited := time.Since(start); waited < 100*time.Millisecond {
		t.Errorf("the end was passed on after %v, before the drain of 100ms", waited)
	}
}

func TestCloseReleasesTheEnd(t *testing.T) {
	r, _ := pipeEnd(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`+"\n", time.Minute)
	end := readToEnd(t, r)
	held(t, end, "before Close")
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	released(t, end, "after Close")
}

func TestNothingPendingEndsAtOnce(t *testing.T) {
	r, _ := pipeEnd(`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n", time.Minute)
	released(t, readToEnd(t, r), "only a notification")
}

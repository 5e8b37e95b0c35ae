package kit

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Outcome is what a failed call left on Audiobookshelf. A tool names it
// where it fails; Result says it, in the same words for every tool.
type Outcome int

const (
	// Unchanged: nothing was changed (the call read, or it stopped or was
	// refused before its change took effect).
	Unchanged Outcome = iota
	// NotSent: the arguments did not check out; nothing was sent at all.
	NotSent
	// NotAsked: a guarded call stopped before its question: nobody was
	// asked, and nothing was changed.
	NotAsked
	// MaybeChanged: a change was sent and its outcome is not known.
	MaybeChanged
	// Made: the change was made; only its answer could not be given.
	Made
	// Stated: the text says what happened itself (or there is nothing to
	// say, as for a setup that is missing).
	Stated
)

// sentence is what Result adds to an error's text for its outcome.
func (o Outcome) sentence() string {
	switch o {
	case Unchanged:
		return "Nothing was changed."
	case NotSent:
		return "Nothing was sent to Audiobookshelf."
	case NotAsked:
		return "Nothing was changed, and nobody was asked."
	case MaybeChanged:
		return "It is not known whether the change was made; read it back before trying again."
	case Made:
		return "The call itself was carried out; only its answer is left out: read the result back with a read tool."
	}
	return ""
}

// Error is a tool's failure as a model reads it: what failed and what to
// do (Text), and what the call left on Audiobookshelf (Outcome). Tools
// return it as a Go error; Result, called once for every tool (the
// server's wrapper of each handler, internal/app), turns it into the
// result a client receives.
type Error struct {
	Text    string
	Outcome Outcome
	// Status is the HTTP status Audiobookshelf answered with, when the
	// failure is its answer (0 otherwise).
	Status int
	// Structured is the result's structured content, for a refusal that
	// carries one (its status and outcome as fields); nil for most.
	Structured map[string]any
	// cause is what failed underneath (errTooLarge), for errors.Is.
	cause error
}

// Error is the text with its outcome's sentence.
func (e *Error) Error() string {
	s := e.Outcome.sentence()
	if s == "" {
		return e.Text
	}
	if e.Text == "" {
		return s
	}
	return e.Text + " " + s
}

func (e *Error) Unwrap() error { return e.cause }

// Errorf is an Error with outcome o and the text format makes.
func Errorf(o Outcome, format string, a ...any) error {
	return &Error{Text: fmt.Sprintf(format, a...), Outcome: o}
}

// ArgumentError is the error for arguments that do not check out: nothing
// was sent to Audiobookshelf.
func ArgumentError(err error) error {
	return &Error{Text: strings.ReplaceAll(err.Error(), "\n", "; ") + ".", Outcome: NotSent}
}

// AsError is err's Error, or nil when it is none.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// Result is the one place where a tool's error becomes what the client
// reads: an error result whose text ends with the outcome's sentence.
// An error that is not an Error (none should reach here) is passed on as
// its text.
func Result(err error) *mcp.CallToolResult {
	e := AsError(err)
	if e == nil {
		e = &Error{Text: err.Error(), Outcome: Stated}
	}
	res := &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: e.Error()}}}
	if e.Structured != nil {
		res.StructuredContent = e.Structured
	}
	return res
}

// Handler is one tool's handler as gen/registry builds it: the result of
// a call that succeeded, or a tool error (an Error) that the server's
// wrapper of every handler turns into the client's result with Result. It
// is not an mcp.ToolHandler, whose error go-sdk would send as a protocol
// error instead of a result a model reads.
type Handler func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error)

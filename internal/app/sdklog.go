package app

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
)

// sdkLogger is the logger handed to go-sdk: its records pass through
// sdkHandler on their way to the server's own handler.
func sdkLogger(l *slog.Logger) *slog.Logger { return slog.New(sdkHandler{l.Handler()}) }

// sdkHandler puts go-sdk's log records in terms of this binary. Its INFO
// lines come with every request (a session opened and closed around each
// stateless request, "session initialized") and go to debug; the refusal of
// a 2026-07-28 request on the endpoint with sessions names --stateless
// instead of go-sdk's StreamableHTTPOptions.Stateless; a client's protocol
// mistakes, which go-sdk logs as errors of the server, go to debug and say
// whose they are. Everything else passes as it is.
type sdkHandler struct{ inner slog.Handler }

// sdkClientMistakes are go-sdk's error messages about what a client sent.
var sdkClientMistakes = map[string]bool{
	"method removed in the new protocol":   true,
	"method invalid during initialization": true,
	"duplicate initialize request":         true,
	"initialized before initialize":        true,
	"duplicate initialized notification":   true,
}

func (h sdkHandler) Enabled(ctx context.Context, l slog.Level) bool {
	if l >= slog.LevelWarn {
		return true // decided in Handle: some are moved to another level
	}
	return h.inner.Enabled(ctx, slog.LevelDebug)
}

func (h sdkHandler) Handle(ctx context.Context, r slog.Record) error {
	level, msg := sdkRewrite(r.Level, r.Message)
	if !h.inner.Enabled(ctx, level) {
		return nil
	}
	out := slog.NewRecord(r.Time, level, msg, r.PC)
	r.Attrs(func(a slog.Attr) bool { out.AddAttrs(a); return true })
	return h.inner.Handle(ctx, out)
}

func (h sdkHandler) WithAttrs(as []slog.Attr) slog.Handler { return sdkHandler{h.inner.WithAttrs(as)} }
func (h sdkHandler) WithGroup(name string) slog.Handler    { return sdkHandler{h.inner.WithGroup(name)} }

// sdkRewrite is the level and message a go-sdk record is written with.
func sdkRewrite(level slog.Level, msg string) (slog.Level, string) {
	const refusal = "rejecting request with protocol version "
	switch {
	case strings.HasPrefix(msg, refusal):
		version := "2026-07-28"
		if v, err := strconv.QuotedPrefix(msg[len(refusal):]); err == nil {
			version, _ = strconv.Unquote(v)
		}
		return slog.LevelInfo, refusalMessage("a request", version)
	case sdkClientMistakes[msg]:
		return slog.LevelDebug, "a client broke the protocol and was answered with an error (the client's mistake; nothing to change on this server): " + msg
	case level < slog.LevelWarn:
		return slog.LevelDebug, msg
	}
	return level, msg
}

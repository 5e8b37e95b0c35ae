package kit

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// progressKey holds a call's progress reporter in its context.
type progressKey struct{}

type progressFunc func(ctx context.Context, progress, total float64, message string)

// WithProgress gives a tool call's context a progress reporter when the
// client sent a progress token with the call (MCP notifications/progress);
// without one, reporting does nothing.
func WithProgress(ctx context.Context, req *mcp.CallToolRequest) context.Context {
	if req == nil || req.Params == nil || req.Session == nil {
		return ctx
	}
	tok := req.Params.GetProgressToken()
	if tok == nil {
		return ctx
	}
	ss := req.Session
	var f progressFunc = func(ctx context.Context, progress, total float64, message string) {
		// A client gone or a transport that cannot carry it: the call goes
		// on, the report is lost.
		_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: progress, Total: total, Message: message})
	}
	return context.WithValue(ctx, progressKey{}, f)
}

// ReportProgress sends a progress notification when the client asked for
// them.
func ReportProgress(ctx context.Context, progress, total float64, message string) {
	if f, ok := ctx.Value(progressKey{}).(progressFunc); ok {
		f(ctx, progress, total, message)
	}
}

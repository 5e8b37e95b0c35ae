// Package app assembles the server: configuration → Audiobookshelf client →
// guard → the generated tool registry → a go-sdk server. cmd/audiobookshelf-mcp
// runs it over stdio or streamable HTTP; tests build it in process.
package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/registry"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/guard"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
)

// Options configure a server.
type Options struct {
	Config  *config.Config
	Version string
	// Logger receives structured logs (stderr in the binary).
	Logger *slog.Logger
	// Stateless is true for streamable HTTP without sessions.
	Stateless bool
	// Transport replaces the HTTP transport to Audiobookshelf (tests).
	Transport http.RoundTripper
	// Now is the guard's clock; nil means time.Now. Tests move it to expire
	// questions and tokens.
	Now func() time.Time
	// StateTTL is how long a question is good for, and so how long a call
	// waits for the answer to a pushed question; zero means the guard's
	// default (10 minutes). Tests shorten it.
	StateTTL time.Duration
	// ProgressEvery is how often a call whose question waits for a person
	// sends a progress notification, when it carries a progress token;
	// zero means the guard's default (15 seconds). Tests shorten it.
	ProgressEvery time.Duration
}

// Server is an assembled server.
type Server struct {
	MCP   *mcp.Server
	Deps  *kit.Deps
	Tools []registry.Tool // the registered tools, in manifest order
	// Stateless is Options.Stateless: HTTPHandler serves without sessions.
	Stateless  bool
	logger     *slog.Logger
	registered <-chan struct{}
	guard      *guard.Guard
	store      *guard.RedisStore // nil: spent approvals in memory
	toolsets   *toolsets
}

// ApprovalStoreLine is the line printed at start about where spent
// approvals are recorded, and a warning when the shared store does not
// answer now ("" when there is none). No password.
func (s *Server) ApprovalStoreLine(ctx context.Context) (line, warning string) {
	if s.store == nil {
		return "spent approvals are recorded in this process only (AUDIOBOOKSHELF_APPROVAL_STORE=memory): another instance, or a new process, cannot tell that an approval was spent", ""
	}
	line = "spent approvals are recorded in the shared store at " + s.store.Where() + " (AUDIOBOOKSHELF_APPROVAL_STORE)"
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if err := s.store.Ping(ctx); err != nil {
		warning = "the approval store (AUDIOBOOKSHELF_APPROVAL_STORE) at " + s.store.Where() + " does not answer now: guarded calls that come back approved are refused, and nothing is sent, until it does"
	}
	return line, warning
}

// KeyLine is the line printed at start about the state key: its public
// fingerprint (never the key), and whether it is fixed.
func (s *Server) KeyLine(fixed bool) string {
	how := "random for this process (AUDIOBOOKSHELF_STATE_KEY unset): what it seals is refused after a restart and by other instances"
	if fixed {
		how = "from AUDIOBOOKSHELF_STATE_KEY: instances that serve one address must all show the same"
	}
	return "state key fingerprint " + s.guard.KeyFingerprint() + ", " + how
}

// Close releases the connections to the shared approval store.
func (s *Server) Close() error {
	if s.store != nil {
		return s.store.Close()
	}
	return nil
}

// StopAsking ends every question the server is waiting on an answer to (the
// server is shutting down): their calls end saying so, nothing changed.
func (s *Server) StopAsking() { s.guard.StopAsking() }

// Registered is closed once every tool is registered with go-sdk; tools/*
// requests wait for it on their own, so only a measurement needs it.
func (s *Server) Registered() <-chan struct{} { return s.registered }

// New assembles a server from a parsed configuration.
func New(o Options) (*Server, error) {
	cfg := o.Config
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	var store *guard.RedisStore
	if cfg.ApprovalStore != "" {
		var err error
		if store, err = guard.NewRedisStore(cfg.ApprovalStore); err != nil {
			return nil, err
		}
		// Before any approval is given: a store that has no marker yet gets
		// one now, so that it vouches for every approval this server gives
		// (one given before the marker is taken for one given before the
		// store lost its data). When the store does not answer now, the
		// first spend writes it, and ApprovalStoreLine warns.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = store.Ping(ctx)
		cancel()
	}
	gcfg := guard.Config{
		Elicitation: cfg.Elicitation,
		Key:         cfg.StateKey,
		Stateless:   o.Stateless,
		ServerName:  registry.ServerName,
		Logger:      logger,
		Now:         o.Now,
		StateTTL:    o.StateTTL,
		// The Config's field of the same name.
		ProgressEvery: o.ProgressEvery,
	}
	if store != nil {
		gcfg.Store = store
	}
	g, err := guard.New(gcfg)
	if err != nil {
		return nil, err
	}
	deps, err := kit.NewDeps(kit.Options{
		URL: cfg.URL, APIKey: cfg.APIKey, PerPerson: cfg.PerPerson, Timeout: cfg.Timeout, InsecureTLS: cfg.InsecureTLS,
		MaxResultChars: cfg.MaxResultChars, Guard: g, Transport: o.Transport,
	})
	if err != nil {
		return nil, err
	}
	deps.Log = logger
	selected := Select(cfg.ReadOnly, cfg.Toolsets)
	registrable := Select(cfg.ReadOnly, config.AllToolsets())
	// Prompts, resources and completions come with the listening toolset,
	// which is always one step away (features.go).
	feats := newFeatures(deps, logger, cfg.ReadOnly)
	s := mcp.NewServer(&mcp.Implementation{Name: registry.ServerName, Title: registry.ServerTitle, Version: o.Version},
		&mcp.ServerOptions{Instructions: registry.Instructions, Logger: sdkLogger(logger), CompletionHandler: feats.complete,
			// Declared, not inferred from registered tools: they are added in
			// the background (register). listChanged: a session's list
			// changes when enable_toolset turns a toolset on in it (toolsets).
			// No logging: the server sends no log messages to clients (its
			// log is stderr), and 2026-07-28 deprecates it (SEP-2577). go-sdk
			// still answers logging/setLevel from a client of an earlier
			// revision with {} (TestNoLoggingCapability).
			Capabilities: &mcp.ServerCapabilities{
				Tools:   &mcp.ToolCapabilities{ListChanged: true},
				Prompts: &mcp.PromptCapabilities{}, Resources: &mcp.ResourceCapabilities{}, Completions: &mcp.CompletionCapabilities{},
			}})
	view := newToolsets(registrable, selected, deps, logger)
	s.AddReceivingMiddleware(refuseSecondInitialize, refuseMethods(Unoffered, "this server sends no resource updates"), toolsForPerson(registry.All), g.Middleware(), clipToolName, view.listen)
	feats.add(s)
	s.AddSendingMiddleware(g.SendingMiddleware(), view.sendListChanged)
	registered := register(s, view, registrable, deps)
	s.AddReceivingMiddleware(appsMiddleware(view))
	return &Server{MCP: s, Deps: deps, Tools: selected, Stateless: o.Stateless, logger: logger, registered: registered, guard: g, store: store, toolsets: view}, nil
}

// maxToolName is longer than any tool name here; a longer name is unknown.
const maxToolName = 64

// clipToolName answers a tools/call whose tool name is longer than any tool
// has, before go-sdk does: go-sdk's "unknown tool" error quotes the name
// whole, and a client that sends megabytes would get them all back.
func clipToolName(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "tools/call" {
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && p != nil && len(p.Name) > maxToolName {
				return nil, &jsonrpc.Error{
					Code:    jsonrpc.CodeInvalidParams,
					Message: fmt.Sprintf("unknown tool %q… (a name of %d bytes; tool names are at most %d, and tools/list gives them)", clipUTF8(p.Name, maxToolName), len(p.Name), maxToolName),
				}
			}
		}
		return next(ctx, method, req)
	}
}

// clipUTF8 is s cut to at most n bytes, at a character boundary.
func clipUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Select returns the tools that read-only mode and the toolsets allow, as
// tools/list starts with them; nil toolsets means the default tools
// (config.Default in the list stands for them).
func Select(readOnly bool, toolsets []string) []registry.Tool {
	if toolsets == nil {
		toolsets = config.DefaultToolsets()
	}
	byDefault := slices.Contains(toolsets, config.Default)
	var out []registry.Tool
	for _, t := range registry.All {
		if readOnly && !t.ReadOnly {
			continue
		}
		if !slices.Contains(toolsets, t.Toolset) && !(byDefault && t.Default) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// wrap adds what every tool shares: the setup check, per person the
// person the call is made for (whose permissions the generated handler
// checks, kit.Deps.Permit), the one place where a tool's error becomes the
// result a client reads (kit.Result), the result budget (result.Budget: no
// answer longer than AUDIOBOOKSHELF_MAX_RESULT_CHARS reaches the client,
// whatever the tool) and a recover that turns a panic into a tool error
// instead of a crash.
func wrap(t registry.Tool, deps *kit.Deps, logger *slog.Logger) mcp.ToolHandler {
	h := t.Handler(deps)
	shape := result.ShapeOf(t.Name, t.ReadOnly, t.Arguments)
	run := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if err := deps.Ready(t.NeedsAuth); err != nil {
			return nil, err
		}
		if deps.PerPerson {
			p := personOf(req.Extra)
			if p == nil {
				return nil, kit.Errorf(kit.Stated, "This server serves each person with their own Audiobookshelf API key, and this call came without one; nothing was done. Connect over HTTP with Authorization: Bearer and your Audiobookshelf API key.")
			}
			ctx = forPerson(ctx, p)
		}
		return h(kit.WithProgress(ctx, req), req)
	}
	return func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, _ error) {
		defer func() {
			if p := recover(); p != nil {
				logger.Error("tool panicked", "tool", t.Name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{
					Text: fmt.Sprintf("internal error in %s; nothing more is known. The server keeps running; please report this.", t.Name)}}}
			}
		}()
		res, err := run(ctx, req)
		if err != nil {
			res = kit.Result(err)
		}
		return result.Budget(res, result.MaxChars(deps), shape, req.Params.Arguments), nil
	}
}

package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/registry"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/config"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/result"
)

// The discovery tools (tools.yaml's discovery:, registry.Discovery).
const (
	listToolsetsTool  = "list_toolsets"
	enableToolsetTool = "enable_toolset"
	callToolTool      = "call_tool"
)

// toolsets is what each session lists and may call. Every tool that
// read-only mode allows is registered with go-sdk, of every toolset; a
// session lists and calls those it starts with (the configured ones:
// AUDIOBOOKSHELF_TOOLSETS, or the default tools) and those of the
// toolsets it turned on with enable_toolset or call_tool, and call_tool
// runs any registered tool, listed or not, through the same handler a
// direct call runs (wrap: the setup check, the person, the
// argument decoding, the permission, the guard, the error edge and the
// budget).
//
// What a session turned on is held for that session alone and dropped
// when it ends: over stdio the one session, over HTTP each MCP session.
// A request without a session (--stateless, or revision 2026-07-28) keeps
// nothing: enable_toolset answers with the toolset's definitions and says
// so; call_tool runs any tool of any toolset there too.
type toolsets struct {
	start     map[string]bool          // the tools every session starts with
	tools     map[string]registry.Tool // every registered tool, by name
	handlers  map[string]mcp.ToolHandler
	discovery bool // false: every toolset is on from the start
	logger    *slog.Logger

	mu        sync.Mutex
	enabled   map[*mcp.ServerSession]map[string]bool // toolset names
	listening map[*mcp.ServerSession]any             // subscriptions/listen id for tool list changes (2026-07-28)
}

// newToolsets builds the sessions' view over the registrable tools and
// those listed from the start.
func newToolsets(registrable, start []registry.Tool, deps *kit.Deps, logger *slog.Logger) *toolsets {
	v := &toolsets{start: map[string]bool{}, tools: map[string]registry.Tool{}, handlers: map[string]mcp.ToolHandler{},
		logger: logger, enabled: map[*mcp.ServerSession]map[string]bool{}, listening: map[*mcp.ServerSession]any{}}
	for _, t := range start {
		v.start[t.Name] = true
	}
	for _, t := range registrable {
		v.tools[t.Name] = t
		v.handlers[t.Name] = wrap(t, deps, logger)
		if !v.start[t.Name] {
			v.discovery = true
		}
	}
	return v
}

// sessionOf is the request's session, and whether it lasts beyond the
// request: a request over HTTP whose session has no id is served without
// one (stateless), and keeps nothing.
func sessionOf(req mcp.Request) (ss *mcp.ServerSession, lasting bool) {
	ss, _ = req.GetSession().(*mcp.ServerSession)
	if ss == nil {
		return nil, false
	}
	if extra := req.GetExtra(); extra != nil && extra.Header != nil && ss.ID() == "" {
		return ss, false
	}
	return ss, true
}

// listed reports whether a session lists the tool name.
func (v *toolsets) listed(ss *mcp.ServerSession, name string) bool {
	if v.start[name] {
		return true
	}
	if isDiscovery(name) {
		return v.discovery
	}
	t, ok := v.tools[name]
	if !ok {
		return false
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.enabled[ss][t.Toolset]
}

// held is how many sessions have a toolset turned on (tests).
func (v *toolsets) held() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.enabled)
}

// registered reports whether the tool is registered here (read-only mode
// registers no write tool).
func (v *toolsets) registered(name string) bool {
	_, ok := v.tools[name]
	return ok
}

func isDiscovery(name string) bool {
	return slices.ContainsFunc(registry.Discovery, func(t *mcp.Tool) bool { return t.Name == name })
}

// middleware lists what the session lists, and refuses a direct call of a
// registered tool the session does not list yet, naming the toolset that
// holds it.
func (v *toolsets) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/call":
			p, ok := req.GetParams().(*mcp.CallToolParamsRaw)
			if !ok || p == nil {
				break
			}
			ss, lasting := sessionOf(req)
			if t, known := v.tools[p.Name]; known && !v.listed(ss, p.Name) && !isViewCall(ctx) {
				how := fmt.Sprintf("call_tool runs it now, and enable_toolset with toolset %q turns it on in this conversation", t.Toolset)
				if !lasting {
					how = "this server keeps no session, so call it through call_tool"
				}
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
					Message: fmt.Sprintf("tool %q is in toolset %s, which is off here: %s", p.Name, t.Toolset, how)}
			}
		case "tools/list":
			res, err := next(ctx, method, req)
			lr, ok := res.(*mcp.ListToolsResult)
			if err != nil || !ok {
				return res, err
			}
			ss, _ := sessionOf(req)
			out := *lr
			out.Tools = slices.DeleteFunc(slices.Clone(lr.Tools), func(t *mcp.Tool) bool { return !v.listed(ss, t.Name) })
			return &out, nil
		}
		return next(ctx, method, req)
	}
}

// register adds the discovery tools to s, unless every toolset is on.
func (v *toolsets) register(s *mcp.Server, deps *kit.Deps) {
	if !v.discovery {
		return
	}
	handlers := map[string]mcp.ToolHandler{
		listToolsetsTool:  v.listToolsets,
		enableToolsetTool: v.enableToolset,
		callToolTool:      v.callTool,
	}
	for _, d := range registry.Discovery {
		held := *d
		held.InputSchema = registrationSchema
		h := handlers[d.Name]
		shape := result.ShapeOf(d.Name, d.Annotations.ReadOnlyHint, d.InputSchema)
		s.AddTool(&held, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := h(ctx, req)
			if err != nil {
				res = kit.Result(err)
			}
			if d.Name == callToolTool {
				return res, nil // the tool it ran held its answer to the budget
			}
			return result.Budget(res, result.MaxChars(deps), shape, req.Params.Arguments), nil
		})
	}
}

// mayUse reports whether the person of the call (per person) has what the
// tool needs; with one key for everyone the handler checks it.
func mayUse(req *mcp.CallToolRequest, t registry.Tool) bool {
	p := personOf(req.Extra)
	return p == nil || p.Has(t.Permission)
}

// decodeArgs decodes a discovery tool's arguments strictly.
func decodeArgs(raw json.RawMessage, into any) error {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return kit.ArgumentError(fmt.Errorf("arguments: %v", err))
	}
	return nil
}

type toolsetEntry struct {
	Name        string   `json:"name"`
	State       string   `json:"state"`
	Description string   `json:"description"`
	Tools       []string `json:"tools"` // names: enable_toolset gives what each does and takes
	LeftOut     string   `json:"left_out,omitempty"`
}

// toolsetTools are the tools of a toolset this call may use, in the
// manifest's order, and how many read-only mode or the person's
// permissions leave out.
func (v *toolsets) toolsetTools(req *mcp.CallToolRequest, toolset string) (tools []registry.Tool, readOnlyOut, permissionOut int) {
	for _, t := range registry.All {
		if t.Toolset != toolset {
			continue
		}
		switch t2, ok := v.tools[t.Name]; {
		case !ok:
			readOnlyOut++
		case !mayUse(req, t2):
			permissionOut++
		default:
			tools = append(tools, t2)
		}
	}
	return tools, readOnlyOut, permissionOut
}

func leftOut(readOnlyOut, permissionOut int) string {
	var s []string
	if readOnlyOut > 0 {
		s = append(s, fmt.Sprintf("%d tool(s) that change Audiobookshelf: this server is read-only (AUDIOBOOKSHELF_READ_ONLY)", readOnlyOut))
	}
	if permissionOut > 0 {
		s = append(s, fmt.Sprintf("%d tool(s) that need a permission your Audiobookshelf user lacks", permissionOut))
	}
	return strings.Join(s, "; ")
}

func (v *toolsets) listToolsets(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a struct{}
	if err := decodeArgs(req.Params.Arguments, &a); err != nil {
		return nil, err
	}
	ss, lasting := sessionOf(req)
	var out []toolsetEntry
	for _, ts := range registry.Toolsets {
		tools, ro, pm := v.toolsetTools(req, ts.Name)
		e := toolsetEntry{Name: ts.Name, Description: ts.Description, LeftOut: leftOut(ro, pm)}
		on := 0
		for _, t := range tools {
			e.Tools = append(e.Tools, t.Name)
			if v.listed(ss, t.Name) {
				on++
			}
		}
		switch {
		case on == 0:
			e.State = "off"
		case on == len(tools):
			e.State = "on"
		default:
			e.State = "partly on (the default tools)"
		}
		out = append(out, e)
	}
	how := "call_tool {name, arguments} runs any tool listed here right away; enable_toolset gives a toolset's arguments and turns it on in this conversation."
	if !lasting {
		how = "This server keeps no session: run any tool of any toolset with call_tool (enable_toolset gives its tools' arguments)."
	}
	return result.JSONResult(map[string]any{"toolsets": out, "next": how})
}

func (v *toolsets) enableToolset(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a struct {
		Toolset *string `json:"toolset"`
	}
	if err := decodeArgs(req.Params.Arguments, &a); err != nil {
		return nil, err
	}
	names := config.AllToolsets()
	if a.Toolset == nil || !slices.Contains(names, *a.Toolset) {
		got := "is missing"
		if a.Toolset != nil {
			got = fmt.Sprintf("%q is not a toolset", clipUTF8(*a.Toolset, 64))
		}
		return nil, kit.ArgumentError(fmt.Errorf("toolset: %s; one of %s (list_toolsets)", got, strings.Join(names, ", ")))
	}
	name := *a.Toolset
	tools, ro, pm := v.toolsetTools(req, name)
	type def struct {
		Name        string            `json:"name"`
		Description string            `json:"description"`
		Args        map[string]string `json:"args"`
	}
	defs := make([]def, 0, len(tools))
	// An argument every earlier tool of the answer that takes it takes just
	// the same is said once, at its first.
	described := map[string]string{} // argument (with its "?") → its summary
	differs := map[string]bool{}
	for _, t := range tools {
		args := argSummary(t.Definition.InputSchema)
		for k, v := range args {
			was, seen := described[k]
			switch {
			case !seen:
				described[k] = v
			case was != v:
				differs[k] = true
			case !differs[k]:
				args[k] = sameAsAbove
			}
		}
		defs = append(defs, def{t.Name, t.Definition.Description, args})
	}
	ss, lasting := sessionOf(req)
	answer := map[string]any{"toolset": name, "tools": defs}
	if lo := leftOut(ro, pm); lo != "" {
		answer["left_out"] = lo
	}
	switch {
	case !lasting:
		answer["note"] = "Run these tools now with call_tool {name, arguments} (this server keeps no session, so nothing stays turned on)."
	case len(tools) == 0:
		answer["note"] = "None of its tools can be used here."
	default:
		answer["note"] = callNow
		// Told once, and only when the list it sees changes.
		if slices.ContainsFunc(tools, func(t registry.Tool) bool { return !v.listed(ss, t.Name) }) && v.enable(ss, name) {
			v.notifyListChanged(ctx, ss)
		}
	}
	return result.JSONResult(answer)
}

// callNow is enable_toolset's one line for a toolset on in the
// conversation: the tools run through call_tool at once, whether or not
// the client reloads its tool list.
const callNow = "On in this conversation: run these tools now with call_tool {name, arguments}, or directly once your tool list shows them."

// sameAsAbove stands, in enable_toolset's answer, for the summary of an
// argument that an earlier tool of the answer takes just the same.
const sameAsAbove = "as above"

// argSummary is a tool's input schema as a model needs it to call the tool
// through call_tool, in a few tokens: each argument (a "?" after an
// optional one's name) with its type, allowed values or range, default and
// description. The argument checks say the rest when a call is refused.
func argSummary(schema any) map[string]string {
	b, err := json.Marshal(schema)
	if err != nil {
		return nil
	}
	type prop struct {
		Type        any      `json:"type"`
		Enum        []any    `json:"enum"`
		Minimum     *float64 `json:"minimum"`
		Maximum     *float64 `json:"maximum"`
		MinLength   *int     `json:"minLength"`
		MaxLength   *int     `json:"maxLength"`
		MinItems    *int     `json:"minItems"`
		MaxItems    *int     `json:"maxItems"`
		Default     any      `json:"default"`
		Description string   `json:"description"`
		Items       *struct {
			Type       any                        `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		} `json:"items"`
	}
	var sc struct {
		Properties map[string]prop `json:"properties"`
		Required   []string        `json:"required"`
	}
	if json.Unmarshal(b, &sc) != nil {
		return nil
	}
	out := make(map[string]string, len(sc.Properties))
	for name, p := range sc.Properties {
		var w strings.Builder
		typ := fmt.Sprint(p.Type)
		if p.Type == nil {
			typ = "any"
		}
		if p.Items != nil {
			typ = fmt.Sprintf("array of %v", p.Items.Type)
			if len(p.Items.Properties) > 0 { // an object's fields, "?" after an optional one
				fields := make([]string, 0, len(p.Items.Properties))
				for f := range p.Items.Properties {
					if !slices.Contains(p.Items.Required, f) {
						f += "?"
					}
					fields = append(fields, f)
				}
				slices.Sort(fields)
				typ = "array of {" + strings.Join(fields, ", ") + "}"
			}
		}
		w.WriteString(typ)
		if len(p.Enum) > 0 {
			vals := make([]string, len(p.Enum))
			for i, e := range p.Enum {
				vals[i] = fmt.Sprint(e)
			}
			w.WriteString(" " + strings.Join(vals, "|"))
		}
		span := func(what string, lo, hi any) { // nothing when neither bound is set
			if lo != nil || hi != nil {
				fmt.Fprintf(&w, " %s%s..%s", what, orEmpty(lo), orEmpty(hi))
			}
		}
		span("", ptrVal(p.Minimum), ptrVal(p.Maximum))
		span("length ", ptrVal(p.MinLength), ptrVal(p.MaxLength))
		span("items ", ptrVal(p.MinItems), ptrVal(p.MaxItems))
		if p.Default != nil {
			fmt.Fprintf(&w, " = %v", p.Default)
		}
		if p.Description != "" {
			w.WriteString(": " + p.Description)
		}
		key := name
		if !slices.Contains(sc.Required, name) {
			key += "?"
		}
		out[key] = w.String()
	}
	return out
}

func ptrVal[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

func orEmpty(v any) string {
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

// enable turns a toolset on for ss; false when it was on. The first
// toolset a session turns on starts a watch that drops its set when the
// session ends.
func (v *toolsets) enable(ss *mcp.ServerSession, toolset string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	set, ok := v.enabled[ss]
	if !ok {
		set = map[string]bool{}
		v.enabled[ss] = set
		go func() {
			_ = ss.Wait()
			v.mu.Lock()
			delete(v.enabled, ss)
			v.mu.Unlock()
		}()
	}
	if set[toolset] {
		return false
	}
	set[toolset] = true
	return true
}

func (v *toolsets) callTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a struct {
		Name      *string         `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := decodeArgs(req.Params.Arguments, &a); err != nil {
		return nil, err
	}
	if a.Name == nil || *a.Name == "" {
		return nil, kit.ArgumentError(fmt.Errorf("name: is missing; give a tool's name (list_toolsets lists them)"))
	}
	name := clipUTF8(*a.Name, maxToolName)
	if isDiscovery(name) {
		return nil, kit.ArgumentError(fmt.Errorf("name: %s is called directly, not through call_tool", name))
	}
	t, ok := v.tools[name]
	if !ok {
		if slices.ContainsFunc(registry.All, func(t registry.Tool) bool { return t.Name == name }) {
			return nil, kit.Errorf(kit.Unchanged, "%s changes Audiobookshelf, and this server is read-only (AUDIOBOOKSHELF_READ_ONLY=true): it is not offered.", name)
		}
		return nil, kit.ArgumentError(fmt.Errorf("name: %q is not a tool of this server (list_toolsets lists them)", name))
	}
	// A tool of a toolset that is off runs all the same: the model reached
	// it in one step, whatever its client does with list changes or
	// however its gateway maps requests to sessions. Where a conversation
	// lasts, the toolset is turned on as enable_toolset would turn it on.
	if ss, lasting := sessionOf(req); lasting && !v.listed(ss, name) && mayUse(req, t) && v.enable(ss, t.Toolset) {
		v.notifyListChanged(ctx, ss)
	}
	args := a.Arguments
	if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
		args = json.RawMessage("{}")
	}
	inner := &mcp.CallToolRequest{Session: req.Session, Extra: req.Extra, Params: &mcp.CallToolParamsRaw{
		Meta: req.Params.Meta, Name: name, Arguments: args,
		InputResponses: req.Params.InputResponses, RequestState: req.Params.RequestState,
	}}
	return v.handlers[name](ctx, inner)
}

// listChangedKey marks the progress notification that notifyListChanged
// sends, for sendListChanged to turn into notifications/tools/list_changed.
// Its value is the subscription id to stamp on it (nil: none).
type listChangedKey struct{}

// notifyListChanged tells one session that its tool list changed. go-sdk
// sends notifications/tools/list_changed only to every session at once
// (when a tool is added to the server), so the notification goes out
// through the session's own send path, as sendListChanged rewrites it.
// It travels with the call that turned the toolset on (on its stream, over
// HTTP), so the client has it before the call's answer.
//
// A session of 2026-07-28 or newer is told only on the subscriptions/listen
// stream it opened for tool list changes (the notification carries that
// stream's id, as that revision has it); without one it is not told, and
// its next tools/list shows the toolset.
func (v *toolsets) notifyListChanged(ctx context.Context, ss *mcp.ServerSession) {
	var mark any = true
	if p := ss.InitializeParams(); p != nil && p.ProtocolVersion >= statelessOnly {
		v.mu.Lock()
		id, ok := v.listening[ss]
		v.mu.Unlock()
		if !ok {
			return
		}
		mark = subscription{id}
	}
	if err := ss.NotifyProgress(context.WithValue(ctx, listChangedKey{}, mark), &mcp.ProgressNotificationParams{}); err != nil {
		v.logger.Warn("could not send notifications/tools/list_changed", "error", err)
	}
}

// subscription is the id of a subscriptions/listen request, as a
// notification on its stream carries it.
type subscription struct{ id any }

// listen holds, while a session's subscriptions/listen request lasts, the
// id that go-sdk acknowledged tool list changes on (sendListChanged reads
// it from the acknowledgement), and drops it when the request ends.
func (v *toolsets) listen(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "subscriptions/listen" {
			return next(ctx, method, req)
		}
		defer func() {
			if ss, _ := req.GetSession().(*mcp.ServerSession); ss != nil {
				v.mu.Lock()
				delete(v.listening, ss)
				v.mu.Unlock()
			}
		}()
		return next(ctx, method, req)
	}
}

// sendListChanged is a sending middleware: it turns notifyListChanged's
// marked notification into notifications/tools/list_changed, and drops
// the ones go-sdk sends itself when the tools are registered at start (the
// list a session sees does not change then). It notes which sessions
// listen for tool list changes (2026-07-28) from go-sdk's acknowledgement.
func (v *toolsets) sendListChanged(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "notifications/tools/list_changed":
			return nil, nil
		case "notifications/subscriptions/acknowledged":
			ss, _ := req.GetSession().(*mcp.ServerSession)
			if p, ok := req.GetParams().(*mcp.SubscriptionsAcknowledgedParams); ok && ss != nil && p.Notifications.ToolsListChanged {
				if id, ok := p.Meta[mcp.MetaKeySubscriptionID]; ok {
					v.mu.Lock()
					v.listening[ss] = id
					v.mu.Unlock()
				}
			}
		case "notifications/progress":
			if mark := ctx.Value(listChangedKey{}); mark != nil {
				ss, _ := req.GetSession().(*mcp.ServerSession)
				params := &mcp.ToolListChangedParams{}
				if sub, ok := mark.(subscription); ok {
					params.Meta = mcp.Meta{mcp.MetaKeySubscriptionID: sub.id}
				}
				return next(ctx, "notifications/tools/list_changed", &mcp.ServerRequest[*mcp.ToolListChangedParams]{Session: ss, Params: params})
			}
		}
		return next(ctx, method, req)
	}
}

// Discovers reports whether tools/list holds the discovery tools with
// these settings: some tool that read-only mode allows is not listed from
// the start.
func Discovers(readOnly bool, toolsets []string) bool {
	return len(Select(readOnly, toolsets)) < len(Select(readOnly, config.AllToolsets()))
}

// Listed are the names tools/list starts with, with these settings: the
// selected tools and, when some are left, the discovery tools.
func Listed(readOnly bool, toolsets []string) []string {
	var out []string
	for _, t := range Select(readOnly, toolsets) {
		out = append(out, t.Name)
	}
	if Discovers(readOnly, toolsets) {
		for _, d := range registry.Discovery {
			out = append(out, d.Name)
		}
	}
	return out
}

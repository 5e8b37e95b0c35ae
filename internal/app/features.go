package app

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/registry"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/naming"
)

// Prompts, resources and completions, as tools.yaml declares them
// (gen/registry's Prompts and Resources): registered here whatever
// toolsets are on, since every toolset's tools are one enable_toolset or
// call_tool away. What a prompt says is written by a function of its
// toolset's package; a resource is a read tool's answer (or a cover), got
// through the same wrap as a tool call, so per-person mode, the result
// budget and the error edge hold as they do for tools. Names are resolved
// and completed by tools/kit's one resolver, with the key of the person
// asking. Nothing here names a prompt, a resource or a tool.

// features serves prompts, resources and completions.
type features struct {
	deps   *kit.Deps
	logger *slog.Logger
	// tools are the wrapped handlers of the resources' tools.
	tools map[string]mcp.ToolHandler
	// readOnly: the server serves no write tool (AUDIOBOOKSHELF_READ_ONLY),
	// so a prompt names none.
	readOnly bool
}

func newFeatures(deps *kit.Deps, logger *slog.Logger, readOnly bool) *features {
	f := &features{deps: deps, logger: logger, tools: map[string]mcp.ToolHandler{}, readOnly: readOnly}
	for _, r := range registry.Resources {
		for _, t := range registry.All {
			if t.Name == r.Tool {
				f.tools[t.Name] = wrap(t, deps, logger)
			}
		}
	}
	return f
}

// personCtx is ctx for the person of the request in per-person mode; ok
// false when a per-person request came without one.
func (f *features) personCtx(ctx context.Context, extra *mcp.RequestExtra) (context.Context, bool) {
	if !f.deps.PerPerson {
		return ctx, true
	}
	p := personOf(extra)
	if p == nil {
		return ctx, false
	}
	return forPerson(ctx, p), true
}

// add registers the registry's prompts and resources with s.
func (f *features) add(s *mcp.Server) {
	for i := range registry.Prompts {
		p := &registry.Prompts[i]
		s.AddPrompt(p.Definition, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return f.getPrompt(ctx, p, req)
		})
	}
	for i := range registry.Resources {
		r := &registry.Resources[i]
		read := func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return f.readResource(ctx, r, req)
		}
		if r.Resource != nil {
			s.AddResource(r.Resource, read)
		} else {
			s.AddResourceTemplate(r.Template, read)
		}
	}
}

// promptError is the error of prompts/get for bad arguments: a tool
// error's text, without the outcome's sentence (a prompt changes nothing).
func promptError(err error) error {
	msg := err.Error()
	if ke, ok := errors.AsType[*kit.Error](err); ok {
		msg = ke.Text
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
}

// getPrompt resolves the prompt's arguments (the names among them into
// ids) and has its toolset's function write the text.
func (f *features) getPrompt(ctx context.Context, p *registry.Prompt, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	ctx, ok := f.personCtx(ctx, req.Extra)
	if !ok {
		return nil, promptError(errors.New("this server serves each person with their own Audiobookshelf API key, and this request came without one"))
	}
	args, err := naming.NewPromptArgs(ctx, f.deps, p.Args, req.Params.Arguments, f.readOnly)
	if err != nil {
		return nil, promptError(err)
	}
	text, err := p.Text(ctx, f.deps, args)
	if err != nil {
		return nil, promptError(err)
	}
	return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}}}, nil
}

// templateValue is the value of a template's one variable in uri; ok
// false when uri is not the template's, or the value is empty or holds a
// path, a query or a fragment.
func templateValue(template, name, uri string) (string, bool) {
	before, after, found := strings.Cut(template, "{"+name+"}")
	if !found {
		return "", false
	}
	rest, ok := strings.CutPrefix(uri, before)
	if !ok {
		return "", false
	}
	v, ok := strings.CutSuffix(rest, after)
	if !ok || v == "" || strings.ContainsAny(v, "/?#") {
		return "", false
	}
	return v, true
}

// readResource reads a resource: its tool's answer, as JSON, or its image
// as a blob.
func (f *features) readResource(ctx context.Context, r *registry.Resource, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	args := map[string]any{}
	if r.Template != nil {
		v, ok := templateValue(r.Template.URITemplate, r.Var, uri)
		if !ok {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		args[r.Param] = v
	} else if uri != r.Resource.URI {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	raw, _ := json.Marshal(args)
	res, err := f.tools[r.Tool](ctx, &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: r.Tool, Arguments: raw}, Extra: req.Extra})
	if err != nil {
		return nil, err
	}
	var text string
	var img *mcp.ImageContent
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			text += c.Text
		case *mcp.ImageContent:
			img = c
		}
	}
	if res.IsError {
		// An id Audiobookshelf does not have, or an item without a cover
		// (Audiobookshelf answers 404 for both).
		if strings.Contains(text, "404") {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: text}
	}
	if img != nil {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: img.MIMEType, Blob: img.Data}}}, nil
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: text}}}, nil
}

// complete answers completion/complete for the prompts' arguments and the
// templates' variables, as tools.yaml declares them; anything else gets
// no values.
func (f *features) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	none := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}
	ctx, ok := f.personCtx(ctx, req.Extra)
	if !ok || req.Params == nil || req.Params.Ref == nil {
		return none, nil
	}
	p := req.Params
	var context map[string]string
	if p.Context != nil {
		context = p.Context.Arguments
	}
	var (
		c   naming.Completion
		err error
	)
	switch p.Ref.Type {
	case "ref/prompt":
		i := promptIndex(p.Ref.Name)
		if i < 0 {
			return none, nil
		}
		c, err = naming.CompletePrompt(ctx, f.deps, registry.Prompts[i].Args, p.Argument.Name, p.Argument.Value, context)
	case "ref/resource":
		i := templateIndex(p.Ref.URI)
		if i < 0 || registry.Resources[i].Var != p.Argument.Name || registry.Resources[i].Names == "" {
			return none, nil
		}
		c, err = naming.CompleteIDs(ctx, f.deps, registry.Resources[i].Names, p.Argument.Value, "")
	default:
		return none, nil
	}
	if err != nil {
		// A name that is not there (the library of the context) or a
		// failed read: no values, and the log says why.
		f.logger.Info("completion found nothing", "ref", p.Ref.Name+p.Ref.URI, "argument", p.Argument.Name, "error", err.Error())
		return none, nil
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: c.Values, Total: c.Total, HasMore: c.HasMore()}}, nil
}

func promptIndex(name string) int {
	for i := range registry.Prompts {
		if registry.Prompts[i].Definition.Name == name {
			return i
		}
	}
	return -1
}

func templateIndex(uri string) int {
	for i := range registry.Resources {
		if t := registry.Resources[i].Template; t != nil && t.URITemplate == uri {
			return i
		}
	}
	return -1
}

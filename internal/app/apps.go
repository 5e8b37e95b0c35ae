package app

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/registry"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/views"
)

// MCP Apps (io.modelcontextprotocol/ui, SEP-1865): a tool with a view
// (tools.yaml `view:`) is shown to a client that declares the extension
// with its view's resource URI (_meta.ui.resourceUri) and its output
// schema, and answers that client with structured content beside the text:
// the same JSON object, which the host hands to the view. The views are
// served as ui:// resources (views/dist, embedded). A tool marked
// for_views (the cover) is listed to such a client for the views alone
// (visibility app), and admitted when its toolset is off.
//
// Every other client sees none of it: tools/list, resources/list and every
// answer are what they were without views.

// appsClient reports whether the request's client declared the extension
// with the views' media type: on 2026-07-28 in the request's _meta, before
// it in initialize.
func appsClient(req mcp.Request) bool {
	r, ok := req.(interface {
		ClientCapabilities() *mcp.ClientCapabilities
	})
	if !ok {
		return false
	}
	caps := r.ClientCapabilities()
	if caps == nil {
		return false
	}
	ext, ok := caps.Extensions[views.Extension].(map[string]any)
	if !ok {
		return false
	}
	types, _ := ext["mimeTypes"].([]any)
	return slices.Contains(types, any(views.MIMEType))
}

// viewTools are the tools with a view or for_views, by name.
func viewTools() map[string]registry.Tool {
	out := map[string]registry.Tool{}
	for _, t := range registry.All {
		if t.View != "" || t.ForViews {
			out[t.Name] = t
		}
	}
	return out
}

// viewResourceMeta is a view's resource _meta: its content security
// policy names no outside origin (no connections, no resources from
// elsewhere: a cover comes as data through the host), and it asks for a
// border.
var viewResourceMeta = mcp.Meta{"ui": map[string]any{
	"csp":           map[string]any{"connectDomains": []string{}, "resourceDomains": []string{}},
	"prefersBorder": true,
}}

// viewResources are the views as resources/list shows them.
func viewResources() []*mcp.Resource {
	var out []*mcp.Resource
	for _, n := range views.Names() {
		out = append(out, &mcp.Resource{URI: views.URI(n), Name: n, MIMEType: views.MIMEType, Meta: viewResourceMeta})
	}
	return out
}

// appsMiddleware adds the views for a client that declares the extension.
// It stands outside the toolsets' middleware: tools/list comes to it as
// the session lists it.
func appsMiddleware(v *toolsets) mcp.Middleware {
	tools := viewTools()
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case "resources/read":
				// A view is read by its URI whoever asks: nothing else has a
				// ui:// URI, and a client without the extension asks for none.
				if p, ok := req.GetParams().(*mcp.ReadResourceParams); ok && p != nil {
					if name, ok := views.NameOf(p.URI); ok {
						html, _ := views.HTML(name)
						return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
							URI: p.URI, MIMEType: views.MIMEType, Text: string(html), Meta: viewResourceMeta}}}, nil
					}
				}
				return next(ctx, method, req)
			}
			if !appsClient(req) {
				return next(ctx, method, req)
			}
			switch method {
			case "tools/list":
				res, err := next(ctx, method, req)
				lr, ok := res.(*mcp.ListToolsResult)
				if err != nil || !ok {
					return res, err
				}
				out := *lr
				out.Tools = make([]*mcp.Tool, 0, len(lr.Tools)+1)
				listed := map[string]bool{}
				for _, d := range lr.Tools {
					listed[d.Name] = true
					if t, ok := tools[d.Name]; ok && t.View != "" {
						c := *d
						c.Meta = mcp.Meta{"ui": map[string]any{"resourceUri": views.URI(t.View)}}
						c.OutputSchema = t.OutputSchema
						d = &c
					}
					out.Tools = append(out.Tools, d)
				}
				if lr.NextCursor == "" {
					for _, t := range registry.All {
						if t.ForViews && !listed[t.Name] && v.registered(t.Name) {
							c := *t.Definition
							c.Meta = mcp.Meta{"ui": map[string]any{"visibility": []string{"app"}}}
							out.Tools = append(out.Tools, &c)
						}
					}
				}
				return &out, nil
			case "resources/list":
				res, err := next(ctx, method, req)
				lr, ok := res.(*mcp.ListResourcesResult)
				if err != nil || !ok || lr.NextCursor != "" {
					return res, err
				}
				out := *lr
				out.Resources = append(slices.Clone(lr.Resources), viewResources()...)
				return &out, nil
			case "tools/call":
				p, ok := req.GetParams().(*mcp.CallToolParamsRaw)
				if !ok || p == nil {
					break
				}
				t, ok := tools[p.Name]
				if !ok {
					break
				}
				if t.ForViews {
					ctx = withViewCall(ctx)
				}
				res, err := next(ctx, method, req)
				if cr, ok := res.(*mcp.CallToolResult); ok && err == nil && t.View != "" {
					structure(cr)
				}
				return res, err
			}
			return next(ctx, method, req)
		}
	}
}

// structure puts an answer's JSON object text beside it as its structured
// content: a result of one text that is a JSON object, not an error.
func structure(r *mcp.CallToolResult) {
	if r.IsError || r.StructuredContent != nil || len(r.Content) != 1 {
		return
	}
	tc, ok := r.Content[0].(*mcp.TextContent)
	if !ok {
		return
	}
	b := bytes.TrimSpace([]byte(tc.Text))
	if len(b) == 0 || b[0] != '{' || !json.Valid(b) {
		return
	}
	r.StructuredContent = json.RawMessage(b)
}

type viewCallKey struct{}

// withViewCall marks a call of a for_views tool by a client with the
// extension: the toolsets admit it with its toolset off.
func withViewCall(ctx context.Context) context.Context {
	return context.WithValue(ctx, viewCallKey{}, true)
}

func isViewCall(ctx context.Context) bool {
	b, _ := ctx.Value(viewCallKey{}).(bool)
	return b
}

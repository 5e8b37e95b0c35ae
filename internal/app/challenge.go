package app

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// How a client that reached the endpoint without the right credentials is
// told what to send. The 401 carries an RFC 6750 challenge whose
// error_description names the header. Clients with OAuth support (mcp-remote,
// the MCP Inspector, SDK clients given an auth provider) then ask the OAuth
// discovery and registration endpoints; this server does not use OAuth, so
// each of those answers 404 with a JSON error_description that names the
// header again. That body is what such a client shows when its OAuth attempt
// ends (mcp-remote: "Dynamic Client Registration rejected (HTTP 404): ...").

// authHelp is what a client must send, for one way of authenticating. The
// challenge texts go into a quoted header value: printable ASCII without
// '"' or '\' (RFC 6750 §3).
type authHelp struct {
	// missing and invalid are the error_description of a 401 without a
	// bearer token and with one that is not accepted.
	missing, invalid string
	// discovery is the error_description of the OAuth endpoints' 404.
	discovery string
}

// sharedTokenHelp: AUDIOBOOKSHELF_MCP_TOKEN, one token for every client.
var sharedTokenHelp = authHelp{
	missing:   "Send the header Authorization: Bearer TOKEN, where TOKEN is the value of AUDIOBOOKSHELF_MCP_TOKEN on the server. This server does not use OAuth.",
	invalid:   "The bearer token is not the one set in AUDIOBOOKSHELF_MCP_TOKEN on the server. Send the header Authorization: Bearer TOKEN with that value. This server does not use OAuth.",
	discovery: "This MCP server does not use OAuth: there is no authorization server and nothing to register. Send the header Authorization: Bearer TOKEN on every request to " + MCPPath + ", where TOKEN is the value of AUDIOBOOKSHELF_MCP_TOKEN on the server (mcp-remote: --header \"Authorization: Bearer TOKEN\").",
}

// perPersonHelp: each person's own Audiobookshelf API key
// (AUDIOBOOKSHELF_MCP_AUTH per person).
var perPersonHelp = authHelp{
	missing:   "Send your own Audiobookshelf API key as the header Authorization: Bearer KEY (an Audiobookshelf admin makes one under Settings, API Keys). This server does not use OAuth.",
	invalid:   "Audiobookshelf does not accept the API key sent as the bearer token. Send your own Audiobookshelf API key as the header Authorization: Bearer KEY. This server does not use OAuth.",
	discovery: "This MCP server does not use OAuth: there is no authorization server and nothing to register. Send your own Audiobookshelf API key as the header Authorization: Bearer KEY on every request to " + MCPPath + " (an Audiobookshelf admin makes one under Settings, API Keys, for the user it acts for; mcp-remote: --header \"Authorization: Bearer KEY\").",
}

// unauthorized answers 401 with the challenge for a request that sent no
// bearer token (missing: error invalid_request) or one that was not
// accepted (invalid_token), and body as the text.
func unauthorized(w http.ResponseWriter, help authHelp, missing bool, body string) {
	code, desc := "invalid_token", help.invalid
	if missing {
		code, desc = "invalid_request", help.missing
	}
	w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm="audiobookshelf-mcp", error=%q, error_description=%q`, code, desc))
	// The body is not read: closing the connection spares the server
	// draining it before it answers.
	w.Header().Set("Connection", "close")
	http.Error(w, body, http.StatusUnauthorized)
}

// oauthPaths are where OAuth clients look for protected resource metadata
// (RFC 9728, at the root and with the endpoint's path), authorization
// server metadata (RFC 8414, OpenID Connect discovery, in the places
// clients try) and the default authorization, token and registration
// endpoints (RFC 7591). A pattern ending in "/" takes every path below it.
var oauthPaths = []string{
	"/.well-known/oauth-protected-resource",
	"/.well-known/oauth-protected-resource/",
	"/.well-known/oauth-authorization-server",
	"/.well-known/oauth-authorization-server/",
	"/.well-known/openid-configuration",
	"/.well-known/openid-configuration/",
	MCPPath + "/.well-known/openid-configuration",
	MCPPath + "/.well-known/oauth-authorization-server",
	MCPPath + "/.well-known/oauth-protected-resource",
	"/register",
	"/authorize",
	"/token",
}

// handleOAuthDiscovery answers every path of oauthPaths on mux with 404 and
// a JSON body whose error_description says what to send instead.
func handleOAuthDiscovery(mux *http.ServeMux, help authHelp) {
	body, _ := json.Marshal(map[string]string{"error": "invalid_request", "error_description": help.discovery})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusNotFound)
		w.Write(body)
	})
	for _, p := range oauthPaths {
		mux.Handle(p, h)
	}
}

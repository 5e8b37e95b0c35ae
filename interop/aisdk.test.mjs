// The AI SDK's MCP client (@ai-sdk/mcp, pinned in package-lock.json) against
// the binary with its default options, over stdio, --http and --http
// --stateless: it speaks 2026-07-28 on each (server/discover first, no
// fallback to initialize), lists the tools, reads, and a guarded call goes
// through the dialog (input_required, answered by its elicitation handler):
// approved, the playlist is gone; declined, nothing changes. Without a
// handler it gets the two-call token.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createMCPClient, ElicitationRequestSchema } from "@ai-sdk/mcp";
import { StdioMCPTransport } from "@ai-sdk/mcp/mcp-stdio";
import { binary, startHTTP, text } from "./clients.mjs";
import { ALL, DEFAULT_TOOLS, PLAYLIST, limit } from "./suite.mjs";

// env: extra environment for the server (ALL for the guarded calls, which
// call delete_playlist directly).
async function connect(transport, { elicit, env = {} } = {}) {
  let server;
  let tr;
  if (transport === "stdio") {
    tr = new StdioMCPTransport({ command: binary, args: ["--demo"], env: { PATH: process.env.PATH, ...env }, stderr: "pipe" });
  } else {
    server = await startHTTP({ stateless: transport === "http-stateless", env });
    tr = { type: "http", url: server.url };
  }
  let client;
  try {
    // The defaults, but for the capability a client with a dialog declares.
    client = await createMCPClient({ transport: tr, clientName: "interop-ai-sdk", ...(elicit ? { capabilities: { elicitation: {} } } : {}) });
  } catch (err) {
    if (server) await server.stop();
    throw err;
  }
  if (elicit) client.onElicitationRequest(ElicitationRequestSchema, (req) => elicit(req.params));
  return {
    client,
    async close() {
      await client.close();
      if (server) assert.equal(await server.stop(), 0, server.stderr());
    },
  };
}

async function playlistExists(client) {
  const res = await client.callTool({ name: "get_playlist", arguments: { playlist_id: PLAYLIST } });
  if (res.isError) assert.match(text(res), /404/);
  return !res.isError;
}

for (const transport of ["stdio", "http", "http-stateless"]) {
  const name = `@ai-sdk/mcp over ${transport}`;

  test(`${name}: 2026-07-28, lists the default tools, and reads`, limit, async () => {
    const { client, close } = await connect(transport);
    try {
      assert.equal(client.initializeResult.protocolVersion, "2026-07-28");
      const { tools } = await client.listTools();
      assert.equal(tools.length, DEFAULT_TOOLS);
      const res = await client.callTool({ name: "list_libraries", arguments: {} });
      assert.ok(!res.isError, text(res));
      assert.match(text(res), /"name":"Books"/);
    } finally {
      await close();
    }
  });

  test(`${name}: a guarded call the person approves happens`, limit, async () => {
    let asked = 0;
    const { client, close } = await connect(transport, {
      env: ALL,
      elicit: async (params) => {
        asked++;
        assert.match(params.message, new RegExp(PLAYLIST));
        return { action: "accept", content: { approve: true } };
      },
    });
    try {
      const res = await client.callTool({ name: "delete_playlist", arguments: { playlist_id: PLAYLIST } });
      assert.ok(!res.isError, text(res));
      assert.equal(asked, 1);
      assert.match(text(res), /"deleted":true/);
      assert.equal(await playlistExists(client), false, "the playlist must be gone");
    } finally {
      await close();
    }
  });

  test(`${name}: a guarded call the person declines changes nothing`, limit, async () => {
    let asked = 0;
    const { client, close } = await connect(transport, { env: ALL, elicit: async () => { asked++; return { action: "decline" }; } });
    try {
      const res = await client.callTool({ name: "delete_playlist", arguments: { playlist_id: PLAYLIST } });
      assert.equal(asked, 1);
      assert.ok(res.isError);
      assert.match(text(res), /Nothing was changed/);
      assert.equal(await playlistExists(client), true);
    } finally {
      await close();
    }
  });

  test(`${name}: without an elicitation handler, the two-call token, naming the client`, limit, async () => {
    const { client, close } = await connect(transport, { env: ALL });
    try {
      const first = await client.callTool({ name: "delete_playlist", arguments: { playlist_id: PLAYLIST } });
      const token = first.structuredContent?.confirm_token;
      assert.ok(token, text(first));
      assert.match(text(first), /the client did not declare elicitation \(form\) support \(the client this server sees calls itself "interop-ai-sdk/);
      assert.equal(await playlistExists(client), true, "the first call must change nothing");
      const second = await client.callTool({ name: "delete_playlist", arguments: { playlist_id: PLAYLIST, confirm_token: token } });
      assert.ok(!second.isError, text(second));
      assert.equal(await playlistExists(client), false);
    } finally {
      await close();
    }
  });
}

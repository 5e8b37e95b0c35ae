// The discovery tools with the official TypeScript clients and the AI SDK,
// against the binary with no toolsets set (the default tools and the
// discovery tools): list_toolsets shows a toolset off; enable_toolset turns
// it on, and where the client keeps a session of 2025-11-25 it is told with
// notifications/tools/list_changed and lists the toolset's tools, which then
// work in the same session; call_tool reaches any tool, listed or not, on
// every revision and transport, and turns its toolset on where there is a
// session.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { createMCPClient } from "@ai-sdk/mcp";
import { StdioMCPTransport } from "@ai-sdk/mcp/mcp-stdio";
import { binary, connect, flavors, protocolOf, startHTTP, text } from "./clients.mjs";
import { PLAYLIST, limit } from "./suite.mjs";

const names = (tools) => tools.map((t) => t.name);

function toolsetEntry(res, name) {
  assert.ok(!res.isError, text(res));
  const entry = JSON.parse(text(res)).toolsets.find((t) => t.name === name);
  assert.ok(entry, text(res));
  return entry;
}

// changes counts the notifications/tools/list_changed a client receives.
function watchChanges(flavor, client) {
  const seen = { n: 0, waiters: [] };
  const on = () => {
    seen.n++;
    for (const w of seen.waiters.splice(0)) w();
  };
  if (flavor === "sdk1") client.setNotificationHandler(ToolListChangedNotificationSchema, on);
  else client.setNotificationHandler("notifications/tools/list_changed", on);
  seen.next = () => new Promise((resolve) => (seen.n > 0 ? resolve() : seen.waiters.push(resolve)));
  return seen;
}

for (const transport of ["stdio", "http", "http-stateless"]) {
  for (const { flavor } of flavors) {
    const protocol = protocolOf(flavor, transport);
    // A session that lasts: over stdio the process, over --http one of
    // 2025-11-25. 2026-07-28 over HTTP, and --stateless, keep none.
    const lasting = transport === "stdio" || (transport === "http" && protocol < "2026-07-28");
    test(`${flavor} over ${transport} (${protocol}): list_toolsets, enable_toolset, the playlists toolset in the same session; call_tool`, limit, async () => {
      const client = await connect(flavor, { transport });
      try {
        const changes = watchChanges(flavor, client);
        const before = names((await client.listTools()).tools);
        assert.ok(before.includes("list_toolsets") && before.includes("enable_toolset") && before.includes("call_tool"), before.join());
        assert.ok(!before.includes("get_playlist"), before.join());

        const entry = toolsetEntry(await client.callTool({ name: "list_toolsets", arguments: {} }), "playlists");
        assert.equal(entry.state, "off");
        assert.ok(entry.tools.includes("get_playlist"), JSON.stringify(entry));

        const on = await client.callTool({ name: "enable_toolset", arguments: { toolset: "playlists" } });
        assert.ok(!on.isError, text(on));
        const answer = JSON.parse(text(on));
        const def = answer.tools.find((t) => t.name === "get_playlist");
        assert.ok(def?.args?.playlist_id, text(on));

        if (lasting) {
          if (protocol < "2026-07-28") {
            // Told before the call's answer; wait only as a hang guard.
            await Promise.race([changes.next(), new Promise((_, reject) => setTimeout(() => reject(new Error("no notifications/tools/list_changed")), 20_000))]);
            assert.equal(changes.n, 1);
          }
          const after = names((await client.listTools()).tools);
          for (const n of ["get_playlist", "delete_playlist", "list_libraries", "call_tool"]) assert.ok(after.includes(n), `${n} not listed: ${after.join()}`);
          const res = await client.callTool({ name: "get_playlist", arguments: { playlist_id: PLAYLIST } });
          assert.ok(!res.isError, text(res));
          assert.ok(text(res).includes(PLAYLIST));
        } else {
          assert.match(answer.note, /keeps no session/);
          assert.equal(changes.n, 0);
          assert.ok(!names((await client.listTools()).tools).includes("get_playlist"));
        }
        // call_tool: a tool of the toolset turned on (or, without a
        // session, any tool).
        const through = await client.callTool({ name: "call_tool", arguments: { name: "get_playlist", arguments: { playlist_id: PLAYLIST } } });
        assert.ok(!through.isError, text(through));
        assert.ok(text(through).includes(PLAYLIST));
        // A toolset that is not on: run all the same, and, in a session,
        // turned on there (issue 41: no loop of enable_toolset and call_tool).
        const other = await client.callTool({ name: "call_tool", arguments: { name: "list_collections", arguments: {} } });
        assert.ok(!other.isError, text(other));
        if (lasting) {
          assert.ok(names((await client.listTools()).tools).includes("get_collection"), "call_tool did not turn collections on");
        }
      } finally {
        await client.close();
      }
    });
  }

  test(`@ai-sdk/mcp over ${transport} (2026-07-28): enable_toolset and call_tool reach a tool outside the default`, limit, async () => {
    let server;
    let tr;
    if (transport === "stdio") {
      tr = new StdioMCPTransport({ command: binary, args: ["--demo"], env: { PATH: process.env.PATH }, stderr: "pipe" });
    } else {
      server = await startHTTP({ stateless: transport === "http-stateless" });
      tr = { type: "http", url: server.url };
    }
    const client = await createMCPClient({ transport: tr, clientName: "interop-ai-sdk" });
    try {
      assert.ok(!names((await client.listTools()).tools).includes("get_playlist"));
      const entry = toolsetEntry(await client.callTool({ name: "list_toolsets", arguments: {} }), "playlists");
      assert.equal(entry.state, "off");
      const on = await client.callTool({ name: "enable_toolset", arguments: { toolset: "playlists" } });
      assert.ok(!on.isError, text(on));
      if (transport === "stdio") {
        // The process is the session: the toolset is listed from now on.
        assert.ok(names((await client.listTools()).tools).includes("get_playlist"));
        const res = await client.callTool({ name: "get_playlist", arguments: { playlist_id: PLAYLIST } });
        assert.ok(!res.isError, text(res));
      }
      const through = await client.callTool({ name: "call_tool", arguments: { name: "get_playlist", arguments: { playlist_id: PLAYLIST } } });
      assert.ok(!through.isError, text(through));
      assert.ok(text(through).includes(PLAYLIST));
    } finally {
      await client.close();
      if (server) assert.equal(await server.stop(), 0, server.stderr());
    }
  });
}

// The interop scenarios, run for each client flavor over one transport:
// initialize, the default tools with their annotations, a read, a guarded call
// approved (the change happens) and declined (nothing changes), and a client
// without elicitation (the two-call token).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { connect, dialogOf, flavors, protocolOf, text } from "./clients.mjs";

// defaultTools counts the tools a client of the default configuration is
// offered: those docs/tools.md (generated from tools.yaml) marks "In the
// default tools/list.", the default tools and the discovery tools, so that a
// tool added there needs no change here. internal/app's
// TestInteropKnowsTheDefaultTools holds the same reading to what the server
// lists. allTools counts every tool of docs/tools.md's toolsets (what
// AUDIOBOOKSHELF_TOOLSETS=all lists: no discovery tool).
const readDoc = () => readFileSync(new URL("../docs/tools.md", import.meta.url), "utf8").split("\n");
function defaultTools() {
  return readDoc().filter((line) => line.startsWith("In the default tools/list.")).length;
}
function allTools() {
  let current = "";
  let n = 0;
  for (const line of readDoc()) {
    const ts = /^## (\w+)$/.exec(line);
    if (ts) current = ts[1];
    if (/^### (\w+)$/.test(line) && current !== "discovery") n++;
  }
  return n;
}

// How many tools a client of the default configuration is offered.
export const DEFAULT_TOOLS = defaultTools();
// Every tool: AUDIOBOOKSHELF_TOOLSETS=all, which the scenarios with a
// guarded call set, so that they call it directly (discovery.test.mjs
// reaches tools outside the default through enable_toolset and call_tool).
export const ALL_TOOLS = allTools();
export const ALL = { AUDIOBOOKSHELF_TOOLSETS: "all" };
export const PLAYLIST = "ee7d2eab-52a8-4724-92db-bd7266926ced"; // the demo's "Commute" playlist
// No scenario may hang a CI run.
export const limit = { timeout: 30_000 };
const HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"];
const STATELESS_REASON = "the client did not declare elicitation (form) support with this request, and a stateless HTTP deployment cannot push a question to a client older than 2026-07-28 (such a client says what it supports only when it connects, which a stateless deployment does not keep)";

async function playlistExists(client) {
  const res = await client.callTool({ name: "get_playlist", arguments: { playlist_id: PLAYLIST } });
  if (res.isError) assert.match(text(res), /404/);
  return !res.isError;
}

export function defineSuite(transport) {
  for (const { flavor } of flavors) {
    const protocol = protocolOf(flavor, transport);
    const name = `${flavor} over ${transport} (${protocol})`;

    test(`${name}: lists the ${DEFAULT_TOOLS} default tools with their annotations, and reads`, limit, async () => {
      const client = await connect(flavor, { transport });
      try {
        if (client.getNegotiatedProtocolVersion) assert.equal(client.getNegotiatedProtocolVersion(), protocol);
        const { tools } = await client.listTools();
        assert.equal(tools.length, DEFAULT_TOOLS);
        for (const tool of tools) {
          // All four hints on every tool (a missing destructiveHint
          // defaults to true, so a read-only tool says false).
          for (const h of HINTS) {
            assert.equal(typeof tool.annotations?.[h], "boolean", `${tool.name}: ${h}`);
          }
          if (tool.annotations.readOnlyHint) assert.equal(tool.annotations.destructiveHint, false, tool.name);
        }
        // list_libraries, search_library, list_items_in_progress,
        // get_year_stats, list_toolsets, enable_toolset.
        assert.equal(tools.filter((t) => t.annotations.readOnlyHint).length, 6);
        const res = await client.callTool({ name: "list_libraries", arguments: {} });
        assert.ok(!res.isError, text(res));
        assert.match(text(res), /"name":"Books"/);
      } finally {
        await client.close();
      }
    });

    if (dialogOf(flavor, transport)) {
      test(`${name}: a guarded call the person approves happens`, limit, async () => {
        let asked = 0;
        const client = await connect(flavor, {
          transport,
          env: ALL,
          elicit: async (params) => {
            asked++;
            assert.match(params.message, new RegExp(PLAYLIST));
            assert.equal(params.requestedSchema.properties.approve.default, false);
            return { action: "accept", content: { approve: true } };
          },
        });
        try {
          const res = await client.callTool({ name: "delete_playlist", arguments: { playlist_id: PLAYLIST } });
          assert.ok(!res.isError, text(res));
          assert.equal(asked, 1);
          assert.equal(await playlistExists(client), false, "the playlist must be gone");
        } finally {
          await client.close();
        }
      });

      test(`${name}: a guarded call the person declines changes nothing`, limit, async () => {
        let asked = 0;
        const client = await connect(flavor, { transport, env: ALL, elicit: async () => { asked++; return { action: "decline" }; } });
        try {
          const res = await client.callTool({ name: "delete_playlist", arguments: { playlist_id: PLAYLIST } });
          assert.equal(asked, 1);
          assert.ok(res.isError);
          assert.match(text(res), /Nothing was changed/);
          assert.equal(await playlistExists(client), true);
        } finally {
          await client.close();
        }
      });
    } else {
      test(`${name}: a client that could answer a dialog gets the token, and is told why`, limit, async () => {
        let asked = 0;
        const client = await connect(flavor, { transport, env: ALL, elicit: async () => { asked++; return { action: "accept", content: { approve: true } }; } });
        try {
          const res = await client.callTool({ name: "delete_playlist", arguments: { playlist_id: PLAYLIST } });
          assert.equal(asked, 0, "a stateless server cannot push a question to this client");
          assert.ok(res.isError);
          assert.ok(res.structuredContent?.confirm_token, text(res));
          assert.equal(res.structuredContent.reason, STATELESS_REASON);
          assert.ok(text(res).includes(STATELESS_REASON), text(res));
          assert.match(text(res), /Nothing was changed/);
          assert.equal(await playlistExists(client), true);
        } finally {
          await client.close();
        }
      });
    }

    test(`${name}: a client without elicitation gets the two-call token`, limit, async () => {
      const client = await connect(flavor, { transport, env: ALL });
      try {
        const first = await client.callTool({ name: "delete_playlist", arguments: { playlist_id: PLAYLIST } });
        const token = first.structuredContent?.confirm_token;
        assert.ok(token, text(first));
        assert.match(text(first), /Nothing was changed/);
        assert.match(text(first), /the call was made twice with the same arguments, nothing more/);
        assert.equal(await playlistExists(client), true, "the first call must change nothing");
        const second = await client.callTool({ name: "delete_playlist", arguments: { playlist_id: PLAYLIST, confirm_token: token } });
        assert.ok(!second.isError, text(second));
        assert.equal(await playlistExists(client), false);
      } finally {
        await client.close();
      }
    });
  }
}

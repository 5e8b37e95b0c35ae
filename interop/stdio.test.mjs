import { test } from "node:test";
import assert from "node:assert/strict";
import { connect, flavors, text } from "./clients.mjs";

const PLAYLIST = "ee7d2eab-52a8-4724-92db-bd7266926ced"; // the demo's "Commute" playlist
const HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"];

for (const { flavor, protocol } of flavors) {
  test(`${flavor}: lists 44 tools with all four annotations, and reads`, async () => {
    const client = await connect(flavor);
    try {
      if (client.getNegotiatedProtocolVersion) assert.equal(client.getNegotiatedProtocolVersion(), protocol);
      const { tools } = await client.listTools();
      assert.equal(tools.length, 44);
      for (const tool of tools) {
        for (const h of HINTS) assert.equal(typeof tool.annotations?.[h], "boolean", `${tool.name}: ${h}`);
      }
      assert.equal(tools.filter((t) => t.annotations.readOnlyHint).length, 29);
      const res = await client.callTool({ name: "list_libraries", arguments: {} });
      assert.ok(!res.isError, text(res));
      assert.match(text(res), /"name":"Books"/);
    } finally {
      await client.close();
    }
  });

  test(`${flavor}: a guarded call the person approves happens`, async () => {
    let asked = 0;
    const client = await connect(flavor, {
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
      const after = await client.callTool({ name: "get_playlist", arguments: { playlist_id: PLAYLIST } });
      assert.ok(after.isError, "the playlist must be gone");
      assert.match(text(after), /404/);
    } finally {
      await client.close();
    }
  });

  test(`${flavor}: a guarded call the person declines changes nothing`, async () => {
    let asked = 0;
    const client = await connect(flavor, { elicit: async () => { asked++; return { action: "decline" }; } });
    try {
      const res = await client.callTool({ name: "delete_playlist", arguments: { playlist_id: PLAYLIST } });
      assert.equal(asked, 1);
      assert.ok(res.isError);
      assert.match(text(res), /Nothing was changed/);
      const after = await client.callTool({ name: "get_playlist", arguments: { playlist_id: PLAYLIST } });
      assert.ok(!after.isError, text(after));
    } finally {
      await client.close();
    }
  });

  test(`${flavor}: a client without elicitation gets the two-call token`, async () => {
    const client = await connect(flavor);
    try {
      const first = await client.callTool({ name: "delete_playlist", arguments: { playlist_id: PLAYLIST } });
      const token = first.structuredContent?.confirm_token;
      assert.ok(token, text(first));
      assert.match(text(first), /Nothing was changed/);
      assert.match(text(first), /the call was made twice with the same arguments, nothing more/);
      const still = await client.callTool({ name: "get_playlist", arguments: { playlist_id: PLAYLIST } });
      assert.ok(!still.isError, "the first call must change nothing");
      const second = await client.callTool({ name: "delete_playlist", arguments: { playlist_id: PLAYLIST, confirm_token: token } });
      assert.ok(!second.isError, text(second));
      const gone = await client.callTool({ name: "get_playlist", arguments: { playlist_id: PLAYLIST } });
      assert.ok(gone.isError);
    } finally {
      await client.close();
    }
  });
}

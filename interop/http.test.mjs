import { test } from "node:test";
import assert from "node:assert/strict";
import { connect, flavors, startHTTP, text } from "./clients.mjs";
import { defineSuite, limit } from "./suite.mjs";

// The binary serving streamable HTTP on loopback, with sessions and without.
defineSuite("http");
defineSuite("http-stateless");

const TOKEN = "interop-token-0123456789abcdef";

for (const stateless of [false, true]) {
  const mode = stateless ? "http-stateless" : "http";
  test(`over ${mode}, AUDIOBOOKSHELF_MCP_TOKEN: no connection without the token, both clients with it`, limit, async () => {
    const server = await startHTTP({ stateless, env: { AUDIOBOOKSHELF_MCP_TOKEN: TOKEN } });
    try {
      const res = await fetch(server.url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{}" });
      assert.equal(res.status, 401);
      assert.match(res.headers.get("www-authenticate"), /^Bearer realm="audiobookshelf-mcp", error="invalid_request", error_description="Send the header Authorization: Bearer TOKEN, where TOKEN is the value of AUDIOBOOKSHELF_MCP_TOKEN/);
      assert.ok(!(await res.text()).includes(TOKEN));
      for (const { flavor } of flavors) {
        await assert.rejects(connect(flavor, { server }), `${flavor} connected without the token`);
        await assert.rejects(connect(flavor, { server, headers: { Authorization: `Bearer ${TOKEN}x` } }), `${flavor} connected with a wrong token`);
        const client = await connect(flavor, { server, headers: { Authorization: `Bearer ${TOKEN}` } });
        try {
          const r = await client.callTool({ name: "list_libraries", arguments: {} });
          assert.ok(!r.isError, text(r));
        } finally {
          await client.close();
        }
      }
      assert.ok(!server.stderr().includes(TOKEN), "the token appears on stderr");
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });
}

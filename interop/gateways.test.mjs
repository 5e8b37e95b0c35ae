// Gateways written elsewhere in front of the binary, each pinned in
// package-lock.json and driven by the official TypeScript client (1.x):
// mcp-remote (a stdio client's bridge to a remote server) in front of --http
// on its defaults, and with --protocol auto in front of --http --stateless;
// supergateway (stdio to streamable HTTP) with --stateful, where the dialog
// goes end to end, and stateless, where it starts the server for every
// request and drops the client's capabilities: the two-call token, which
// holds across those processes only with a fixed AUDIOBOOKSHELF_STATE_KEY.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { binary, startHTTP, text } from "./clients.mjs";
import { ALL, ALL_TOOLS, DEFAULT_TOOLS, PLAYLIST } from "./suite.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const mcpRemote = path.join(here, "node_modules", "mcp-remote", "dist", "proxy.js");
const supergateway = path.join(here, "node_modules", "supergateway", "dist", "index.js");
const limit = { timeout: 60_000 };
const STATE_KEY = Buffer.alloc(32, 7).toString("base64");

async function freePort() {
  const s = net.createServer();
  await new Promise((resolve) => s.listen(0, "127.0.0.1", resolve));
  const { port } = s.address();
  await new Promise((resolve) => s.close(resolve));
  return port;
}

// A client of 1.x that shows dialogs: answers() gives each question's answer.
function dialogClient(answers, asked) {
  const client = new Client({ name: "interop-gateway", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    asked.push(req.params.message);
    return answers();
  });
  return client;
}

async function playlistExists(client) {
  const res = await client.callTool({ name: "get_playlist", arguments: { playlist_id: PLAYLIST } });
  if (res.isError) assert.match(text(res), /404/);
  return !res.isError;
}

// The dialog end to end: declined, nothing changes; approved, the playlist
// is gone; each time the question reached the client.
async function dialogEndToEnd(client, asked, setAnswer) {
  setAnswer({ action: "decline" });
  let res = await client.callTool({ name: "delete_playlist", arguments: { playlist_id: PLAYLIST } });
  assert.equal(asked.length, 1, "the question must reach the client");
  assert.match(asked[0], new RegExp(PLAYLIST));
  assert.ok(res.isError, text(res));
  assert.match(text(res), /Nothing was changed/);
  assert.equal(await playlistExists(client), true);
  setAnswer({ action: "accept", content: { approve: true } });
  res = await client.callTool({ name: "delete_playlist", arguments: { playlist_id: PLAYLIST } });
  assert.equal(asked.length, 2);
  assert.ok(!res.isError, text(res));
  assert.match(text(res), /"deleted":true/);
  assert.equal(await playlistExists(client), false, "the playlist must be gone");
}

// mcp-remote started by the client over stdio, as a desktop app starts it.
async function throughMcpRemote(serverOpts, extraArgs) {
  const server = await startHTTP({ ...serverOpts, env: ALL });
  const configDir = await mkdtemp(path.join(tmpdir(), "abs-mcp-remote-"));
  const asked = [];
  let answer;
  const client = dialogClient(() => answer, asked);
  try {
    await client.connect(new StdioClientTransport({
      command: process.execPath,
      args: [mcpRemote, server.url, ...extraArgs],
      env: { PATH: process.env.PATH, MCP_REMOTE_CONFIG_DIR: configDir },
      stderr: "pipe",
    }));
    const { tools } = await client.listTools();
    assert.equal(tools.length, ALL_TOOLS);
    await dialogEndToEnd(client, asked, (a) => { answer = a; });
  } finally {
    await client.close();
    await rm(configDir, { recursive: true, force: true });
    assert.equal(await server.stop(), 0, server.stderr());
  }
  return server.stderr();
}

test("mcp-remote (defaults) in front of --http: the dialog end to end", limit, async () => {
  await throughMcpRemote({}, []);
});

test("mcp-remote --protocol auto in front of --http --stateless: the dialog end to end (input_required)", limit, async () => {
  await throughMcpRemote({ stateless: true }, ["--protocol", "auto"]);
});

// A client that reaches the endpoint without the token: mcp-remote answers
// the 401 with OAuth (discovery, then registration); what it prints when that
// ends names the header to send. With --header it connects.
test("mcp-remote in front of --http with AUDIOBOOKSHELF_MCP_TOKEN: without the header it says which to send; with --header it connects", limit, async () => {
  const token = "interop-token-0123456789abcdef";
  const server = await startHTTP({ env: { AUDIOBOOKSHELF_MCP_TOKEN: token } });
  const configDir = await mkdtemp(path.join(tmpdir(), "abs-mcp-remote-"));
  try {
    const env = { PATH: process.env.PATH, MCP_REMOTE_CONFIG_DIR: configDir, BROWSER: "true" };
    const transport = new StdioClientTransport({ command: process.execPath, args: [mcpRemote, server.url], env, stderr: "pipe" });
    let printed = "";
    transport.stderr.setEncoding("utf8").on("data", (chunk) => { printed += chunk; });
    const refused = new Client({ name: "interop-gateway", version: "1.0.0" });
    await assert.rejects(refused.connect(transport));
    await refused.close();
    assert.match(printed, /Send the header Authorization: Bearer TOKEN on every request to \/mcp, where TOKEN is the value of AUDIOBOOKSHELF_MCP_TOKEN/, printed);
    assert.ok(!printed.includes(token), "the token appears in what mcp-remote printed");

    const client = new Client({ name: "interop-gateway", version: "1.0.0" });
    await client.connect(new StdioClientTransport({
      command: process.execPath, args: [mcpRemote, server.url, "--header", `Authorization: Bearer ${token}`], env, stderr: "pipe",
    }));
    try {
      const { tools } = await client.listTools();
      assert.equal(tools.length, DEFAULT_TOOLS);
    } finally {
      await client.close();
    }
  } finally {
    await rm(configDir, { recursive: true, force: true });
    assert.equal(await server.stop(), 0, server.stderr());
  }
});

// supergateway serving the binary's stdio as streamable HTTP on a free port.
async function startSupergateway({ stateful, env, serverArgs = [] }) {
  const port = await freePort();
  const args = [supergateway, "--stdio", [JSON.stringify(binary), ...serverArgs].join(" "),
    "--outputTransport", "streamableHttp", "--port", String(port), ...(stateful ? ["--stateful"] : [])];
  const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`supergateway did not listen within 15s:\n${out}`)), 15000);
    const onData = (chunk) => {
      out += chunk;
      if (out.includes(`Listening on port ${port}`)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.setEncoding("utf8").on("data", onData);
    child.stderr.setEncoding("utf8").on("data", onData);
    child.on("exit", (code) => reject(new Error(`supergateway exited ${code}:\n${out}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    output: () => out,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    },
  };
}

test("supergateway --stateful: the dialog end to end", limit, async () => {
  const gw = await startSupergateway({ stateful: true, env: ALL, serverArgs: ["--demo"] });
  const asked = [];
  let answer;
  const client = dialogClient(() => answer, asked);
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(gw.url)));
    const { tools } = await client.listTools();
    assert.equal(tools.length, ALL_TOOLS);
    await dialogEndToEnd(client, asked, (a) => { answer = a; });
  } finally {
    await client.close();
    await gw.stop();
  }
});

// supergateway without --stateful starts the server anew for every request,
// so the Audiobookshelf behind it must be one they share: the stand-in of an
// --http --demo process.
async function sharedStandin() {
  const demo = await startHTTP();
  const m = demo.stderr().match(/served from memory at (http:\/\/\S+?);/);
  assert.ok(m, demo.stderr());
  // A process per request keeps nothing enable_toolset turned on: these
  // tests call delete_playlist directly, so every toolset is on from the
  // start (reach.test.mjs goes through call_tool with the default tools).
  return { demo, env: { AUDIOBOOKSHELF_URL: m[1], AUDIOBOOKSHELF_API_KEY: "standin-api-key", ...ALL } };
}

for (const fixedKey of [true, false]) {
  const title = fixedKey
    ? "supergateway stateless, AUDIOBOOKSHELF_STATE_KEY fixed: the token path, and the token holds across its processes"
    : "supergateway stateless, no fixed AUDIOBOOKSHELF_STATE_KEY: the token is refused by the next process, nothing changed, and it says why; the token handed out then is refused too, and no more are given";
  test(title, limit, async () => {
    const { demo, env } = await sharedStandin();
    const gw = await startSupergateway({ stateful: false, env: fixedKey ? { ...env, AUDIOBOOKSHELF_STATE_KEY: STATE_KEY } : env });
    const asked = [];
    const client = dialogClient(() => ({ action: "accept", content: { approve: true } }), asked);
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(gw.url)));
      const first = await client.callTool({ name: "delete_playlist", arguments: { playlist_id: PLAYLIST } });
      const token = first.structuredContent?.confirm_token;
      assert.ok(token, text(first));
      assert.equal(asked.length, 0, "the gateway passes on no question");
      // It names what the server sees: no capability, and maybe a gateway.
      assert.match(text(first), /the client did not declare elicitation \(form\) support \(the client this server sees calls itself "[^"]+"\)/);
      assert.match(text(first), /a gateway or proxy between it and this server may have removed that capability/);
      assert.match(text(first), /call this tool again/);
      assert.equal(await playlistExists(client), true, "the first call must change nothing");
      const second = await client.callTool({ name: "delete_playlist", arguments: { playlist_id: PLAYLIST, confirm_token: token } });
      if (fixedKey) {
        assert.ok(!second.isError, text(second));
        assert.equal(await playlistExists(client), false);
      } else {
        assert.ok(second.isError, text(second));
        assert.match(text(second), /Nothing was changed/);
        assert.match(text(second), /AUDIOBOOKSHELF_STATE_KEY/);
        assert.equal(await playlistExists(client), true);
        // A model that follows the words calls again with the new token:
        // the next process refuses it too, and this time no token is
        // handed out, only what the operator must set.
        const renewed = second.structuredContent?.confirm_token;
        assert.ok(renewed, text(second));
        const third = await client.callTool({ name: "delete_playlist", arguments: { playlist_id: PLAYLIST, confirm_token: renewed } });
        assert.ok(third.isError, text(third));
        assert.equal(third.structuredContent?.confirm_token, undefined, text(third));
        assert.equal(third.structuredContent?.operator_must_set, "AUDIOBOOKSHELF_STATE_KEY", text(third));
        assert.match(text(third), /the same value on every process and instance/);
        assert.equal(await playlistExists(client), true);
      }
    } finally {
      await client.close();
      await gw.stop();
      assert.equal(await demo.stop(), 0, demo.stderr());
    }
  });
}

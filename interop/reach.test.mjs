// Every tool one step away on every client and gateway (issue 41): from a
// fresh state, with each client's defaults (no elicitation declared, the
// tool list never re-read) and the server's default tools, a model reaches
// what_next (listening toolset, off by default) through call_tool, and a
// guarded delete of a throwaway playlist by its name, which gives the
// two-call token; the second call deletes it. On stdio, --http and --http
// --stateless, for the TypeScript SDK 1.x, client 2.x (2026-07-28), the
// AI SDK's client and LangChain's MCP adapters; behind mcp-remote on its defaults; behind supergateway on
// its default, a new server process for every request; and with the MCP
// Inspector's CLI, a new process (over stdio) or a new session (over --http)
// for every command. Behind the last two, enable_toolset then call_tool used
// to answer "off in this conversation: call enable_toolset first", again and
// again.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createMCPClient } from "@ai-sdk/mcp";
import { MultiServerMCPClient } from "@langchain/mcp-adapters";
import { StdioMCPTransport } from "@ai-sdk/mcp/mcp-stdio";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { binary, connect, flavors, startHTTP, text, transports } from "./clients.mjs";
import { DEFAULT_TOOLS } from "./suite.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const mcpRemote = path.join(here, "node_modules", "mcp-remote", "dist", "proxy.js");
const supergateway = path.join(here, "node_modules", "supergateway", "dist", "index.js");
// The Inspector's CLI reads its own package.json relative to the directory
// it runs in: it runs in its build directory.
const inspectorDir = path.join(here, "node_modules", "@modelcontextprotocol", "inspector-cli", "build");
const limit = { timeout: 60_000 };
const STATE_KEY = Buffer.alloc(32, 9).toString("base64");

// through runs a tool as a model whose tool list never changed does.
async function through(client, name, args) {
  return client.callTool({ name: "call_tool", arguments: { name, arguments: args } });
}

// reach is the model's side, from a fresh state: the list it was given is
// the default one; what_next through call_tool (after enable_toolset, as
// the old instructions had it, with enableFirst: the sequence that looped
// where each request has a process of its own); the toolset that holds
// delete_playlist turned on (what a model reads for its arguments), then a
// throwaway playlist made and deleted by its name through call_tool: the
// first call gives a token (the client declared no dialog) and changes
// nothing, the second deletes it.
async function reach(client, label, { enableFirst = false } = {}) {
  const { tools } = await client.listTools();
  assert.equal(tools.length, DEFAULT_TOOLS, `${label}: the default list`);
  assert.ok(!tools.some((t) => t.name === "what_next"), `${label}: what_next is listed from the start`);
  if (enableFirst) {
    const listening = await client.callTool({ name: "enable_toolset", arguments: { toolset: "listening" } });
    assert.ok(!listening.isError, text(listening));
  }

  const next = await through(client, "what_next", {});
  assert.ok(!next.isError, `${label}: call_tool what_next: ${text(next)}`);
  assert.doesNotThrow(() => JSON.parse(text(next)), `${label}: what_next's answer: ${text(next)}`);

  const on = await client.callTool({ name: "enable_toolset", arguments: { toolset: "playlists" } });
  assert.ok(!on.isError, text(on));
  assert.match(JSON.parse(text(on)).note, /call_tool/, `${label}: enable_toolset's note`);

  const name = `Throwaway ${label} ${Date.now()}`;
  const made = await through(client, "create_playlist", { library_id: "Books", name, items: [{ library_item_id: "The Colour of Magic" }] });
  assert.ok(!made.isError, `${label}: call_tool create_playlist: ${text(made)}`);

  const first = await through(client, "delete_playlist", { playlist_id: name });
  const token = first.structuredContent?.confirm_token;
  assert.ok(token, `${label}: the guarded delete gives no token: ${text(first)}`);
  assert.match(text(first), /Nothing was changed|call this tool again/, `${label}: ${text(first)}`);
  const still = await through(client, "get_playlist", { playlist_id: name });
  assert.ok(!still.isError, `${label}: the first call must change nothing: ${text(still)}`);

  const second = await through(client, "delete_playlist", { playlist_id: name, confirm_token: token });
  assert.ok(!second.isError, `${label}: the second call: ${text(second)}`);
  assert.match(text(second), /"deleted":true/);
  const gone = await through(client, "get_playlist", { playlist_id: name });
  assert.ok(gone.isError, `${label}: the playlist must be gone: ${text(gone)}`);
}

for (const transport of transports) {
  for (const { flavor } of flavors) {
    test(`${flavor} over ${transport}, its defaults: what_next and a guarded delete through call_tool`, limit, async () => {
      const client = await connect(flavor, { transport });
      try {
        await reach(client, `${flavor} ${transport}`);
      } finally {
        await client.close();
      }
    });
  }

  test(`@ai-sdk/mcp over ${transport}, its defaults: what_next and a guarded delete through call_tool`, limit, async () => {
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
      await reach(client, `ai-sdk ${transport}`);
    } finally {
      await client.close();
      if (server) assert.equal(await server.stop(), 0, server.stderr());
    }
  });
}

// langchain is LangChain's MCP adapters as an agent uses them: the tools of
// getTools(), each run with invoke. An answer with isError reaches the
// agent as a ToolException holding the answer's text, which is what its
// model reads: the confirm_token is taken from that text, as a model takes
// it (the adapters pass no structuredContent on).
async function langchain(server) {
  const mc = new MultiServerMCPClient({ mcpServers: { abs: server } });
  const tools = await mc.getTools();
  const byName = new Map(tools.map((t) => [t.name, t]));
  const asText = (out) => (typeof out === "string" ? out : Array.isArray(out) ? out.map((c) => c.text ?? "").join("") : JSON.stringify(out));
  return {
    async listTools() {
      return { tools: tools.map((t) => ({ name: t.name })) };
    },
    async callTool({ name, arguments: args }) {
      const tool = byName.get(name);
      assert.ok(tool, `LangChain's tools hold no ${name}: ${[...byName.keys()].join(", ")}`);
      try {
        return { isError: false, content: [{ type: "text", text: asText(await tool.invoke(args)) }] };
      } catch (e) {
        const msg = String(e?.message ?? e);
        const token = msg.match(/confirm_token "([^"]+)"/)?.[1];
        return { isError: true, content: [{ type: "text", text: msg }], structuredContent: token ? { confirm_token: token } : undefined };
      }
    },
    close: () => mc.close(),
  };
}

for (const transport of transports) {
  test(`@langchain/mcp-adapters over ${transport}, its defaults: what_next and a guarded delete through call_tool`, limit, async () => {
    let server;
    let config;
    if (transport === "stdio") {
      config = { transport: "stdio", command: binary, args: ["--demo"], env: { PATH: process.env.PATH }, stderr: "pipe" };
    } else {
      server = await startHTTP({ stateless: transport === "http-stateless" });
      config = { transport: "http", url: server.url };
    }
    const client = await langchain(config);
    try {
      await reach(client, `langchain ${transport}`);
    } finally {
      await client.close();
      if (server) assert.equal(await server.stop(), 0, server.stderr());
    }
  });
}

test("mcp-remote (defaults) in front of --http: what_next and a guarded delete through call_tool", limit, async () => {
  const server = await startHTTP();
  const configDir = await mkdtemp(path.join(tmpdir(), "abs-mcp-remote-"));
  const client = new Client({ name: "interop-reach", version: "1.0.0" });
  try {
    await client.connect(new StdioClientTransport({
      command: process.execPath, args: [mcpRemote, server.url],
      env: { PATH: process.env.PATH, MCP_REMOTE_CONFIG_DIR: configDir }, stderr: "pipe",
    }));
    await reach(client, "mcp-remote");
  } finally {
    await client.close();
    await rm(configDir, { recursive: true, force: true });
    assert.equal(await server.stop(), 0, server.stderr());
  }
});

async function freePort() {
  const s = net.createServer();
  await new Promise((resolve) => s.listen(0, "127.0.0.1", resolve));
  const { port } = s.address();
  await new Promise((resolve) => s.close(resolve));
  return port;
}

// supergateway on its default: stdio to streamable HTTP, a new server
// process for every request. The Audiobookshelf behind them is one they
// share (the stand-in of an --http --demo process); the default tools;
// one AUDIOBOOKSHELF_STATE_KEY, so that a token holds across processes.
test("supergateway (default: a process per request): what_next and a guarded delete through call_tool, no loop", limit, async () => {
  const demo = await startHTTP();
  const m = demo.stderr().match(/served from memory at (http:\/\/\S+?);/);
  assert.ok(m, demo.stderr());
  const env = { PATH: process.env.PATH, AUDIOBOOKSHELF_URL: m[1], AUDIOBOOKSHELF_API_KEY: "standin-api-key", AUDIOBOOKSHELF_STATE_KEY: STATE_KEY };
  const port = await freePort();
  const gw = spawn(process.execPath, [supergateway, "--stdio", JSON.stringify(binary), "--outputTransport", "streamableHttp", "--port", String(port)],
    { env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const client = new Client({ name: "interop-reach", version: "1.0.0" });
  try {
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`supergateway did not listen within 15s:\n${out}`)), 15000);
      const onData = (chunk) => {
        out += chunk;
        if (out.includes(`Listening on port ${port}`)) {
          clearTimeout(timer);
          resolve();
        }
      };
      gw.stdout.setEncoding("utf8").on("data", onData);
      gw.stderr.setEncoding("utf8").on("data", onData);
      gw.on("exit", (code) => reject(new Error(`supergateway exited ${code}:\n${out}`)));
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
    await reach(client, "supergateway", { enableFirst: true });
  } finally {
    await client.close();
    if (gw.exitCode === null) {
      const exited = once(gw, "exit");
      gw.kill("SIGTERM");
      await exited;
    }
    assert.equal(await demo.stop(), 0, demo.stderr());
  }
});

// inspector is a client whose every call is one run of the Inspector's CLI
// (its defaults): a new connection, and over stdio a new server process,
// each time. target: the server command and its arguments, or the URL.
function inspector(target, env) {
  const run = async (args) => {
    const child = spawn(process.execPath, [path.join(inspectorDir, "index.js"), ...target, ...args],
      { cwd: inspectorDir, env: { PATH: process.env.PATH, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (c) => { out += c; });
    child.stderr.setEncoding("utf8").on("data", (c) => { err += c; });
    const [code] = await once(child, "exit");
    assert.equal(code, 0, `inspector ${args.join(" ")}: exit ${code}\n${out}${err}`);
    return JSON.parse(out);
  };
  return {
    listTools: () => run(["--method", "tools/list"]),
    callTool: ({ name, arguments: a }) => run(["--method", "tools/call", "--tool-name", name,
      ...Object.entries(a).flatMap(([k, v]) => ["--tool-arg", `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`])]),
  };
}

test("the Inspector CLI over stdio (a process per command): what_next and a guarded delete through call_tool, no loop", limit, async () => {
  const demo = await startHTTP();
  const m = demo.stderr().match(/served from memory at (http:\/\/\S+?);/);
  assert.ok(m, demo.stderr());
  try {
    await reach(inspector([binary], { AUDIOBOOKSHELF_URL: m[1], AUDIOBOOKSHELF_API_KEY: "standin-api-key", AUDIOBOOKSHELF_STATE_KEY: STATE_KEY }),
      "inspector stdio", { enableFirst: true });
  } finally {
    assert.equal(await demo.stop(), 0, demo.stderr());
  }
});

test("the Inspector CLI over --http (a session per command): what_next and a guarded delete through call_tool, no loop", limit, async () => {
  const server = await startHTTP();
  try {
    await reach(inspector([server.url], {}), "inspector http", { enableFirst: true });
  } finally {
    assert.equal(await server.stop(), 0, server.stderr());
  }
});

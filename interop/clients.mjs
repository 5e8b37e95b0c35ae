// Connects the official TypeScript MCP clients to the audiobookshelf-mcp
// binary: @modelcontextprotocol/sdk 1.x (protocol 2025-11-25) and
// @modelcontextprotocol/client 2.x with version negotiation on (2026-07-28
// where the server speaks it), over stdio or over streamable HTTP.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { Client as Client1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as Stdio1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as HTTP1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { Client as Client2, StreamableHTTPClientTransport as HTTP2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as Stdio2 } from "@modelcontextprotocol/client/stdio";

const here = path.dirname(fileURLToPath(import.meta.url));
export const binary = process.env.ABS_MCP_BIN || path.join(here, "..", "bin", "audiobookshelf-mcp");

export const flavors = [
  { flavor: "sdk1", protocol: "2025-11-25" },
  { flavor: "client2", protocol: "2026-07-28" },
];

// Transports: the binary started by the client over stdio, or started here
// with --http (with sessions) or --http --stateless, on a free loopback port.
export const transports = ["stdio", "http", "http-stateless"];

// The protocol revision a flavor ends up speaking over a transport: 2.x
// speaks 2026-07-28 on every one (the endpoint with sessions serves it
// without a session), 1.x 2025-11-25.
export function protocolOf(flavor, transport) {
  return flavor === "client2" ? "2026-07-28" : "2025-11-25";
}

// Whether a client with an elicitation handler is asked through a dialog: not
// a client older than 2026-07-28 behind a stateless server.
export function dialogOf(flavor, transport) {
  return !(transport === "http-stateless" && protocolOf(flavor, transport) < "2026-07-28");
}

// startHTTP runs the binary with --http on a free loopback port and resolves
// once it prints its listening line. stop() sends SIGTERM and resolves with
// the exit code.
export async function startHTTP({ stateless = false, env = {}, args = [] } = {}) {
  const argv = ["--http", "127.0.0.1:0", "--demo", ...(stateless ? ["--stateless"] : []), ...args];
  const child = spawn(binary, argv, { env: { PATH: process.env.PATH, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line within 10s:\n${stderr}`)), 10000);
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      const m = stderr.match(/^audiobookshelf-mcp: listening on (http:\/\/\S+\/mcp)$/m);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.on("exit", (code) => reject(new Error(`exited ${code} before listening:\n${stderr}`)));
  });
  return {
    url,
    child,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      const [code, signal] = await exited;
      return signal ? signal : code;
    },
  };
}

// connect returns a connected client. elicit: undefined (no elicitation
// capability) or a function answering the server's question. env: extra
// environment for the server. headers: sent with every HTTP request. server:
// an already started HTTP server to connect to (then it is not stopped on
// close). On close, an HTTP server started here is stopped, and close
// rejects when it did not exit 0.
export async function connect(flavor, { elicit, env = {}, transport, headers, server } = {}) {
  transport ??= server ? "http" : "stdio";
  const info = { name: `interop-${flavor}`, version: "1.0.0" };
  const capabilities = elicit ? { elicitation: { form: {} } } : {};
  let own;
  if (transport !== "stdio" && !server) {
    own = server = await startHTTP({ stateless: transport === "http-stateless", env });
  }
  const requestInit = headers ? { headers } : undefined;
  let client;
  try {
    if (flavor === "sdk1") {
      client = new Client1(info, { capabilities });
      if (elicit) client.setRequestHandler(ElicitRequestSchema, (req) => elicit(req.params));
      await client.connect(transport === "stdio"
        ? new Stdio1({ command: binary, args: ["--demo"], env: { PATH: process.env.PATH, ...env }, stderr: "pipe" })
        : new HTTP1(new URL(server.url), { requestInit }));
    } else {
      client = new Client2(info, { capabilities, versionNegotiation: { mode: "auto" } });
      if (elicit) client.setRequestHandler("elicitation/create", (req) => elicit(req.params));
      await client.connect(transport === "stdio"
        ? new Stdio2({ command: binary, args: ["--demo"], env: { PATH: process.env.PATH, ...env }, stderr: "pipe" })
        : new HTTP2(new URL(server.url), { requestInit }));
    }
  } catch (err) {
    if (own) await own.stop();
    throw err;
  }
  if (own) {
    const close = client.close.bind(client);
    client.close = async () => {
      await close();
      const code = await own.stop();
      if (code !== 0) throw new Error(`the server exited ${code} on SIGTERM:\n${own.stderr()}`);
    };
  }
  return client;
}

export function text(result) {
  return (result.content || []).filter((c) => c.type === "text").map((c) => c.text).join("");
}

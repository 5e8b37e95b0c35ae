// Connects the official TypeScript MCP clients to the audiobookshelf-mcp
// binary: @modelcontextprotocol/sdk 1.x (protocol 2025-11-25) and
// @modelcontextprotocol/client 2.x with version negotiation on (2026-07-28).
import { fileURLToPath } from "node:url";
import path from "node:path";
import { Client as Client1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as Stdio1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { Client as Client2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as Stdio2 } from "@modelcontextprotocol/client/stdio";

const here = path.dirname(fileURLToPath(import.meta.url));
export const binary = process.env.ABS_MCP_BIN || path.join(here, "..", "bin", "audiobookshelf-mcp");

// elicit: undefined (no elicitation capability) or a function answering the
// server's question. env: extra environment for the server.
export async function connect(flavor, { elicit, env = {} } = {}) {
  const info = { name: `interop-${flavor}`, version: "1.0.0" };
  const capabilities = elicit ? { elicitation: { form: {} } } : {};
  const params = { command: binary, args: ["--demo"], env: { PATH: process.env.PATH, ...env }, stderr: "pipe" };
  let client;
  if (flavor === "sdk1") {
    client = new Client1(info, { capabilities });
    if (elicit) client.setRequestHandler(ElicitRequestSchema, (req) => elicit(req.params));
    await client.connect(new Stdio1(params));
  } else {
    client = new Client2(info, { capabilities, versionNegotiation: { mode: "auto" } });
    if (elicit) client.setRequestHandler("elicitation/create", (req) => elicit(req.params));
    await client.connect(new Stdio2(params));
  }
  return client;
}

export const flavors = [
  { flavor: "sdk1", protocol: "2025-11-25" },
  { flavor: "client2", protocol: "2026-07-28" },
];

export function text(result) {
  return (result.content || []).filter((c) => c.type === "text").map((c) => c.text).join("");
}

// The conformance suite (@modelcontextprotocol/conformance) is one bundle
// that imports fs.globSync, which Node.js has from version 22 on; only its
// tier-check command calls it. On Node.js 20 the import alone stops every
// command, `server` included. This hook gives the bundle, and nothing else,
// node:fs with a globSync that says so if it is ever called. On Node.js 22
// and newer it does nothing.
import fs from "node:fs";

const needed = typeof fs.globSync !== "function";
const shim = "data:text/javascript," + encodeURIComponent(`
import fs from "node:fs";
export * from "node:fs";
export default fs;
export function globSync() {
  throw new Error("fs.globSync needs Node.js 22 or newer (only the conformance tier-check command uses it)");
}
`);

export async function resolve(specifier, context, next) {
  if (needed && (specifier === "fs" || specifier === "node:fs") && context.parentURL?.includes("/@modelcontextprotocol/conformance/")) {
    return { url: shim, shortCircuit: true };
  }
  return next(specifier, context);
}

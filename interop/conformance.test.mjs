// The official MCP conformance suite (@modelcontextprotocol/conformance,
// pinned in package-lock.json) against the binary over streamable HTTP, with
// sessions and stateless: each scenario that applies to a server of tools,
// prompts, resources and completions without the suite's own fixtures (see
// docs/testing.md, "Conformance"), one run of the suite's
// `server` command each. A scenario passes when the suite exits 0: every check
// succeeded, or failed as expected-failures.yaml says, and none listed there
// passed. Each must also have run at least one check that succeeded.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startHTTP } from "./clients.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const suite = path.join(here, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
const expectedFailures = path.join(here, "conformance", "expected-failures.yaml");

// Scenarios by mode. Both speak every revision: with sessions, a client
// that initializes gets a session and a 2026-07-28 request without one is
// served as stateless serves it.
export const scenarios = {
  http: [
    "server-stateless",
    "caching",
    "http-header-validation",
    "server-initialize",
    "server-session-lifecycle",
    "ping",
    "logging-set-level",
    "tools-list",
    "server-sse-polling",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
    "prompts-list",
    "resources-list",
    "completion-complete",
    "sep-2164-resource-not-found",
  ],
  "http-stateless": [
    "server-stateless",
    "server-initialize",
    "ping",
    "logging-set-level",
    "tools-list",
    "caching",
    "http-header-validation",
    "dns-rebinding-protection",
    "prompts-list",
    "resources-list",
    "completion-complete",
    "sep-2164-resource-not-found",
  ],
};

function runSuite(url, scenario, outDir) {
  return new Promise((resolve) => {
    execFile(process.execPath,
      ["--import", path.join(here, "conformance", "register.mjs"), suite, "server",
        "--url", url, "--scenario", scenario, "--expected-failures", expectedFailures, "-o", outDir],
      { timeout: 120_000, maxBuffer: 16 << 20 },
      (err, stdout, stderr) => resolve({ code: err ? (err.code ?? err.signal) : 0, output: stdout + stderr }));
  });
}

async function checksOf(outDir) {
  const checks = [];
  for (const d of await readdir(outDir)) {
    checks.push(...JSON.parse(await readFile(path.join(outDir, d, "checks.json"), "utf8")));
  }
  return checks;
}

for (const [mode, list] of Object.entries(scenarios)) {
  test(`conformance suite over ${mode}: ${list.join(", ")}`, { timeout: 600_000 }, async (t) => {
    const server = await startHTTP({ stateless: mode === "http-stateless" });
    const outRoot = await mkdtemp(path.join(tmpdir(), "abs-mcp-conformance-"));
    try {
      for (const scenario of list) {
        await t.test(scenario, async () => {
          const outDir = path.join(outRoot, scenario);
          const { code, output } = await runSuite(server.url, scenario, outDir);
          assert.equal(code, 0, `scenario ${scenario} over ${mode}:\n${output}`);
          const checks = await checksOf(outDir);
          assert.ok(checks.some((c) => c.status === "SUCCESS"), `scenario ${scenario} over ${mode} ran no check that succeeded:\n${output}`);
        });
      }
    } finally {
      await rm(outRoot, { recursive: true, force: true });
      assert.equal(await server.stop(), 0, server.stderr());
    }
  });
}

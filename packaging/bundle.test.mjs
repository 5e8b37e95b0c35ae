// The MCP Bundle, checked with the official mcpb tool (pinned in
// package-lock.json): the manifest template validates, a bundle packed by
// cmd/release (what `make release` runs) unpacks with the official unpacker
// into what the manifest names, and Claude Desktop's own resolution of the
// manifest (getMcpConfigForManifest) starts a server that lists the tools the
// manifest lists. To stay quick it packs for this machine's platform only:
// the bundle of a release carries the other binaries the same way.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync, statSync, existsSync, rmSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { getMcpConfigForManifest } from "@anthropic-ai/mcpb";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const mcpb = join(here, "node_modules", ".bin", "mcpb");
const template = join(here, "mcpb", "manifest.json");
const stamped = "v0.0.0-bundletest";
const version = "0.0.0-bundletest";
const goos = { linux: "linux", darwin: "darwin", win32: "windows" }[process.platform];
const goarch = { x64: "amd64", arm64: "arm64" }[process.arch];

let dist, work, unpacked, bundle;

before(() => {
  const top = mkdtempSync(join(tmpdir(), "abs-mcp-release-"));
  dist = join(top, "dist");
  work = join(top, "build");
  unpacked = mkdtempSync(join(tmpdir(), "abs-mcp-unpacked-"));
  execFileSync(process.env.GO || "go", ["run", "./cmd/release", "-version", stamped, "-platforms", "host", "-out", dist, "-work", work],
    { cwd: root, stdio: ["ignore", "inherit", "inherit"] });
  bundle = join(dist, `audiobookshelf-mcp_${version}.mcpb`);
  execFileSync(mcpb, ["unpack", bundle, unpacked], { stdio: ["ignore", "ignore", "inherit"] });
  process.on("exit", () => {
    rmSync(top, { recursive: true, force: true });
    rmSync(unpacked, { recursive: true, force: true });
  });
});

function validate(path) {
  const r = spawnSync(mcpb, ["validate", path], { encoding: "utf8" });
  return { code: r.status, out: r.stdout + r.stderr };
}

// The tool names of docs/tools.md, generated from tools.yaml like the manifest.
function documentedTools() {
  const doc = readFileSync(join(root, "docs", "tools.md"), "utf8");
  return [...doc.matchAll(/^### (\w+)$/gm)].map((m) => m[1]);
}

test("the manifest template validates and lists the 44 tools of tools.yaml", () => {
  const { code, out } = validate(template);
  assert.equal(code, 0, out);
  assert.match(out, /Manifest schema validation passes/);
  const manifest = JSON.parse(readFileSync(template, "utf8"));
  const names = manifest.tools.map((t) => t.name);
  assert.equal(names.length, 44);
  assert.deepEqual(names, documentedTools());
  assert.equal(manifest.server.type, "binary");
  assert.equal(manifest.user_config.api_key.sensitive, true);
  assert.equal(manifest.user_config.read_only.type, "boolean");
});

test("mcpb validate refuses a broken manifest (the check can fail)", () => {
  const manifest = JSON.parse(readFileSync(template, "utf8"));
  manifest.server.type = "exe";
  delete manifest.author;
  const path = join(work, "broken-manifest.json");
  writeFileSync(path, JSON.stringify(manifest));
  const { code, out } = validate(path);
  assert.notEqual(code, 0, out);
});

test("the packed bundle unpacks to its manifest, the launcher and this platform's binary", () => {
  const manifest = readFileSync(join(unpacked, "manifest.json"), "utf8");
  assert.equal(manifest, readFileSync(template, "utf8").replace('"version": "0.0.0",', `"version": "${version}",`));
  assert.equal(JSON.parse(manifest).version, version);
  const { code, out } = validate(join(unpacked, "manifest.json"));
  assert.equal(code, 0, out);
  assert.equal(readFileSync(join(unpacked, "server", "launch.sh"), "utf8"), readFileSync(join(here, "mcpb", "launch.sh"), "utf8"));
  assert.equal(readFileSync(join(unpacked, "LICENSE"), "utf8"), readFileSync(join(root, "LICENSE"), "utf8"));
  assert.equal(JSON.parse(manifest).license, "MIT");
  const exe = goos === "windows"
    ? join(unpacked, "server", "windows-amd64", "audiobookshelf-mcp.exe")
    : join(unpacked, "server", `${goos}-${goarch}`, "audiobookshelf-mcp");
  const built = join(work, "bin", `${goos}-${goarch}`, goos === "windows" ? "audiobookshelf-mcp.exe" : "audiobookshelf-mcp");
  assert.ok(readFileSync(exe).equals(readFileSync(built)), "the bundle's binary is the one just built");
  if (process.platform !== "win32") {
    assert.equal(statSync(exe).mode & 0o777, 0o755);
    const v = execFileSync("/bin/sh", [join(unpacked, "server", "launch.sh"), "--version"], { encoding: "utf8" });
    assert.equal(v.trim(), `audiobookshelf-mcp ${version}`);
  }
});

test("server.json of the release carries the bundle's hash; SHA256SUMS verifies", () => {
  const sum = (p) => createHash("sha256").update(readFileSync(p)).digest("hex");
  const sj = JSON.parse(readFileSync(join(dist, "server.json"), "utf8"));
  const pkg = sj.packages.find((p) => p.registryType === "mcpb");
  assert.equal(pkg.fileSha256, sum(bundle));
  assert.equal(sj.version, version);
  assert.ok(pkg.identifier.endsWith(`/releases/download/${stamped}/audiobookshelf-mcp_${version}.mcpb`), pkg.identifier);
  assert.equal(sj._meta["io.modelcontextprotocol.registry/publisher-provided"].license, "MIT");
  const lines = readFileSync(join(dist, "SHA256SUMS"), "utf8").trim().split("\n");
  // Every other file of dist/: this platform's archive, the bundle,
  // server.json, and on Linux the image.
  const others = readdirSync(dist).filter((n) => n !== "SHA256SUMS").toSorted();
  assert.deepEqual(lines.map((l) => l.split("  ")[1]), others);
  assert.equal(others.length, goos === "linux" ? 4 : 3, others.join(" "));
  for (const line of lines) {
    const [hash, name] = line.split(/  /);
    assert.equal(hash, sum(join(dist, name)), name);
  }
});

// Claude Desktop's resolution of the manifest, run as it would run it.
function listTools(userConfig) {
  const manifest = JSON.parse(readFileSync(join(unpacked, "manifest.json"), "utf8"));
  return getMcpConfigForManifest({
    manifest, extensionPath: unpacked, systemDirs: {}, userConfig, pathSeparator: "/",
  }).then((cfg) => {
    assert.ok(cfg, "the manifest resolves to a command");
    const input = [
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bundle-test", version: "1" } } },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
    ].map((m) => JSON.stringify(m) + "\n").join("");
    const r = spawnSync(cfg.command, cfg.args, {
      input, encoding: "utf8", timeout: 30000,
      env: { PATH: process.env.PATH, ...cfg.env },
    });
    assert.equal(r.status, 0, r.stderr);
    const answers = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    const list = answers.find((a) => a.id === 2);
    assert.ok(list && list.result, r.stdout);
    return { names: list.result.tools.map((t) => t.name), stderr: r.stderr, cfg };
  });
}

test("Claude Desktop's resolution of the manifest starts the server with the user's settings", { skip: process.platform === "win32" }, async () => {
  const base = { audiobookshelf_url: "http://127.0.0.1:9", api_key: "bundle-test-key-not-real" };
  const all = await listTools({ ...base, read_only: false });
  // tools/list answers in name order; the manifest lists in tools.yaml's.
  assert.deepEqual(all.names.toSorted(), JSON.parse(readFileSync(template, "utf8")).tools.map((t) => t.name).toSorted());
  assert.equal(all.cfg.env.AUDIOBOOKSHELF_URL, base.audiobookshelf_url);
  assert.ok(!all.stderr.includes(base.api_key), "the key is not logged");
  const ro = await listTools({ ...base, read_only: true });
  assert.equal(ro.cfg.env.AUDIOBOOKSHELF_READ_ONLY, "true");
  assert.equal(ro.names.length, 29);
});

// The MCP Bundle, checked with the official mcpb tool (pinned in
// package-lock.json): the manifest template validates, a bundle packed by
// cmd/release (what `make release` runs) unpacks with the official unpacker
// into what the manifest names, and Claude Desktop's own resolution of the
// manifest (getMcpConfigForManifest) starts a server that lists the tools the
// manifest lists. To stay quick it packs for this machine's platform only:
// the bundle of a release carries the other binaries the same way.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { createServer } from "node:http";
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

// The tools tools/list starts with when nothing is set: those docs/tools.md
// marks "In the default tools/list.", and the discovery tools.
function defaultTools() {
  const names = [];
  let current = "";
  let section = "";
  for (const line of readFileSync(join(root, "docs", "tools.md"), "utf8").split("\n")) {
    const ts = /^## (\w+)$/.exec(line);
    if (ts) section = ts[1];
    const tool = /^### (\w+)$/.exec(line);
    if (tool) {
      current = tool[1];
      if (section === "discovery") names.push(current);
    }
    if (line.trim() === "In the default tools/list." && current && !names.includes(current)) names.push(current);
  }
  return names;
}

// The tool names of docs/tools.md under the toolsets named (its "## toolset"
// sections).
function toolsOf(toolsets) {
  const names = [];
  let current = "";
  for (const line of readFileSync(join(root, "docs", "tools.md"), "utf8").split("\n")) {
    const ts = /^## (\w+)$/.exec(line);
    if (ts) current = ts[1];
    const tool = /^### (\w+)$/.exec(line);
    if (tool && toolsets.includes(current)) names.push(tool[1]);
  }
  return names;
}

test("the manifest template validates and lists the tools of tools.yaml", () => {
  const { code, out } = validate(template);
  assert.equal(code, 0, out);
  assert.match(out, /Manifest schema validation passes/);
  const manifest = JSON.parse(readFileSync(template, "utf8"));
  const names = manifest.tools.map((t) => t.name);
  assert.deepEqual(names, documentedTools());
  // The toolsets setting starts as the server's default tools, and offers
  // all; the default tools and the discovery tools are fewer than all.
  assert.equal(manifest.user_config.toolsets.default, "default");
  assert.match(manifest.user_config.toolsets.description, /all \(every tool\)/);
  const defaults = defaultTools();
  assert.ok(defaults.length > 0 && defaults.length < names.length, `${defaults.length} of ${names.length}`);
  assert.equal(manifest.server.type, "binary");
  assert.equal(manifest.user_config.api_key.sensitive, true);
  assert.equal(manifest.user_config.read_only.type, "boolean");
  // What a person sees before installing: license, icon, long description,
  // support link (the repository's issues, as server.json names the
  // repository), keywords.
  const sj = JSON.parse(readFileSync(join(root, "server.json"), "utf8"));
  assert.equal(manifest.license, "MIT");
  assert.equal(manifest.support, `${sj.repository.url}/issues`);
  assert.match(manifest.long_description, /^Your \[Audiobookshelf\]/);
  // The counts: every tool but the discovery ones, and what is listed from
  // the start (the default tools, and the discovery tools).
  const discovery = toolsOf(["discovery"]);
  assert.ok(discovery.length > 0);
  assert.match(manifest.long_description, new RegExp(`\\*\\*${names.length - discovery.length} tools\\*\\* in `));
  assert.ok(manifest.long_description.includes(`Listed from the start: ${defaults.length - discovery.length} everyday tools and ${discovery.length} that`), manifest.long_description);
  assert.ok(manifest.keywords.includes("audiobookshelf"));
  const icon = readFileSync(join(here, "mcpb", manifest.icon));
  assert.ok(icon.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), "the icon is a PNG");
  assert.equal(icon.readUInt32BE(16), 512);
  assert.equal(icon.readUInt32BE(20), 512);
  assert.match(out, /Icon validation passed/);
  // Every setting is passed to the server as the variable it reads.
  const env = manifest.server.mcp_config.env;
  assert.deepEqual(Object.keys(manifest.user_config).map((k) => Object.keys(env).find((v) => env[v].includes(`\${user_config.${k}}`))), [
    "AUDIOBOOKSHELF_URL", "AUDIOBOOKSHELF_API_KEY", "AUDIOBOOKSHELF_READ_ONLY", "AUDIOBOOKSHELF_TOOLSETS",
    "AUDIOBOOKSHELF_TIMEOUT", "SSL_CERT_FILE", "AUDIOBOOKSHELF_INSECURE_TLS",
  ]);
  const reference = readFileSync(join(root, "docs", "configuration.md"), "utf8");
  for (const v of Object.keys(env)) assert.ok(reference.includes("`" + v + "`"), `${v} is documented in docs/configuration.md`);
  // An optional setting left alone is passed as its default, which must
  // be one the server takes (without a default, the literal ${...}).
  for (const [k, u] of Object.entries(manifest.user_config)) {
    assert.ok(u.required || u.default !== undefined, `${k}: optional without a default`);
  }
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
  assert.ok(readFileSync(join(unpacked, "icon.png")).equals(readFileSync(join(here, "mcpb", "icon.png"))));
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

// Claude Desktop's resolution of the manifest, run as it would run it:
// initialize, tools/list, and the calls given.
function listTools(userConfig, calls = []) {
  const manifest = JSON.parse(readFileSync(join(unpacked, "manifest.json"), "utf8"));
  return getMcpConfigForManifest({
    manifest, extensionPath: unpacked, systemDirs: {}, userConfig, pathSeparator: "/",
  }).then((cfg) => {
    assert.ok(cfg, "the manifest resolves to a command");
    const input = [
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bundle-test", version: "1" } } },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      ...calls.map((c, i) => ({ jsonrpc: "2.0", id: 3 + i, method: "tools/call", params: c })),
    ].map((m) => JSON.stringify(m) + "\n").join("");
    return new Promise((resolve) => {
      // Not spawnSync: a test's own server must answer in this process.
      const child = spawn(cfg.command, cfg.args, { env: { PATH: process.env.PATH, ...cfg.env } });
      let stdout = "", stderr = "";
      child.stdout.on("data", (d) => (stdout += d));
      child.stderr.on("data", (d) => (stderr += d));
      const timer = setTimeout(() => child.kill(), 60000);
      child.on("close", (status) => {
        clearTimeout(timer);
        assert.equal(status, 0, stderr);
        const answers = stdout.trim().split("\n").map((l) => JSON.parse(l));
        const list = answers.find((a) => a.id === 2);
        assert.ok(list && list.result, stdout);
        resolve({ names: list.result.tools.map((t) => t.name), stderr, cfg, results: calls.map((_, i) => answers.find((a) => a.id === 3 + i)) });
      });
      child.stdin.end(input);
    });
  });
}

test("Claude Desktop's resolution of the manifest starts the server with the user's settings", { skip: process.platform === "win32" }, async () => {
  const base = { audiobookshelf_url: "http://127.0.0.1:9", api_key: "bundle-test-key-not-real" };
  const all = await listTools({ ...base, read_only: false });
  // tools/list answers in name order; the manifest lists in tools.yaml's.
  const manifest = JSON.parse(readFileSync(template, "utf8"));
  assert.deepEqual(all.names.toSorted(), defaultTools().toSorted());
  assert.equal(all.cfg.env.AUDIOBOOKSHELF_URL, base.audiobookshelf_url);
  assert.ok(!all.stderr.includes(base.api_key), "the key is not logged");
  const ro = await listTools({ ...base, read_only: true });
  assert.equal(ro.cfg.env.AUDIOBOOKSHELF_READ_ONLY, "true");
  // Read-only: the default tools that read, and the discovery tools.
  assert.ok(ro.names.includes("list_libraries") && !ro.names.includes("set_media_progress") && !ro.names.includes("create_bookmark"), ro.names.join(" "));
  assert.equal(ro.names.length, all.names.length - 2, ro.names.join(" "));
  // The settings left alone: their defaults, which the server takes.
  assert.equal(all.cfg.env.AUDIOBOOKSHELF_TIMEOUT, "30s");
  assert.equal(all.cfg.env.AUDIOBOOKSHELF_INSECURE_TLS, "false");
  assert.equal(all.cfg.env.SSL_CERT_FILE, "");
  assert.equal(all.cfg.env.AUDIOBOOKSHELF_TOOLSETS.split(",").length, JSON.parse(readFileSync(template, "utf8")).user_config.toolsets.default.split(",").length);
  assert.ok(!all.stderr.includes("warning"), all.stderr);
});

test("the bundle's settings for toolsets, timeout and a self-signed certificate reach the server", { skip: process.platform === "win32" }, async () => {
  // An Audiobookshelf that accepts the connection and never answers.
  const silent = createServer(() => {});
  await new Promise((r) => silent.listen(0, "127.0.0.1", r));
  try {
    const url = `http://127.0.0.1:${silent.address().port}`;
    const r = await listTools(
      { audiobookshelf_url: url, api_key: "bundle-test-key-not-real", toolsets: "me,bookmarks", timeout_seconds: 1,
        certificate_file: "/nonexistent/abs.pem", insecure_tls: true },
      [{ name: "get_me", arguments: {} }],
    );
    assert.equal(r.cfg.env.AUDIOBOOKSHELF_TOOLSETS, "me,bookmarks");
    assert.equal(r.cfg.env.AUDIOBOOKSHELF_TIMEOUT, "1s");
    assert.equal(r.cfg.env.SSL_CERT_FILE, "/nonexistent/abs.pem");
    const manifest = JSON.parse(readFileSync(template, "utf8"));
    assert.ok(r.names.length > 0 && r.names.length < manifest.tools.length, r.names.join(" "));
    assert.ok(r.names.includes("get_me") && !r.names.includes("list_libraries"), r.names.join(" "));
    assert.match(r.stderr, /AUDIOBOOKSHELF_INSECURE_TLS=true/);
    const text = r.results[0].result.content[0].text;
    assert.equal(r.results[0].result.isError, true);
    assert.match(text, /did not answer within 1s/);
    assert.ok(!r.stderr.includes("bundle-test-key-not-real"));
  } finally {
    silent.closeAllConnections();
    silent.close();
  }
});

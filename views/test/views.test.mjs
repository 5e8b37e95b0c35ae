// The views in a real browser: headless Chromium (Debian's chromium,
// driven by puppeteer-core) opens a test host built on the extension's
// AppBridge (host.ts), whose MCP client is this process's, connected over
// stdio to the built binary (ABS_MCP_BIN) as a client that declares MCP
// Apps. For each view: tools/list names its resource, resources/read gives
// its page and content security policy, the tool is called, the host
// renders the page with the answer, and the test reads what the view shows
// against the answer (titles, progress, gaps, bars) and known facts of the
// sample library. Against the stand-in (--demo) always; against a real
// Audiobookshelf with ABS_LIVE=1, AUDIOBOOKSHELF_URL and
// AUDIOBOOKSHELF_API_KEY (reads only). VIEWS_SCREENSHOTS=DIR saves each
// view in light and dark (docs/apps/ holds the stand-in's).
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import puppeteer from "puppeteer-core";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const here = dirname(fileURLToPath(import.meta.url));
const binary = process.env.ABS_MCP_BIN || join(here, "..", "..", "bin", "audiobookshelf-mcp");
const chromium = [process.env.CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => p && existsSync(p));
const shots = process.env.VIEWS_SCREENSHOTS;
const live = process.env.ABS_LIVE === "1" && process.env.AUDIOBOOKSHELF_URL && process.env.AUDIOBOOKSHELF_API_KEY;
const EXT = "io.modelcontextprotocol/ui";
const MIME = "text/html;profile=mcp-app";

if (!chromium && process.env.CI === "true") {
  test("Chromium in CI", () => assert.fail("CI runs the views' browser tests: .ci/run installs Debian's chromium"));
}
if (!chromium) {
  console.log("Chromium is not installed (apt-get install chromium, or CHROMIUM=path): the browser tests of the views did not run.");
}
if (!live) {
  console.log("No real Audiobookshelf (ABS_LIVE=1 with AUDIOBOOKSHELF_URL and AUDIOBOOKSHELF_API_KEY): the views were tried against the stand-in alone.");
}

// hours is the view's own format of a duration (src/common.ts).
function hours(s) {
  s = Math.max(0, Math.round(s));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h === 0 ? `${m} min` : `${h} h ${String(m).padStart(2, "0")} min`;
}

let browser;
let hostHTML;

before(async () => {
  if (!chromium) return;
  const r = await build({
    entryPoints: [join(here, "host.ts")],
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    target: "es2022",
    logLevel: "silent",
  });
  hostHTML = `<!doctype html><html><head><meta charset="utf-8"></head><body style="margin:0;padding:8px"><div id="host"></div><script>${r.outputFiles[0].text.replace(/<\/script/gi, "<\\/script")}</script></body></html>`;
  browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    protocolTimeout: 60000,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--font-render-hinting=none"],
  });
});

after(async () => {
  await browser?.close();
});

// connect starts the binary with env and connects as a client with MCP Apps.
async function connect(env, args = []) {
  const transport = new StdioClientTransport({
    command: binary,
    args,
    env: { PATH: process.env.PATH, ...env },
    stderr: "ignore",
  });
  const client = new Client({ name: "views-test-host", version: "1.0.0" }, { capabilities: { extensions: { [EXT]: { mimeTypes: [MIME] } } } });
  await client.connect(transport);
  return client;
}

// csp is the policy a host makes of the resource's declared domains.
function csp(meta) {
  const c = meta?.ui?.csp ?? {};
  const connect = (c.connectDomains ?? []).join(" ") || "'none'";
  const res = (c.resourceDomains ?? []).join(" ");
  return `default-src 'none'; script-src 'unsafe-inline' ${res}; style-src 'unsafe-inline' ${res}; img-src data: ${res}; font-src ${res || "'none'"}; connect-src ${connect}`;
}

// render calls tool with args and shows its view in theme; it answers the
// tool's structured content and the view's frame.
async function render(client, tool, args, theme) {
  const { tools } = await client.listTools();
  const def = tools.find((t) => t.name === tool);
  assert.ok(def, `${tool} is listed`);
  const uri = def._meta?.ui?.resourceUri;
  assert.match(uri ?? "", /^ui:\/\/audiobookshelf-mcp\/.+\.html$/, `${tool} names its view`);
  const res = await client.readResource({ uri });
  const content = res.contents[0];
  assert.equal(content.mimeType, MIME);
  const declared = content._meta?.ui?.csp;
  assert.deepEqual([declared?.connectDomains, declared?.resourceDomains], [[], []], "the view declares no outside origin");
  const result = await client.callTool({ name: tool, arguments: args });
  assert.ok(!result.isError, JSON.stringify(result.content));
  assert.ok(result.structuredContent, `${tool} answers with structured content`);
  assert.deepEqual(result.structuredContent, JSON.parse(result.content[0].text), "the structured content is the text's JSON");

  const page = await browser.newPage();
  await page.setViewport({ width: 460, height: 900, deviceScaleFactor: 2 });
  await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: theme }]);
  await page.exposeFunction("hostCallTool", (params) => client.callTool(params));
  if (process.env.VIEWS_DEBUG) page.on("console", (m) => console.log("page:", m.text()));
  await page.setContent(hostHTML);
  await page.evaluate((o) => window.show(o), { html: content.text, csp: csp(content._meta), theme, args, result });
  const handle = await page.waitForSelector("#view");
  const frame = await handle.contentFrame();
  await frame.waitForSelector('body[data-rendered="1"]', { timeout: 15000 });
  return { data: result.structuredContent, page, frame, handle };
}

async function shoot(page, handle, frame, name, theme) {
  if (!shots) return;
  mkdirSync(shots, { recursive: true });
  // The frame grows to its content (the view reports its size).
  await page.waitForFunction(() => document.getElementById("view").offsetHeight > 60);
  await new Promise((r) => setTimeout(r, 150));
  await handle.screenshot({ path: join(shots, `${name}-${theme}.png`) });
}

// checkNowListening holds the cards to the answer: one per entry in its
// order, with its title, its progress bar at its percentage and its time
// left; a cover from the cover tool through the host.
async function checkNowListening(r) {
  const cards = await r.frame.$$eval(".card", (cs) =>
    cs.map((c) => ({
      id: c.dataset.id,
      title: c.querySelector(".title").textContent,
      pct: Number(c.querySelector(".bar").getAttribute("aria-valuenow")),
      width: c.querySelector(".bar > span").style.width,
      place: c.querySelector(".place").textContent,
    })),
  );
  const items = r.data.items;
  assert.equal(cards.length, items.length, "one card per entry");
  items.forEach((it, i) => {
    const c = cards[i];
    assert.equal(c.id, it.id);
    assert.equal(c.title, it.episode?.title ?? it.title);
    assert.equal(c.pct, it.progress.progress_pct);
    assert.equal(c.width, `${it.progress.progress_pct}%`);
    const dur = it.episode?.duration_s ?? it.duration_s;
    if (dur) assert.ok(c.place.includes(`${hours(dur - it.progress.current_time_s)} left`), c.place);
  });
  return cards;
}

async function checkCovers(r) {
  await r.frame
    .waitForFunction(() => [...document.querySelectorAll("img.cover")].some((i) => i.classList.contains("loaded")), { timeout: 10000 })
    .catch(() => {});
  return r.frame.$$eval("img.cover.loaded", (is) => is.map((i) => i.src.slice(0, 23)));
}

// checkShelf holds each series to the answer: its books in order with
// their states, each gap in its place, the next book marked.
async function checkShelf(r) {
  const all = Array.isArray(r.data.series) ? r.data.series : [r.data];
  const shown = await r.frame.$$eval("section.series", (ss) =>
    ss.map((s) => ({
      id: s.dataset.id,
      name: s.querySelector("h1").textContent,
      rows: [...s.querySelectorAll("li.book")].map((li) => ({
        gap: li.classList.contains("gap"),
        seq: li.querySelector(".seq").textContent,
        title: li.querySelector(".t").textContent,
        state: li.dataset.state,
        next: li.classList.contains("next"),
      })),
    })),
  );
  assert.equal(shown.length, all.length, "one shelf per series");
  all.forEach((s, i) => {
    const v = shown[i];
    assert.equal(v.name, s.name);
    const books = v.rows.filter((x) => !x.gap);
    assert.deepEqual(books.map((b) => b.title), s.books.map((b) => b.title), `${s.name}: the books in order`);
    assert.deepEqual(books.map((b) => b.state), s.books.map((b) => b.state), `${s.name}: the states`);
    assert.deepEqual(v.rows.filter((x) => x.gap).map((x) => x.seq).sort(), (s.gaps ?? []).map((g) => `#${g}`).sort(), `${s.name}: the gaps`);
    const want = s.books.find((b) => b.state === "in_progress") ?? s.books.find((b) => b.state === "not_started");
    assert.deepEqual(books.filter((b) => b.next).map((b) => b.title), want ? [want.title] : [], `${s.name}: the next book`);
  });
  return shown;
}

// checkWhatNext holds what_next's shelves to the answer: what is in
// progress in order at its percentage; per series the gaps before its next
// book, and the next book marked.
async function checkWhatNext(r) {
  const now = await r.frame.$$eval("ol.now li", (ls) => ls.map((li) => [li.dataset.id, li.querySelector(".st").textContent]));
  assert.deepEqual(now.map(([id, st]) => [id, parseInt(st)]), (r.data.in_progress ?? []).map((b) => [b.library_item_id, b.progress_pct]), "in progress");
  const shown = await r.frame.$$eval("section.series", (ss) =>
    ss.map((s) => ({
      name: s.querySelector("h1").textContent,
      gaps: [...s.querySelectorAll("li.gap .seq")].map((x) => x.textContent),
      next: s.querySelector("li.next .t")?.textContent,
    })),
  );
  assert.deepEqual(
    shown,
    (r.data.next_in_series ?? []).map((s) => ({ name: s.series, gaps: (s.gap_before ?? []).map((g) => `#${g}`), next: s.next?.title })),
    "each series' gaps and next book",
  );
  return shown;
}

// checkChart holds the bars to the periods: one each, in order, with its
// seconds, the longest the tallest, an empty one flat; and the books
// finished by title.
async function checkChart(r) {
  const cols = await r.frame.$$eval(".col", (cs) =>
    cs.map((c) => ({ period: c.dataset.period, s: Number(c.dataset.seconds), h: c.querySelector(".b").getBoundingClientRect().height })),
  );
  const periods = r.data.periods ?? r.data.by_month;
  assert.deepEqual(cols.map((c) => [c.period, c.s]), periods.map((p) => [p.period, p.time_s]), "one bar per period");
  const max = Math.max(...periods.map((p) => p.time_s));
  if (max > 0) {
    const tallest = Math.max(...cols.map((c) => c.h));
    cols.forEach((c) => assert.ok(Math.abs(c.h / tallest - c.s / max) < 0.05, `${c.period}: bar ${c.h}px of ${tallest}px for ${c.s}s of ${max}s`));
  }
  const fin = await r.frame.$$eval(".fin li .t", (ts) => ts.map((t) => t.textContent));
  assert.deepEqual(fin, (r.data.finished ?? []).map((f) => (f.episode ? `${f.episode} (${f.title})` : f.title ?? f.library_item_id)), "the books and episodes finished");
  const total = await r.frame.$eval(".total", (e) => e.textContent);
  assert.ok(total.startsWith(hours(r.data.total_s ?? 0)), total);
  return { cols, fin };
}

describe("views against the stand-in", { skip: !chromium && "no Chromium" }, () => {
  let client;
  before(async () => {
    client = await connect({ AUDIOBOOKSHELF_TOOLSETS: "default,listening" }, ["--demo"]);
  });
  after(async () => {
    await client?.close();
  });

  for (const theme of ["light", "dark"]) {
    test(`now listening (${theme})`, async () => {
      const r = await render(client, "list_items_in_progress", {}, theme);
      const cards = await checkNowListening(r);
      const colour = cards.find((c) => c.title === "The Colour of Magic");
      assert.ok(colour, "The Colour of Magic is shown");
      assert.equal(colour.pct, 42);
      assert.ok(cards.some((c) => c.title === "The Paper Clip" && c.pct === 50), "the episode in progress");
      const covers = await checkCovers(r);
      assert.ok(covers.length > 0 && covers.every((s) => s === "data:image/jpeg;base64,"), `covers through the host: ${covers}`);
      // The color follows the theme.
      const color = await r.frame.$eval(".title", (e) => getComputedStyle(e).color);
      const lum = color.match(/\d+/g).slice(0, 3).reduce((a, b) => a + Number(b), 0);
      assert.ok(theme === "dark" ? lum > 500 : lum < 200, `${theme}: text ${color}`);
      await shoot(r.page, r.handle, r.frame, "now-listening", theme);
      // The button goes on in the conversation.
      await r.frame.$$eval(".card button", (bs) => bs[0].click());
      const messages = await r.page.waitForFunction(() => window.messages.length > 0 && window.messages).then((h) => h.jsonValue());
      assert.match(messages[0].content[0].text, /Discworld/);
      await r.page.close();
    });
  }

  test("now listening, detail full: no cards, a note", async () => {
    const r = await render(client, "list_items_in_progress", { detail: "full" }, "light");
    assert.equal(await r.frame.$$eval(".card", (cs) => cs.length), 0);
    assert.match(await r.frame.$eval(".note", (e) => e.textContent), /detail full/);
    await r.page.close();
  });

  test("series shelf with a gap", async () => {
    // Caliban's War moved from 2 to 5 leaves 2 and 4 missing in The Expanse.
    const before = (await client.callTool({ name: "get_series_progress", arguments: {} })).structuredContent;
    const expanse = before.series.find((s) => s.name === "The Expanse");
    const caliban = expanse.books.find((b) => b.title === "Caliban's War");
    const moved = await client.callTool({
      name: "call_tool",
      arguments: { name: "update_item_metadata", arguments: { library_item_id: caliban.library_item_id, fields: { series: [{ name: "The Expanse", sequence: "5" }] } } },
    });
    assert.ok(!moved.isError, JSON.stringify(moved.content));
    for (const theme of ["light", "dark"]) {
      const r = await render(client, "get_series_progress", {}, theme);
      const shown = await checkShelf(r);
      const ex = shown.find((s) => s.name === "The Expanse");
      assert.deepEqual(ex.rows.map((x) => x.seq), ["#1", "#2", "#3", "#4", "#5"]);
      assert.deepEqual(ex.rows.filter((x) => x.gap).map((x) => x.seq), ["#2", "#4"]);
      assert.equal(ex.rows.find((x) => x.next)?.title, "Abaddon's Gate");
      const dw = shown.find((s) => s.name === "Discworld");
      assert.equal(dw.rows.find((x) => x.next)?.title, "The Colour of Magic");
      await shoot(r.page, r.handle, r.frame, "series-shelf", theme);
      await r.page.close();
    }
  });

  test("what next, with the gap", async () => {
    // After the test above: The Expanse's next book is 3, with 2 missing.
    const r = await render(client, "what_next", {}, "light");
    const shown = await checkWhatNext(r);
    assert.deepEqual(shown.find((s) => s.name === "The Expanse"), { name: "The Expanse", gaps: ["#2"], next: "Abaddon's Gate" });
    assert.equal(shown.find((s) => s.name === "Discworld")?.next, "The Light Fantastic");
    await shoot(r.page, r.handle, r.frame, "what-next", "light");
    await r.page.close();
  });

  test("listening over time", async () => {
    for (const theme of ["light", "dark"]) {
      const r = await render(client, "get_listening_by_period", { from: "2025-10-01", to: "2026-01-31", by: "month" }, theme);
      const { cols, fin } = await checkChart(r);
      assert.deepEqual(cols.map((c) => c.period), ["2025-10", "2025-11", "2025-12", "2026-01"]);
      assert.ok(cols[0].h > cols[2].h && cols[3].h < 2, `bars ${cols.map((c) => c.h)}`);
      assert.ok(fin.includes("The Screw (The History of Tiny Things)"), `finished ${fin}`);
      await shoot(r.page, r.handle, r.frame, "listening-over-time", theme);
      await r.page.close();
    }
  });

  test("a year in one answer", async () => {
    const r = await render(client, "get_listening_year", { year: 2025 }, "light");
    const { cols, fin } = await checkChart(r);
    assert.deepEqual(cols.map((c) => c.period), Array.from({ length: 12 }, (_, i) => `2025-${String(i + 1).padStart(2, "0")}`));
    assert.ok(cols.some((c) => c.h > 0), `bars ${cols.map((c) => c.h)}`);
    assert.ok(fin.length > 0 && fin.length === r.data.finished.length, `finished ${fin}`);
    const head = await r.frame.$eval("h1", (e) => e.textContent);
    assert.equal(head, "Listening in 2025, by month");
    const total = await r.frame.$eval(".total", (e) => e.textContent);
    assert.ok(total.endsWith(`${r.data.counts.books_finished} finished`), total);
    await r.page.close();
  });
});

// The real Audiobookshelf is shared: the test makes a user of its own (and
// its key), whose progress on two books of a series is what the views
// show, and removes both at the end; nothing of anyone else's changes.
describe("views against a real Audiobookshelf", { skip: (!chromium && "no Chromium") || (!live && "no ABS_LIVE") }, () => {
  const base = (process.env.AUDIOBOOKSHELF_URL ?? "").replace(/\/+$/, "");
  const abs = async (method, path, body) => {
    const r = await fetch(base + path, {
      method,
      headers: { Authorization: `Bearer ${process.env.AUDIOBOOKSHELF_API_KEY}`, "Content-Type": "application/json" },
      body: body && JSON.stringify(body),
    });
    if (!r.ok) throw new Error(`${method} ${path}: ${r.status}`);
    const t = await r.text();
    return t && t !== "OK" ? JSON.parse(t) : {};
  };
  let client, user, key, series, first, second;
  before(async () => {
    const name = `mcp-views-${randomBytes(4).toString("hex")}`;
    user = (await abs("POST", "/api/users", { username: name, password: randomBytes(12).toString("hex"), type: "user", isActive: true })).user;
    key = (await abs("POST", "/api/api-keys", { name, userId: user.id, isActive: true, expiresIn: 3600 })).apiKey;
    const { libraries } = await abs("GET", "/api/libraries");
    for (const lib of libraries.filter((l) => l.mediaType === "book")) {
      const { results } = await abs("GET", `/api/libraries/${lib.id}/series?limit=100`);
      series = results.find((s) => (s.books ?? []).length >= 2);
      if (series) break;
    }
    assert.ok(series, "the real Audiobookshelf has a series of two books or more (the sample library's Discworld)");
    [first, second] = series.books;
    client = await connect({ AUDIOBOOKSHELF_URL: base, AUDIOBOOKSHELF_API_KEY: key.apiKey, AUDIOBOOKSHELF_TOOLSETS: "default,listening" });
    for (const args of [{ library_item_id: first.id, is_finished: true }, { library_item_id: second.id, progress: 0.3 }]) {
      const r = await client.callTool({ name: "set_media_progress", arguments: args });
      assert.ok(!r.isError, JSON.stringify(r.content));
    }
  });
  after(async () => {
    await client?.close();
    if (key) await abs("DELETE", `/api/api-keys/${key.id}`).catch(() => {});
    if (user) await abs("DELETE", `/api/users/${user.id}`);
  });
  test("now listening", async () => {
    const r = await render(client, "list_items_in_progress", {}, "light");
    const cards = await checkNowListening(r);
    assert.deepEqual(cards.map((c) => [c.id, c.pct]), [[second.id, 30]], "the book in progress at 30%");
    const covers = await checkCovers(r);
    if (second.media?.coverPath) assert.equal(covers.length, 1, "its cover through the host");
    await r.page.close();
  });
  test("series shelf", async () => {
    const r = await render(client, "get_series_progress", {}, "dark");
    const shown = await checkShelf(r);
    assert.equal(shown.length, 1);
    assert.equal(shown[0].name, series.name);
    const books = shown[0].rows.filter((x) => !x.gap);
    assert.deepEqual(books.slice(0, 2).map((b) => b.state), ["finished", "in_progress"]);
    assert.equal(books.find((b) => b.next)?.title, second.media.metadata.title);
    await r.page.close();
  });
  test("what next", async () => {
    const r = await render(client, "what_next", {}, "light");
    const shown = await checkWhatNext(r);
    assert.equal(shown.find((s) => s.name === series.name)?.next, series.books[2]?.media.metadata.title, "the book after the one in progress");
    await r.page.close();
  });
  test("listening over time", async () => {
    const to = new Date().toISOString().slice(0, 10);
    const from = `${Number(to.slice(0, 4)) - 1}${to.slice(4, 7)}-01`;
    const r = await render(client, "get_listening_by_period", { from, to, by: "month" }, "light");
    await checkChart(r);
    await r.page.close();
  });
});

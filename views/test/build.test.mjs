// views/dist is what views/src makes now: the embedded pages are a fresh
// build's, byte for byte, and a second build makes the same bytes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { buildAll } from "../build.mjs";

const dist = join(dirname(fileURLToPath(import.meta.url)), "..", "dist");

test("views/dist is a fresh build of views/src", async () => {
  const pages = await buildAll();
  const again = await buildAll();
  assert.deepEqual(Object.keys(pages).sort(), readdirSync(dist).filter((f) => f.endsWith(".html")).sort(), "one page per view, no other");
  for (const [f, html] of Object.entries(pages)) {
    assert.equal(again[f], html, `${f}: two builds differ`);
    assert.ok(readFileSync(join(dist, f), "utf8") === html, `views/dist/${f} is not what views/src makes now: run make views`);
    assert.doesNotMatch(html, /<script[^>]+src=|<link[^>]+href=|<img[^>]+src=/i, `${f} loads something from elsewhere`);
    assert.doesNotMatch(html, /url\(\s*["']?(https?:)?\/\//, `${f}'s styles load something from elsewhere`);
  }
});

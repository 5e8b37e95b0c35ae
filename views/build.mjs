// Builds each view of src/ (every NAME.ts but common.ts) into one
// self-contained page, dist/NAME.html: the script bundled with its npm
// packages (pinned in package-lock.json) by esbuild, minified, and the
// styles (style.css, then NAME.css), all inline; no outside address, no
// timestamp, so the same sources and lock file make the same bytes.
//
//   node build.mjs           write dist/
//   node build.mjs --check   exit 1, naming them, when dist/ differs
import { build } from "esbuild";
import { readFileSync, readdirSync, writeFileSync, existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const src = join(here, "src");
const dist = join(here, "dist");

export function names() {
  return readdirSync(src)
    .filter((f) => f.endsWith(".ts") && f !== "common.ts")
    .map((f) => f.slice(0, -3))
    .sort();
}

const titles = {
  "now-listening": "Now listening",
  "series-shelf": "Series shelf",
  "listening-over-time": "Listening over time",
};

// noZodLocales leaves out zod's error messages in other languages than
// English (half of zod's size): the views show no zod message, and the
// App's own checks stay as they are.
const noZodLocales = {
  name: "no-zod-locales",
  setup(b) {
    b.onResolve({ filter: /^\.\/[a-z]{2}(-[A-Za-z]+)?\.js$/ }, (a) => {
      if (!/[\\/]zod[\\/]v4[\\/]locales$/.test(a.resolveDir) || a.path === "./en.js") return undefined;
      return { path: a.path, namespace: "zod-locale-stub" };
    });
    b.onLoad({ filter: /.*/, namespace: "zod-locale-stub" }, () => ({
      contents: "export default function () { return { localeError: () => undefined }; }",
      loader: "js",
    }));
  },
};

export async function page(name) {
  const r = await build({
    entryPoints: [join(src, name + ".ts")],
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    target: "es2022",
    minify: true,
    legalComments: "none",
    charset: "utf8",
    logLevel: "silent",
    plugins: [noZodLocales],
  });
  const js = r.outputFiles[0].text.replace(/<\/script/gi, "<\\/script");
  const css = [join(src, "style.css"), join(src, name + ".css")]
    .filter(existsSync)
    .map((f) => readFileSync(f, "utf8"))
    .join("\n");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${titles[name] ?? name}</title>
<style>
${css}</style>
</head>
<body>
<main id="root"><p class="note">Waiting for the answer…</p></main>
<script>${js}</script>
</body>
</html>
`;
}

export async function buildAll() {
  const out = {};
  for (const n of names()) out[n + ".html"] = await page(n);
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const pages = await buildAll();
  const check = process.argv.includes("--check");
  const wanted = new Set(Object.keys(pages));
  const differ = [];
  mkdirSync(dist, { recursive: true });
  for (const [f, html] of Object.entries(pages)) {
    const p = join(dist, f);
    const have = existsSync(p) ? readFileSync(p, "utf8") : null;
    if (have === html) continue;
    if (check) differ.push(f);
    else writeFileSync(p, html);
  }
  for (const f of readdirSync(dist)) if (f.endsWith(".html") && !wanted.has(f)) differ.push(f + " (no source)");
  if (differ.length > 0) {
    console.error(`views/dist differs from what views/src makes: ${differ.join(", ")}; run make views`);
    process.exit(1);
  }
}

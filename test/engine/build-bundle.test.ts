/**
 * scripts/bundle.mjs: the launcher's builds bundle the CLI into a few files, and every bundled
 * module keeps the import.meta.url of its per-file copy (what cache keys name), its function
 * names, and its laziness (a dynamic import stays a chunk loaded on first import).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
// @ts-expect-error -- plain JavaScript build script without declarations
import { build } from "../../scripts/build.mjs";
// @ts-expect-error -- plain JavaScript build script without declarations
import { BUNDLE_MAIN } from "../../scripts/bundle.mjs";
import { tempDir } from "../tmp.ts";

const FILES: Record<string, string> = {
  "package.json": '{ "type": "module" }\n',
  "pipeline/main.ts": [
    'import { readFileSync } from "node:fs";',
    'import { here, helper as a } from "./a.ts";',
    'import { helper as b } from "./b.ts";',
    "const before = (globalThis as { lazyRan?: boolean }).lazyRan === true;",
    'const lazy = await import("./lazy.ts");',
    'const data = JSON.parse(readFileSync(new URL("./data.json", import.meta.url), "utf8")) as { n: number };',
    "console.log(JSON.stringify({ main: import.meta.url, a: here, lazy: lazy.here, before, names: [a.name, b.name], n: data.n }));",
    "",
  ].join("\n"),
  "pipeline/a.ts": "export const here: string = import.meta.url;\nexport function helper(): number { return 1; }\n",
  "pipeline/b.ts": "export function helper(): number { return 2; }\n",
  "pipeline/lazy.ts": "(globalThis as { lazyRan?: boolean }).lazyRan = true;\nexport const here: string = import.meta.url;\n",
  "pipeline/data.json": '{ "n": 7 }\n',
};

test("the bundled CLI sees the per-file modules' URLs, names and laziness", async () => {
  const root = tempDir("cspipe-bundle-");
  for (const [rel, text] of Object.entries(FILES)) {
    mkdirSync(join(root, rel, ".."), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  const out = join(root, "build");
  await build({ root, outDir: out, dirs: ["pipeline"], vendor: [], bundle: true });
  const runs = [BUNDLE_MAIN as string, "pipeline/main.js"].map((entry) => {
    const r = spawnSync(process.execPath, [join(out, entry)], { encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout) as unknown;
  });
  const url = (rel: string) => pathToFileURL(join(out, rel)).href;
  const expected = { main: url("pipeline/main.js"), a: url("pipeline/a.js"), lazy: url("pipeline/lazy.js"), before: false, names: ["helper", "helper"], n: 7 };
  assert.deepEqual(runs, [expected, expected]);
  // four modules in three files: the entry (main, a, b), the dynamic import's chunk, and the helper both share (esbuild's keepNames)
  assert.deepEqual(readdirSync(join(out, "bundle")).length, 3);
});

test("a build without `bundle` (npm run build) has no bundle", async () => {
  const root = tempDir("cspipe-bundle-");
  mkdirSync(join(root, "pipeline"));
  writeFileSync(join(root, "pipeline", "main.ts"), "export {};\n");
  const out = join(root, "build");
  await build({ root, outDir: out, dirs: ["pipeline"], vendor: [] });
  assert.deepEqual(readdirSync(out).sort(), ["build-manifest.json", "pipeline"]);
});

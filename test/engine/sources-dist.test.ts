/**
 * Compiled runs (scripts/build.mjs -> dist/): a module under dist/ is fingerprinted as the
 * .ts source it was built from, so compiled and tsx runs share keys; a source that changed
 * since the build makes the scanner throw `dist/ is stale`.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { SourceScanner, compiledModule, BUILD_MANIFEST } from "../../pipeline/engine/sources.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { fingerprintOf } from "../../pipeline/engine/keys.ts";
import { canonicalHash } from "../../pipeline/engine/canonical.ts";
import type { AnyStep } from "../../pipeline/engine/step.ts";
import type { TargetRegistry } from "../../pipeline/engine/targets.ts";
import { ROOT, tempDir } from "./helpers.ts";

const BUILD = join(ROOT, "scripts", "build.mjs");
const sha = (text: string) => createHash("sha256").update(text).digest("hex");

function build(args: readonly string[]) {
  return spawnSync(process.execPath, [BUILD, "--quiet", ...args], { encoding: "utf8" });
}

// A tiny project: every import form the build rewrites and the scanner follows.
const FILES: Record<string, string> = {
  "package.json": '{ "type": "module" }\n',
  "mod/a.ts": [
    'import { b } from "./b.ts";',
    'import type { C } from "./c.ts";',
    'import "./side.ts";',
    'export { d } from "./d.ts";',
    'export const DATA = new URL("./data.json", import.meta.url);',
    'export async function lazy(): Promise<string> { return (await import("./lazy.ts")).lazy; }',
    "export const value: C = b + 1;",
    "",
  ].join("\n"),
  "mod/b.ts": "export const b: number = 41;\n",
  "mod/c.ts": "export type C = number;\n",
  "mod/side.ts": "(globalThis as Record<string, unknown>).cspipeSide = 1;\n",
  "mod/d.ts": 'export const d = "d";\n',
  "mod/lazy.ts": 'export const lazy = "lazy";\n',
  "mod/data.json": '{ "x": 1 }\n',
  "other/x.ts": 'import { b } from "../mod/b.ts";\nexport const x = b;\n',
};

const fixture = tempDir("cspipe-dist-");
for (const [rel, text] of Object.entries(FILES)) {
  mkdirSync(join(fixture, rel, ".."), { recursive: true });
  writeFileSync(join(fixture, rel), text);
}
const src = (rel: string) => join(fixture, rel);
const dist = (rel: string) => join(fixture, "dist", rel);
const built = build(["--root", fixture, "--dirs", "mod"]);

test("the build compiles each module to dist/, rewrites .ts specifiers and records source digests", () => {
  assert.equal(built.status, 0, built.stderr);
  const a = readFileSync(dist("mod/a.js"), "utf8");
  for (const spec of ['"./b.js"', '"./side.js"', '"./d.js"', '"./lazy.js"', 'new URL("./data.json", import.meta.url)']) assert.ok(a.includes(spec), `${spec} in ${a}`);
  assert.ok(!a.includes(".ts\""), a);
  assert.ok(!a.includes("./c."), "type-only import erased");
  assert.equal(readFileSync(dist("mod/data.json"), "utf8"), FILES["mod/data.json"]);
  const manifest = JSON.parse(readFileSync(dist(BUILD_MANIFEST), "utf8")) as { format: number; files: Record<string, string> };
  assert.equal(manifest.format, 1);
  assert.deepEqual(Object.keys(manifest.files).sort(), ["mod/a.ts", "mod/b.ts", "mod/c.ts", "mod/d.ts", "mod/data.json", "mod/lazy.ts", "mod/side.ts"]);
  assert.equal(manifest.files["mod/a.ts"], sha(FILES["mod/a.ts"]!));
  assert.ok(!existsSync(dist("other/x.js")), "only --dirs are built");
});

test("compiled modules run with plain node and find their copied assets", async () => {
  const m = (await import(pathToFileURL(dist("mod/a.js")).href)) as { value: number; d: string; lazy: () => Promise<string>; DATA: URL };
  assert.equal(m.value, 42);
  assert.equal(m.d, "d");
  assert.equal(await m.lazy(), "lazy");
  assert.equal(m.DATA.href, pathToFileURL(dist("mod/data.json")).href);
});

test("a dist module is fingerprinted as its source: same files and digests as the .ts", () => {
  const fromSource = new SourceScanner(fixture).fingerprint(pathToFileURL(src("mod/a.ts")).href);
  const fromDist = new SourceScanner(fixture).fingerprint(pathToFileURL(dist("mod/a.js")).href);
  assert.deepEqual(fromDist, fromSource);
  assert.deepEqual(fromSource, {
    files: Object.fromEntries(["mod/a.ts", "mod/b.ts", "mod/d.ts", "mod/data.json", "mod/lazy.ts", "mod/side.ts"].map((f) => [f, sha(FILES[f]!)])),
    packages: {},
  });
  // A shared scanner caches per mode: the source closure first must not skip the dist check.
  const shared = new SourceScanner(fixture);
  assert.deepEqual(shared.fingerprint(src("mod/a.ts")), shared.fingerprint(dist("mod/a.js")));
});

function assertStale(fn: () => unknown, file: string, why: RegExp) {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof InputError, String(e));
    assert.equal(e.file, file);
    assert.match(e.message, /dist\/ is stale/);
    assert.match(e.message, why);
    assert.match(e.message, /npm run build/);
    return true;
  });
}

test("a source edited after the build: the .ts still fingerprints, the dist module is refused", () => {
  const before = FILES["mod/b.ts"]!;
  writeFileSync(src("mod/b.ts"), "export const b: number = 40;\n");
  try {
    assert.equal(new SourceScanner(fixture).fingerprint(src("mod/a.ts")).files["mod/b.ts"], sha("export const b: number = 40;\n"));
    assertStale(() => new SourceScanner(fixture).fingerprint(dist("mod/a.js")), "mod/b.ts", /changed since the last build/);
  } finally {
    writeFileSync(src("mod/b.ts"), before);
  }
  assert.equal(new SourceScanner(fixture).fingerprint(dist("mod/a.js")).files["mod/b.ts"], sha(before));
});

test("an edited copied asset is stale too", () => {
  writeFileSync(src("mod/data.json"), '{ "x": 2 }\n');
  try {
    assertStale(() => new SourceScanner(fixture).fingerprint(dist("mod/a.js")), "mod/data.json", /changed since the last build/);
  } finally {
    writeFileSync(src("mod/data.json"), FILES["mod/data.json"]!);
  }
});

test("a file in the closure that the build did not see, and a dist file no build produced, are refused", () => {
  const manifestPath = dist(BUILD_MANIFEST);
  const original = readFileSync(manifestPath, "utf8");
  const m = JSON.parse(original) as { files: Record<string, string> };
  delete m.files["mod/lazy.ts"];
  writeFileSync(manifestPath, JSON.stringify(m));
  try {
    assertStale(() => new SourceScanner(fixture).fingerprint(dist("mod/a.js")), "mod/lazy.ts", /not in the last build/);
  } finally {
    writeFileSync(manifestPath, original);
  }
  writeFileSync(dist("mod/extra.js"), "export {};\n");
  try {
    assertStale(() => new SourceScanner(fixture).fingerprint(dist("mod/extra.js")), "dist/mod/extra.js", /not produced by the last build/);
  } finally {
    unlinkSync(dist("mod/extra.js"));
  }
});

test("a dist without a build manifest is refused", () => {
  const other = tempDir("cspipe-dist-nomanifest-");
  mkdirSync(join(other, "dist"), { recursive: true });
  writeFileSync(join(other, "dist", "a.js"), "export {};\n");
  assert.throws(() => new SourceScanner(other).fingerprint(join(other, "dist", "a.js")), /no readable build manifest[\s\S]*npm run build/);
  rmSync(other, { recursive: true, force: true });
});

test("compiledModule maps project .ts modules to dist/ and refuses what it cannot load", () => {
  assert.equal(compiledModule(fixture, src("mod/a.ts")), dist("mod/a.js"));
  assert.equal(compiledModule(fixture, dist("mod/a.js")), dist("mod/a.js"));
  assert.equal(compiledModule(fixture, src("mod/plain.js")), src("mod/plain.js"));
  assert.throws(() => compiledModule(fixture, src("other/x.ts")), /dist\/ is stale: other\/x.ts was not compiled/);
  assert.throws(() => compiledModule(fixture, "/elsewhere/defs.ts"), /cannot load TypeScript from outside the project/);
});

test("the build refuses imports that leave the built folders", () => {
  const r = build(["--root", fixture, "--dirs", "other", "--out", join(fixture, "dist-other")]);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /imports outside the build.*other\/x\.ts -> mod\/b\.ts/);
  assert.ok(!existsSync(join(fixture, "dist-other")), "nothing is left behind");
});

// The real engine and benchmark step definitions, compiled into a temp dist inside the
// project (so the compiled modules resolve node_modules), against their tsx-loaded twins.
const realDist = tempDir(".cspipe-test-dist-", join(ROOT, "node_modules"));
after(() => {
  rmSync(realDist, { recursive: true, force: true });
  rmSync(fixture, { recursive: true, force: true });
});

test("keys of a dist-loaded step equal those of the tsx-loaded step", async () => {
  const r = build(["--root", ROOT, "--dirs", "pipeline/engine,bench/engine/dag.ts,bench/engine/shape.ts", "--out", realDist]);
  assert.equal(r.status, 0, r.stderr);
  type DagModule = { buildBenchTargets: (shape: { layers: number; width: number }) => TargetRegistry };
  const viaTsx = (await import("../../bench/engine/dag.ts")) as DagModule;
  const viaDist = (await import(pathToFileURL(join(realDist, "bench", "engine", "dag.js")).href)) as DagModule;
  const stepsOf = (m: DagModule): AnyStep[] => [...m.buildBenchTargets({ layers: 1, width: 2 }).get("dag")!.steps({ data: "mini" })];
  const [a] = stepsOf(viaTsx);
  const [b] = stepsOf(viaDist);
  assert.ok(a && b);
  assert.ok(a.def.source.endsWith("/bench/engine/dag.ts"));
  assert.ok(b.def.source.startsWith(pathToFileURL(realDist).href) && b.def.source.endsWith("/bench/engine/dag.js"));
  const scanner = new SourceScanner(ROOT, { distDir: realDist });
  const ctx = { scanner, lock: { version: 1 as const, entries: {} }, env: {}, executor: "local" };
  const fa = fingerprintOf(a, { name: "x" }, () => undefined, ctx);
  const fb = fingerprintOf(b, { name: "x" }, () => undefined, ctx);
  assert.ok(fa && fb);
  assert.deepEqual(fb, fa);
  assert.equal(canonicalHash(fb), canonicalHash(fa));
  assert.ok(Object.keys(fa.sources).includes("pipeline/engine/step.ts") && Object.keys(fa.sources).includes("bench/engine/shape.ts"));
  assert.equal(fa.packages.zod, (JSON.parse(readFileSync(join(ROOT, "node_modules", "zod", "package.json"), "utf8")) as { version: string }).version);
});

test("zod is bundled into dist/vendor/ and pinned to the installed version", () => {
  assert.match(readFileSync(join(realDist, "bench", "engine", "dag.js"), "utf8"), /from "\.\.\/\.\.\/vendor\/zod\.js"/);
  const manifestPath = join(realDist, BUILD_MANIFEST);
  const original = readFileSync(manifestPath, "utf8");
  const m = JSON.parse(original) as { packages: Record<string, string> };
  const installed = (JSON.parse(readFileSync(join(ROOT, "node_modules", "zod", "package.json"), "utf8")) as { version: string }).version;
  assert.deepEqual(m.packages, { zod: installed });
  writeFileSync(manifestPath, JSON.stringify({ ...m, packages: { zod: "0.0.1" } }));
  try {
    assert.throws(() => new SourceScanner(ROOT, { distDir: realDist }).fingerprint(join(realDist, "bench", "engine", "dag.js")), /dist\/ is stale: it bundles zod 0\.0\.1, installed is /);
  } finally {
    writeFileSync(manifestPath, original);
  }
});

test("every module and asset the CLI reaches is in a whole-project build (nothing is stale right after building)", () => {
  const whole = tempDir(".cspipe-test-dist-", join(ROOT, "node_modules"));
  try {
    const r = build(["--root", ROOT, "--out", whole]);
    assert.equal(r.status, 0, r.stderr);
    const scanner = new SourceScanner(ROOT, { distDir: whole });
    // The CLI's closure reaches every step module and the assets they load with new URL(...),
    // e.g. the Dagger executor's log_tee.py: each must be recorded by the build.
    const fp = scanner.fingerprint(join(whole, "pipeline", "main.js"));
    assert.ok(Object.keys(fp.files).includes("pipeline/executors/dagger/log_tee.py"), Object.keys(fp.files).join(", "));
  } finally {
    rmSync(whole, { recursive: true, force: true });
  }
});

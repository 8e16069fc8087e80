// bench/main.ts: every benchmark folder is reachable through the dispatcher, and every entry
// takes --quick (the lead re-runs them all on a quiet machine with one command each).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { BENCHMARKS, resolveNames, splitArgs } from "../../bench/main.ts";
import { ROOT } from "../engine/helpers.ts";

const BENCH = join(ROOT, "bench");

test("every bench folder with a TypeScript entry is registered, and every entry exists and takes --quick", () => {
  const folders = readdirSync(BENCH, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== "out" && readdirSync(join(BENCH, d.name)).some((f) => f.endsWith(".ts")))
    .map((d) => d.name)
    .sort();
  const registered = [...new Set(Object.values(BENCHMARKS).map((b) => b.entry.split("/")[0]!))].sort();
  assert.deepEqual(registered, folders);
  for (const [name, b] of Object.entries(BENCHMARKS)) {
    const entry = join(BENCH, b.entry);
    assert.ok(existsSync(entry), `${name}: ${b.entry}`);
    assert.match(readFileSync(entry, "utf8"), /--quick/, `${name} takes --quick`);
  }
});

test("arguments: leading names, then options passed on; all and the default", () => {
  assert.deepEqual(splitArgs(["bm25", "dense", "--quick", "x"]), { names: ["bm25", "dense"], rest: ["--quick", "x"] });
  assert.deepEqual(resolveNames([]), ["engine"]);
  assert.deepEqual(resolveNames(["all"]), Object.keys(BENCHMARKS));
  assert.throws(() => resolveNames(["nope"]), /unknown benchmark\(s\) nope; known: engine, bm25/);
});

test("--list names every benchmark with its entry", () => {
  const r = spawnSync(process.execPath, ["--import", "tsx", join(BENCH, "main.ts"), "--list"], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  for (const [name, b] of Object.entries(BENCHMARKS)) assert.match(r.stdout, new RegExp(`^${name} +bench/${b.entry}`, "m"));
});

test("an unknown benchmark name is a one-line error and exit code 2, before anything runs", () => {
  const r = spawnSync(process.execPath, ["--import", "tsx", join(BENCH, "main.ts"), "engine", "nope", "--quick"], { encoding: "utf8" });
  assert.equal(r.status, 2);
  assert.equal(r.stdout, "");
  assert.match(r.stderr, /^bench: unknown benchmark\(s\) nope; known: engine, /);
});

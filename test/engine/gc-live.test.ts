/**
 * `gc` never removes what a live run holds, produced or may still read, and keeps an
 * interrupted run's finished entries for a grace period. Races of `run` and `gc` over
 * many seeds (in one process, at every await point), across processes, and after a kill.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { z } from "zod";
import { defineStep, file, use, type AnyStep } from "../../pipeline/engine/step.ts";
import { collectGarbage } from "../../pipeline/session.ts";
import { mulberry32 } from "../../steps/lib/prng.ts";
import { ROOT, project, registry, run, tempDir } from "./helpers.ts";
import { buildTargets } from "../fixtures/engine/store-targets.ts";

const dir = tempDir();
const src = join(dir, "steps.ts");
writeFileSync(src, "export const steps = 1;\n");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const root = defineStep({
  id: "seed-text",
  version: 1,
  source: src,
  params: z.object({ text: z.string(), ms: z.number() }).strict(),
  inputs: {},
  outputs: { text: file("text:plain", "t.txt") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      await sleep(ctx.params.ms);
      writeFileSync(ctx.outputs.text, ctx.params.text);
    },
  },
});
const append = defineStep({
  id: "append-text",
  version: 1,
  source: src,
  params: z.object({ suffix: z.string(), ms: z.number() }).strict(),
  inputs: { text: "text:plain" },
  outputs: { text: file("text:plain", "t.txt") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const text = readFileSync(ctx.inputs.text, "utf8");
      await sleep(ctx.params.ms);
      writeFileSync(ctx.outputs.text, text + ctx.params.suffix);
    },
  },
});

/** Two chains of `length` steps with small random sleeps. */
function chains(seed: number, length: number): AnyStep[] {
  const rnd = mulberry32(seed);
  const ms = () => Math.floor(rnd() * 6);
  return ["x", "y"].map((c) => {
    let text = use(root, { name: `${c}0`, params: { text: `${seed}${c}`, ms: ms() }, inputs: {} }).out.text;
    for (let i = 1; i < length; i++) text = use(append, { name: `${c}${i}`, params: { suffix: String(i), ms: ms() }, inputs: { text } }).out.text;
    return text.step;
  });
}

test("run and gc racing in one process over 8 seeds: the run always succeeds and keeps every entry", { timeout: 120_000 }, async () => {
  for (let seed = 1; seed <= 8; seed++) {
    const p = project(registry({ old: () => chains(1000 + seed, 2), t: () => chains(seed, 5) }));
    await run(p, ["old"]); // an earlier run: with --keep-runs 1 it alone is "recent"
    const rnd = mulberry32(seed * 7919);
    let done = false;
    const running = run(p, ["t"], { concurrency: 2 }).finally(() => (done = true));
    let collections = 0;
    while (!done) {
      await sleep(Math.floor(rnd() * 8));
      await collectGarbage(p, { keepRuns: 1, scratch: rnd() < 0.5 });
      collections++;
    }
    const r = await running;
    assert.equal(r.outcome.ok, true, `seed ${seed}: ${JSON.stringify("result" in r.outcome ? r.outcome.result.failures : r.outcome.analysis)}`);
    assert.ok(collections > 0);
    const res = "result" in r.outcome ? r.outcome.result : undefined;
    for (const [name, sr] of res!.results) assert.ok(sr.entry && existsSync(join(sr.entry.dir, "manifest.json")), `seed ${seed}: ${name} survived`);
    const again = await run(p, ["t"]);
    assert.deepEqual(again.executed, [], `seed ${seed}: nothing recomputed`);
  }
});

const MAIN = join(ROOT, "pipeline", "main.ts");
const DEFS = join(ROOT, "test", "fixtures", "engine", "targets.ts");
const STORE_DEFS = join(ROOT, "test", "fixtures", "engine", "store-targets.ts");
function cli(args: string[], env: Record<string, string> = {}, defs = DEFS): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", MAIN, ...args], { cwd: ROOT, env: { ...process.env, CSPIPE_DEFINITIONS: defs, ...env }, stdio: ["ignore", "pipe", "pipe"] });
}
function cliSync(args: string[], env: Record<string, string> = {}, defs = DEFS) {
  return spawnSync(process.execPath, ["--import", "tsx", MAIN, ...args], { cwd: ROOT, env: { ...process.env, CSPIPE_DEFINITIONS: defs, ...env }, encoding: "utf8" });
}
const exited = (c: ChildProcess) => new Promise<number | null>((r) => c.on("close", (code) => r(code)));

test("gc in another process while a run is going removes none of its entries", { timeout: 120_000 }, async () => {
  const store = join(tempDir(), "store");
  const child = cli(["--store", store, "run", "chain", "--concurrency", "1"], { CSPIPE_TEST_SLEEP_MS: "100" });
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  const code = exited(child);
  let finished = false;
  void code.then(() => (finished = true));
  let gcs = 0;
  // gc refuses a store that does not exist (a mistyped --store): start once the run has made it.
  while (!existsSync(store) && !finished) await sleep(20);
  while (!finished) {
    const g = cli(["--store", store, "gc", "--keep-runs", "1"]);
    let gcErr = "";
    g.stderr!.on("data", (d: Buffer) => (gcErr += d.toString()));
    assert.equal(await exited(g), 0, gcErr);
    gcs++;
  }
  assert.equal(await code, 0, out);
  assert.ok(gcs >= 1);
  const again = cliSync(["--store", store, "run", "chain"]);
  assert.match(again.stdout, /ok: 0 executed, 5 cached/);
});

test("an interrupted run's finished entries survive gc for the grace period", { timeout: 120_000 }, async () => {
  const dir = tempDir();
  const store = join(dir, "store");
  const pidfile = join(dir, "trainer.pid");
  const child = cli(["--store", store, "run", "train", "--json"], { CSPIPE_TEST_PIDFILE: pidfile }, STORE_DEFS);
  const lines = createInterface({ input: child.stdout! });
  let killed = false;
  lines.on("line", (line) => {
    const ev = JSON.parse(line) as { type: string; step?: string };
    if (!killed && ev.type === "started" && ev.step === "train") {
      killed = true;
      child.kill("SIGKILL");
    }
  });
  await exited(child);
  assert.ok(killed);
  for (let i = 0; i < 50 && !existsSync(pidfile); i++) await sleep(50);
  if (existsSync(pidfile)) {
    try {
      process.kill(Number(readFileSync(pidfile, "utf8")), "SIGKILL"); // the orphaned trainer
    } catch {
      /* already gone */
    }
  }
  // A later run: with --keep-runs 1 only its record is recent (the killed run wrote none).
  const p = project(buildTargets(), { store });
  assert.equal((await run(p, ["quick"])).outcome.ok, true);
  const kept = await collectGarbage(p, { keepRuns: 1 });
  assert.deepEqual(kept.removed.map((e) => e.manifest.step.name), []);
  assert.equal(kept.interrupted.length, 1);
  assert.equal(kept.keptBy.interruptedRuns, 2, "prepare's key and train's (claimed, never finished)");
  const removed = await collectGarbage(p, { keepRuns: 1, graceMs: 0 });
  assert.deepEqual(removed.removed.map((e) => e.manifest.step.name), ["prepare"]);
});

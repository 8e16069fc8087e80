/**
 * Damaged store files never wedge the store: an entry without manifest.json, a truncated
 * manifest, orphan staging and leases. Runs recompute such entries (moving them aside),
 * `ls` and `gc` name the file and go on, and `doctor` finds and repairs them, naming each.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, truncateSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, file, use } from "../../pipeline/engine/step.ts";
import type { Entry } from "../../pipeline/engine/store.ts";
import { collectGarbage, listEntries } from "../../pipeline/session.ts";
import { diagnoseStore, repairStore } from "../../pipeline/engine/doctor.ts";
import { ROOT, project, registry, run, makeTextStep } from "./helpers.ts";

const { src, make } = makeTextStep();
const upper = defineStep({
  id: "upper-text",
  version: 1,
  source: src,
  params: z.object({}).strict(),
  inputs: { text: "text:plain" },
  outputs: { text: file("text:plain", "upper.txt") },
  runtime: { type: "in-process", async run(ctx) { writeFileSync(ctx.outputs.text, readFileSync(ctx.inputs.text, "utf8").toUpperCase()); } },
});
const targets = () => registry({ t: () => [use(upper, { name: "upper", inputs: { text: use(make, { name: "make", params: { text: "abc" }, inputs: {} }).out.text } })] });

function entryOf(r: Awaited<ReturnType<typeof run>>, step: string): Entry {
  const e = ("result" in r.outcome ? r.outcome.result : undefined)?.results.get(step)?.entry;
  assert.ok(e);
  return e;
}
const listing = (d: string) => (existsSync(d) ? readdirSync(d) : []);

test("an entry without manifest.json is moved aside and recomputed; no staging leaks", async () => {
  const p = project(targets());
  const first = await run(p, ["t"]);
  const made = entryOf(first, "make");
  rmSync(join(made.dir, "manifest.json"));
  for (let i = 0; i < 2; i++) {
    const again = await run(p, ["t"]);
    assert.equal(again.outcome.ok, true, JSON.stringify("result" in again.outcome ? again.outcome.result.failures : again.outcome.analysis));
    assert.deepEqual(again.executed, i === 0 ? ["make"] : []);
  }
  assert.deepEqual(listing(join(p.store.root, "staging")), []);
  assert.equal(listing(join(p.store.root, "damaged", "make-text")).length, 1);
  assert.equal(readFileSync(p.store.outputPath(entryOf(await run(p, ["t"]), "upper"), "text"), "utf8"), "ABC");
});

test("a truncated manifest.json: run recomputes it; ls and gc name the file and go on", async () => {
  const p = project(targets());
  const first = await run(p, ["t"]);
  const up = entryOf(first, "upper");
  const manifest = join(up.dir, "manifest.json");
  truncateSync(manifest, 100);

  const listed = await listEntries(p);
  assert.deepEqual(listed.map((e) => e.name), ["make"]);
  const scan = await p.store.scan();
  assert.equal(scan.damaged.length, 1);
  assert.equal(scan.damaged[0]!.file, manifest);
  assert.match(scan.damaged[0]!.problem, /JSON/);
  const gc = await collectGarbage(p, { keepRuns: 5 });
  assert.deepEqual(gc.removed, []);
  assert.equal(gc.damaged.length, 1);

  const again = await run(p, ["t"]);
  assert.equal(again.outcome.ok, true);
  assert.deepEqual(again.executed, ["upper"]);
  assert.deepEqual((await p.store.scan()).damaged, []);
});

test("the CLI: ls warns naming the damaged manifest; doctor lists every problem and --repair fixes each", async () => {
  const p = project(targets());
  const first = await run(p, ["t"]);
  const store = p.store.root;
  const up = entryOf(first, "upper");
  const made = entryOf(first, "make");
  truncateSync(join(up.dir, "manifest.json"), 100);
  rmSync(join(made.dir, "manifest.json"));
  // Debris of a killed run: its staging directory and its lease (a pid that no longer runs).
  const deadPid = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout;
  mkdirSync(join(store, "staging", `${"a".repeat(64)}.${deadPid}.0abc`, "outputs"), { recursive: true });
  writeFileSync(join(store, "leases", `${"b".repeat(64)}.lease`), JSON.stringify({ pid: Number(deadPid), host: hostname(), since: new Date().toISOString() }));
  writeFileSync(join(store, "leases", `${"c".repeat(64)}.lease`), '{"pid": 12');
  // A writer that died, not one still writing: doctor leaves a lease younger than its write window
  // (1 s) alone, and how long the CLI call below takes must not decide what this test sees.
  const past = new Date(Date.now() - 60_000);
  utimesSync(join(store, "leases", `${"c".repeat(64)}.lease`), past, past);

  const cli = (...args: string[]) => spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "pipeline", "main.ts"), "--store", store, ...args], { cwd: ROOT, encoding: "utf8", env: { ...process.env, CSPIPE_DEFINITIONS: join(ROOT, "test", "fixtures", "engine", "targets.ts") } });
  const ls = cli("ls");
  assert.equal(ls.status, 0, ls.stderr);
  assert.ok(ls.stderr.includes(join(up.dir, "manifest.json")), ls.stderr);
  assert.match(ls.stderr, /doctor --repair/);

  const findings = await diagnoseStore(p.store);
  assert.deepEqual(findings.map((f) => f.kind).sort(), ["entry-without-manifest", "orphan-lease", "orphan-staging", "unreadable-lease", "unreadable-manifest"]);
  const doc = cli("doctor");
  assert.equal(doc.status, 1, doc.stdout + doc.stderr);
  for (const f of findings) assert.ok(doc.stdout.includes(f.path), `doctor names ${f.path}:\n${doc.stdout}`);
  const fixed = cli("doctor", "--repair");
  assert.equal(fixed.status, 0, fixed.stdout + fixed.stderr);
  assert.match(fixed.stdout, /repaired 5 problems/);
  assert.deepEqual(await diagnoseStore(p.store), []);
  assert.deepEqual(listing(join(store, "staging")), []);
  assert.deepEqual(listing(join(store, "leases")), []);
  assert.deepEqual(listing(join(store, "damaged")).sort(), ["make-text", "upper-text"]);
});

test("store files that do not parse are errors naming the file (pins, run records): gc refuses rather than guess", async () => {
  const p = project(targets());
  await run(p, ["t"]);
  mkdirSync(join(p.store.root, "pins"), { recursive: true });
  const pin = join(p.store.root, "pins", "paper.json");
  writeFileSync(pin, '{"name": "paper", "keys": ["');
  await assert.rejects(collectGarbage(p, { keepRuns: 1 }), (e: Error) => e.message.includes(pin) && /doctor/.test(e.message));
  const findings = await diagnoseStore(p.store);
  assert.deepEqual(findings.map((f) => [f.kind, f.path]), [["unreadable-pin", pin]]);
  const repaired = await repairStore(p.store, findings);
  assert.equal(repaired.length, 1);
  assert.ok(!existsSync(pin));
  assert.ok((await collectGarbage(p, { keepRuns: 1 })).removed.length === 0);
});

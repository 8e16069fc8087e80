/**
 * A run reuses the plan made just before it (RunOptions.planned: the `plan` event's rows): the
 * planned keys where the inputs' digests are the planned ones, and the entries the plan read,
 * checked against their bytes instead of read again. A planned entry that is gone or changed by
 * the time the run looks is never trusted: the store is read afresh, as without a plan.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, file, use, type AnyStep } from "../../pipeline/engine/step.ts";
import { planGraph, runGraph, type PlanRow } from "../../pipeline/engine/engine.ts";
import { plannedKey } from "../../pipeline/engine/plan.ts";
import type { EngineEvent } from "../../pipeline/engine/events.ts";
import type { KeyContext } from "../../pipeline/engine/keys.ts";
import type { Project } from "../../pipeline/session.ts";
import { LocalExecutor } from "../../pipeline/executors/local.ts";
import { project, registry, tempDir } from "./helpers.ts";

const dir = tempDir();
const src = join(dir, "steps.ts");
writeFileSync(src, "export const steps = 1;\n");
const counter = join(dir, "executions.log");

const seed = defineStep({
  id: "seed-text",
  version: 1,
  source: src,
  params: z.object({ text: z.string() }).strict(),
  inputs: {},
  outputs: { out: file("text:plain", "out.txt") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      writeFileSync(counter, "seed\n", { flag: "a" });
      writeFileSync(ctx.outputs.out, ctx.params.text);
    },
  },
});

const upper = defineStep({
  id: "upper-text",
  version: 1,
  source: src,
  params: z.object({}).strict(),
  inputs: { text: "text:plain" },
  outputs: { out: file("text:plain", "out.txt") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      writeFileSync(counter, "upper\n", { flag: "a" });
      writeFileSync(ctx.outputs.out, readFileSync(ctx.inputs.text, "utf8").toUpperCase());
    },
  },
});

function chain(): AnyStep[] {
  const s = use(seed, { name: "seed", params: { text: "abc" }, inputs: {} });
  return [use(upper, { name: "upper", inputs: { text: s.out.out } })];
}

const executions = () => readFileSync(counter, "utf8").trim().split("\n").filter(Boolean);

async function runWithPlan(p: Project, rows: readonly PlanRow[] | undefined, planKeys?: KeyContext) {
  const keys = p.keyContext("local");
  const g = p.graph(["t"]);
  assert.ok(g.ok);
  const events: EngineEvent[] = [];
  const r = await runGraph(g.graph, {
    store: p.store, executor: new LocalExecutor({ env: { PATH: process.env.PATH } }), keys, sourceRoot: p.root, settings: {},
    emit: (e) => events.push(e), concurrency: 1, failureMode: "stop", force: new Set(), verify: false, targets: ["t"], tools: {}, record: false,
    ...(rows ? { planned: { graph: g.graph, keys: planKeys ?? keys, rows: new Map(rows.map((row) => [row.step, row])) } } : {}),
  });
  assert.ok(r.ok, JSON.stringify(r.failures));
  return { r, events, graph: g.graph };
}

async function planned(p: Project): Promise<PlanRow[]> {
  const g = p.graph(["t"]);
  assert.ok(g.ok);
  return planGraph(g.graph, { store: p.store, keys: p.keyContext("local"), force: new Set() });
}

test("plannedKey: the row's key only while the inputs have the planned digests, for the row's own step", async () => {
  writeFileSync(counter, "");
  const p = project(registry({ t: chain }));
  const { r, graph } = await runWithPlan(p, undefined);
  const rows = await planned(p);
  const up = graph.byName.get("upper")!;
  const row = rows.find((x) => x.step === "upper")!;
  assert.equal(row.status, "cached");
  const seedEntry = r.results.get("seed")!.entry!;
  assert.deepEqual(plannedKey(up, row, { text: { entry: seedEntry, output: "out" } }), { fingerprint: row.fingerprint, key: row.key });
  const other = { ...seedEntry, manifest: { ...seedEntry.manifest, outputs: { out: { ...seedEntry.manifest.outputs.out!, digest: "0".repeat(64) } } } };
  assert.equal(plannedKey(up, row, { text: { entry: other, output: "out" } }), undefined);
  assert.equal(plannedKey(up, row, {}), undefined);
  assert.equal(plannedKey(graph.byName.get("seed")!, row, {}), undefined);
  assert.equal(plannedKey(up, { step: "upper", stepId: "upper-text", status: "pending" }, { text: { entry: seedEntry, output: "out" } }), undefined);
});

test("a no-op rerun with the plan's rows hits the planned entries (the same objects) under the same keys", async () => {
  writeFileSync(counter, "");
  const p = project(registry({ t: chain }));
  const first = await runWithPlan(p, undefined);
  const rows = await planned(p);
  const again = await runWithPlan(p, rows);
  assert.deepEqual(executions(), ["seed", "upper"]);
  for (const row of rows) {
    const res = again.r.results.get(row.step)!;
    assert.equal(res.status, "cached");
    assert.equal(res.entry, row.entry, `${row.step}: the plan's entry object`);
    assert.equal(res.key, first.r.results.get(row.step)!.key);
  }
});

test("a planned entry removed before the run looks is recomputed, with no tampered event", async () => {
  writeFileSync(counter, "");
  const p = project(registry({ t: chain }));
  await runWithPlan(p, undefined);
  const rows = await planned(p);
  const seedRow = rows.find((x) => x.step === "seed")!;
  rmSync(seedRow.entry!.dir, { recursive: true }); // e.g. gc between the plan and the run
  const { r, events } = await runWithPlan(p, rows);
  assert.deepEqual(executions(), ["seed", "upper", "seed"]);
  assert.equal(events.filter((e) => e.type === "tampered").length, 0);
  assert.equal(r.results.get("seed")!.status, "executed");
  assert.equal(r.results.get("upper")!.status, "cached", "the same bytes again: the consumer stays cached");
});

test("a planned entry whose bytes changed before the run looks is moved aside and recomputed, as without a plan", async () => {
  writeFileSync(counter, "");
  const p = project(registry({ t: chain }));
  await runWithPlan(p, undefined);
  const rows = await planned(p);
  const seedRow = rows.find((x) => x.step === "seed")!;
  writeFileSync(p.store.outputPath(seedRow.entry!, "out"), "tampered");
  const { r, events } = await runWithPlan(p, rows);
  assert.deepEqual(executions(), ["seed", "upper", "seed"]);
  assert.deepEqual(events.filter((e) => e.type === "tampered").map((e) => (e as { step: string }).step), ["seed"]);
  assert.equal(readFileSync(p.store.outputPath(r.results.get("seed")!.entry!, "out"), "utf8"), "abc");
});

test("rows planned with another key context are not used", async () => {
  writeFileSync(counter, "");
  const p = project(registry({ t: chain }));
  await runWithPlan(p, undefined);
  const rows = await planned(p);
  // Rows that would name a bogus key: a run with a different key context must compute its own.
  const bogus = rows.map((row) => ({ ...row, key: "f".repeat(64) }));
  const { r } = await runWithPlan(p, bogus, p.keyContext("local"));
  for (const row of rows) assert.equal(r.results.get(row.step)!.key, row.key);
  assert.deepEqual(executions(), ["seed", "upper"]);
});

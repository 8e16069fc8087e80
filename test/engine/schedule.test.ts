/**
 * Critical-path scheduling: bottom levels from cost hints, the priority semaphore, and the
 * engine starting the longest chain first when there are fewer slots than ready steps.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, file, use, type AnyStep } from "../../pipeline/engine/step.ts";
import { analyze } from "../../pipeline/engine/graph.ts";
import { bottomLevels, PrioritySemaphore, stepCost } from "../../pipeline/engine/schedule.ts";
import { project, registry, run, tempDir } from "./helpers.ts";

const dir = tempDir();
const src = join(dir, "steps.ts");
writeFileSync(src, "export const s = 1;\n");

const work = defineStep({
  id: "work",
  version: 1,
  source: src,
  params: z.object({ cost: z.number(), tag: z.string() }).strict(),
  inputs: {},
  outputs: { out: file("text:plain", "out.txt") },
  cost: (p) => p.cost,
  runtime: {
    type: "in-process",
    async run(ctx) {
      writeFileSync(ctx.outputs.out, ctx.params.tag);
    },
  },
});

const after = defineStep({
  id: "after",
  version: 1,
  source: src,
  params: z.object({ cost: z.number() }).strict(),
  inputs: { prev: "text:plain" },
  outputs: { out: file("text:plain", "out.txt") },
  cost: (p) => p.cost,
  runtime: {
    type: "in-process",
    async run(ctx) {
      writeFileSync(ctx.outputs.out, "after");
    },
  },
});

const plain = defineStep({
  id: "plain",
  version: 1,
  source: src,
  params: z.object({}).strict(),
  inputs: {},
  outputs: { out: file("text:plain", "out.txt") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      writeFileSync(ctx.outputs.out, "plain");
    },
  },
});

/**
 * a-cheap (1)   b-head (2) -> b-tail (50)   c-mid (10)
 * Bottom levels: a-cheap 1, b-head 52, b-tail 50, c-mid 10.
 */
function graph(): AnyStep[] {
  const head = use(work, { name: "b-head", params: { cost: 2, tag: "b" }, inputs: {} });
  return [
    use(work, { name: "a-cheap", params: { cost: 1, tag: "a" }, inputs: {} }),
    use(after, { name: "b-tail", params: { cost: 50 }, inputs: { prev: head.out.out } }),
    use(work, { name: "c-mid", params: { cost: 10, tag: "c" }, inputs: {} }),
  ];
}

test("bottom levels add each step's cost hint to its most expensive consumer chain", () => {
  const a = analyze(graph(), { version: 1, entries: {} });
  assert.ok(a.ok);
  const levels = Object.fromEntries([...bottomLevels(a.graph)].map(([s, l]) => [s.name, l]));
  assert.deepEqual(levels, { "a-cheap": 1, "b-head": 52, "b-tail": 50, "c-mid": 10 });
});

test("without a hint an in-process step costs 1 and a container step 10; bad hints are refused", () => {
  const p = use(plain, { name: "p", params: {}, inputs: {} });
  assert.equal(stepCost(p, {}), 1);
  const { runtime: _inProcess, ...rest } = plain;
  const container = defineStep({ ...rest, id: "box", runtime: { type: "container", image: `x@sha256:${"a".repeat(64)}`, argv: ["true"] } });
  assert.equal(stepCost(use(container, { name: "box", params: {}, inputs: {} }), {}), 10);
  const w = use(work, { name: "w", params: { cost: -1, tag: "" }, inputs: {} });
  assert.throws(() => stepCost(w, { cost: -1, tag: "" }), /w: cost hint must be a finite number >= 0, got -1/);
});

test("the priority semaphore grants the highest priority first, then by name, never above its limit", async () => {
  const sem = new PrioritySemaphore(1);
  const order: string[] = [];
  let active = 0;
  let peak = 0;
  const job = async (priority: number, name: string) => {
    await sem.acquire(priority, name);
    active++;
    peak = Math.max(peak, active);
    order.push(name);
    await new Promise((r) => setImmediate(r));
    active--;
    sem.release();
  };
  // All arrive in the same turn: the drain picks by priority, not by arrival.
  await Promise.all([job(1, "low"), job(5, "high-b"), job(5, "high-a"), job(3, "mid")]);
  assert.deepEqual(order, ["high-a", "high-b", "mid", "low"]);
  assert.equal(peak, 1);
});

test("with one slot the engine starts the longest chain first, not the first name", async () => {
  const p = project(registry({ t: graph }));
  const r = await run(p, ["t"], { concurrency: 1 });
  assert.equal(r.outcome.ok, true);
  const started = r.events.filter((e) => e.type === "started").map((e) => (e as { step: string }).step);
  // Name order would be a-cheap, b-head, c-mid, b-tail.
  assert.deepEqual(started, ["b-head", "b-tail", "c-mid", "a-cheap"]);
});

test("a step that finishes its store lookup first does not take the slot from a longer chain still looking", async () => {
  const p = project(registry({ t: graph }));
  // The first lookup (a-cheap's: steps resolve in graph order) answers at once, every
  // later one after 40 ms, as on a loaded machine. Only b-tail's lookups come after a
  // slot is busy, so the delay cannot change the order through anything but the start.
  const lookup = p.store.lookup.bind(p.store);
  let calls = 0;
  p.store.lookup = async (stepId, key) => {
    if (calls++ > 0) await new Promise((r) => setTimeout(r, 40));
    return lookup(stepId, key);
  };
  const r = await run(p, ["t"], { concurrency: 1 });
  assert.equal(r.outcome.ok, true);
  const started = r.events.filter((e) => e.type === "started").map((e) => (e as { step: string }).step);
  assert.deepEqual(started, ["b-head", "b-tail", "c-mid", "a-cheap"]);
});

test("grants wait while a caller holds the semaphore, then go by priority", async () => {
  const sem = new PrioritySemaphore(1);
  const order: string[] = [];
  sem.hold();
  const low = sem.acquire(1, "low").then(() => order.push("low"));
  await new Promise((r) => setTimeout(r, 5));
  assert.equal(order.length, 0, "nothing is granted while held");
  const high = sem.acquire(9, "high").then(() => order.push("high"));
  sem.unhold();
  await high;
  assert.deepEqual(order, ["high"]);
  sem.release();
  await low;
  assert.deepEqual(order, ["high", "low"]);
  assert.throws(() => sem.unhold(), /unhold without a hold/);
});

test("measured durations from earlier runs replace the hints: a step that took long starts first", async () => {
  const a = analyze(graph(), { version: 1, entries: {} });
  assert.ok(a.ok);
  const levels = Object.fromEntries([...bottomLevels(a.graph, new Map([["a-cheap", 100], ["b-tail", 0.5]]))].map(([s, l]) => [s.name, l]));
  assert.deepEqual(levels, { "a-cheap": 100, "b-head": 2.5, "b-tail": 0.5, "c-mid": 10 });

  const p = project(registry({ t: graph }));
  const first = await run(p, ["t"], { concurrency: 1 });
  assert.equal(first.outcome.ok, true);
  // The run record carries each executed step's seconds.
  const [record] = await p.store.runs();
  assert.deepEqual(Object.keys(record!.steps).sort(), ["a-cheap", "b-head", "b-tail", "c-mid"]);
  for (const s of Object.values(record!.steps)) assert.ok(typeof s.seconds === "number" && s.seconds >= 0, JSON.stringify(s));
  // A later record says a-cheap took 100 s; the newest measurement wins.
  await p.store.recordRun({ ...record!, time: "9999-01-01T00:00:00.000Z", steps: { ...record!.steps, "a-cheap": { ...record!.steps["a-cheap"]!, seconds: 100 } } });
  assert.equal((await p.store.measuredSeconds()).get("a-cheap"), 100);
  const again = await run(p, ["t"], { concurrency: 1, force: ["a-cheap", "b-head", "b-tail", "c-mid"] });
  assert.equal(again.outcome.ok, true);
  const started = again.events.filter((e) => e.type === "started").map((e) => (e as { step: string }).step);
  assert.deepEqual(started[0], "a-cheap");
});

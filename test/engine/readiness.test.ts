/**
 * The run's readiness bookkeeping (readiness.ts) on its own: a step holds the slots' grants
 * from the moment its producers have all settled until it arrives, once, however many paths
 * reach it and however often it is told; a producer read through two inputs counts once.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, file, use, type AnyStep } from "../../pipeline/engine/step.ts";
import { analyze } from "../../pipeline/engine/graph.ts";
import { Readiness } from "../../pipeline/engine/readiness.ts";
import { tempDir } from "./helpers.ts";

const src = join(tempDir(), "steps.ts");
writeFileSync(src, "export const s = 1;\n");
const runtime = { type: "in-process" as const, async run() {} };
const params = z.object({}).strict();
const outputs = { out: file("text:plain", "out.txt") };
const root = defineStep({ id: "root", version: 1, source: src, params, inputs: {}, outputs, runtime });
const one = defineStep({ id: "one", version: 1, source: src, params, inputs: { a: "text:plain" }, outputs, runtime });
const two = defineStep({ id: "two", version: 1, source: src, params, inputs: { a: "text:plain", b: "text:plain" }, outputs, runtime });

/** root -> left, right -> join (a diamond); root -> twice (both inputs from root). */
function diamond(): Map<string, AnyStep> & { roots: AnyStep[] } {
  const r = use(root, { name: "root", params: {}, inputs: {} });
  const left = use(one, { name: "left", params: {}, inputs: { a: r.out.out } });
  const right = use(one, { name: "right", params: {}, inputs: { a: r.out.out } });
  const join = use(two, { name: "join", params: {}, inputs: { a: left.out.out, b: right.out.out } });
  const twice = use(two, { name: "twice", params: {}, inputs: { a: r.out.out, b: r.out.out } });
  return Object.assign(new Map<string, AnyStep>([r, left, right, join, twice].map((s) => [s.name, s])), { roots: [join, twice] });
}

/** A gate that counts its holds and logs the calls, as the semaphore and the GPU pool see them. */
function gate(name: string, log: string[]) {
  const g = {
    holds: 0,
    hold: () => {
      g.holds++;
      log.push(`${name}.hold`);
    },
    unhold: () => {
      if (g.holds === 0) throw new Error(`${name}: unhold without a hold`);
      g.holds--;
      log.push(`${name}.unhold`);
    },
  };
  return g;
}

test("readiness: holds from departure to arrival, once per step, and a consumer departs when its last producer settles", () => {
  const steps = diamond();
  const a = analyze(steps.roots, { version: 1, entries: {} });
  assert.ok(a.ok);
  const log: string[] = [];
  const cpu = gate("cpu", log);
  const gpu = gate("gpu", log);
  const r = new Readiness(a.graph, [cpu, gpu]);
  const s = (name: string) => steps.get(name)!;

  r.depart(s("root"));
  r.depart(s("root"));
  assert.deepEqual(log, ["cpu.hold", "gpu.hold"], "every gate held, in order, once");
  r.arrive(s("root"));
  r.arrive(s("root"));
  assert.deepEqual([cpu.holds, gpu.holds], [0, 0]);

  r.settle(s("root")); // left, right and twice (one producer, read twice) depart
  assert.equal(cpu.holds, 3);
  r.arrive(s("left"));
  r.settle(s("left")); // join still waits on right
  assert.equal(cpu.holds, 2);
  r.settle(s("right")); // right arrives, join departs
  assert.equal(cpu.holds, 2);
  r.settle(s("twice"));
  r.settle(s("join"));
  r.settle(s("join"));
  assert.deepEqual([cpu.holds, gpu.holds], [0, 0]);
  assert.equal(log.length, 5 * 4, "each of the five steps held and released each gate once");
});

test("readiness: a step that arrives before its producers settle never holds", () => {
  const steps = diamond();
  const a = analyze(steps.roots, { version: 1, entries: {} });
  assert.ok(a.ok);
  const log: string[] = [];
  const cpu = gate("cpu", log);
  const r = new Readiness(a.graph, [cpu]);
  r.arrive(steps.get("twice")!);
  r.settle(steps.get("root")!); // left and right depart; twice has arrived already
  assert.equal(cpu.holds, 2);
});

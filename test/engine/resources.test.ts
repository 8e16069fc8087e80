/**
 * A step's resources: the kind's default, its runtime's declaration, then the step's own
 * (`use(def, { resources })`), field by field; GPUs from the runtime; never in a key; a bad
 * declaration is an analysis failure. `npm run typecheck` fails if a `@ts-expect-error` below
 * stops being an error.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { defineStep, file, use } from "../../pipeline/engine/step.ts";
import { IN_PROCESS_DEFAULTS, stepResources } from "../../pipeline/engine/resources.ts";
import { analyze } from "../../pipeline/engine/graph.ts";
import { describeFailure } from "../../pipeline/engine/failures.ts";
import { fingerprintOf } from "../../pipeline/engine/keys.ts";
import { cacheKey } from "../../pipeline/engine/fingerprint.ts";
import { SourceScanner } from "../../pipeline/engine/sources.ts";
import { ROOT } from "./helpers.ts";

const inProcess = defineStep({
  id: "write-x",
  version: 1,
  source: import.meta.url,
  params: z.object({}).strict(),
  inputs: {},
  outputs: { out: file("text:plain", "x.txt") },
  runtime: { type: "in-process", resources: { memoryGiB: 6 }, async run() {} },
});

const program = defineStep({
  id: "train-x",
  version: 1,
  source: import.meta.url,
  params: z.object({}).strict(),
  inputs: {},
  outputs: { out: file("text:plain", "x.txt") },
  runtime: { type: "container", image: `x@sha256:${"b".repeat(64)}`, argv: ["true"], gpu: { count: 2, required: true }, resources: { cpus: 4, memoryGiB: 16, expectedMinutes: 60 } },
});

test("resources merge field by field: default, runtime, step; GPUs from the runtime", () => {
  assert.deepEqual(stepResources(use(inProcess, { inputs: {} })), { ...IN_PROCESS_DEFAULTS, memoryGiB: 6, gpus: 0 });
  const real = use(program, { inputs: {}, resources: { memoryGiB: 64, expectedMinutes: 120 } });
  assert.deepEqual(stepResources(real), { cpus: 4, memoryGiB: 64, expectedMinutes: 120, gpus: 2 });
});

test("resources never enter a key", () => {
  const ctx = { scanner: new SourceScanner(ROOT), lock: { version: 1 as const, entries: {} }, env: {}, executor: "local" };
  const key = (s: ReturnType<typeof use>) => cacheKey(fingerprintOf(s, {}, () => undefined, ctx)!);
  assert.equal(key(use(program, { inputs: {} })), key(use(program, { inputs: {}, resources: { cpus: 32, memoryGiB: 512 } })));
});

test("a resource declaration no executor could honour fails the analysis, naming the step and the fix", () => {
  const a = analyze([use(program, { name: "bad", inputs: {}, resources: { cpus: 0.5, memoryGiB: -1 } })], { version: 1, entries: {} });
  assert.equal(a.ok, false);
  const messages = a.ok ? [] : a.failures.map(describeFailure);
  assert.deepEqual(messages, [
    "bad: invalid resources: cpus must be an integer >= 1, got 0.5. Fix: the step's resources (its runtime's, or use(..., { resources }) in pipeline/definitions)",
    "bad: invalid resources: memoryGiB must be a number > 0, got -1. Fix: the step's resources (its runtime's, or use(..., { resources }) in pipeline/definitions)",
  ]);
});

test("type errors: a resource of the wrong type or an unknown field", () => {
  // @ts-expect-error cpus is a number
  use(program, { inputs: {}, resources: { cpus: "4" } });
  // @ts-expect-error memoryGB is not a field (memoryGiB is)
  use(program, { inputs: {}, resources: { memoryGB: 4 } });
  defineStep({
    id: "y",
    version: 1,
    source: import.meta.url,
    params: z.object({}).strict(),
    inputs: {},
    outputs: {},
    // @ts-expect-error GPUs are the runtime's gpu.count, not a resource
    runtime: { type: "container", image: "y", argv: ["true"], resources: { gpus: 1 } },
  });
});

/**
 * Child process of the engine benchmark: times the session API in-process (no CLI, no
 * process start-up), a cold run into an empty store and then a no-op rerun, each with a
 * fresh `Project` (fresh source scanner, as a new process would have). Checks every
 * step's output against the reference texts and prints one JSON line on stdout.
 *
 *   npx tsx bench/engine/inprocess.ts --store <empty dir> [--layers 20] [--width 10]
 *
 * Run by main.ts in its own process so that a failure (even an out-of-memory abort)
 * cannot take the benchmark down.
 */
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { findProjectRoot } from "../../pipeline/engine/sources.ts";
import type { EngineEvent } from "../../pipeline/engine/events.ts";
import { describeFailure } from "../../pipeline/engine/failures.ts";
import { Project, runTargets } from "../../pipeline/session.ts";
import { buildBenchTargets } from "./dag.ts";
import { checkShape, expectedTexts, stepCount, type DagShape } from "./shape.ts";

export interface InProcessTiming {
  /** Wall time of Project construction + runTargets (analysis, keys, lookups, execution, run record). */
  readonly seconds: number;
  /** The engine's own time from its `finished` event (runGraph only). */
  readonly engineSeconds: number;
  readonly executed: number;
  readonly cached: number;
}

export interface InProcessResult {
  readonly cold: InProcessTiming;
  readonly noop: InProcessTiming;
}

async function timedRun(shape: DagShape, store: string): Promise<{ timing: InProcessTiming; project: Project; outputs: Map<string, string> }> {
  const t0 = performance.now();
  const project = new Project({ root: findProjectRoot(), store, targets: buildBenchTargets(shape), env: { ...process.env } });
  let finished: Extract<EngineEvent, { type: "finished" }> | undefined;
  const outcome = await runTargets(project, {
    targets: ["dag"],
    concurrency: 2,
    executor: "local",
    emit: (e) => {
      if (e.type === "finished") finished = e;
    },
  });
  const seconds = (performance.now() - t0) / 1000;
  if (!outcome.ok || !("result" in outcome) || !finished) {
    const why = "result" in outcome ? outcome.result.failures.map(describeFailure) : outcome.analysis.map(describeFailure);
    throw new Error(`cspipe in-process run failed: ${why.join("; ") || "no finished event"}`);
  }
  const outputs = new Map<string, string>();
  for (const [name, r] of outcome.result.results) if (r.entry) outputs.set(name, project.store.outputPath(r.entry, "out"));
  return { timing: { seconds, engineSeconds: finished.seconds, executed: finished.executed, cached: finished.cached }, project, outputs };
}

/** Cold run then no-op rerun into `store` (must be empty); throws if any output differs from the reference. */
export async function measureInProcess(shape: DagShape, store: string): Promise<InProcessResult> {
  const n = stepCount(shape);
  const cold = await timedRun(shape, store);
  if (cold.timing.executed !== n) throw new Error(`cold run executed ${cold.timing.executed} of ${n} steps (is the store empty?)`);
  const expected = expectedTexts(shape);
  for (const [name, text] of expected) {
    const path = cold.outputs.get(name);
    if (path === undefined) throw new Error(`no output for step ${name}`);
    const actual = await readFile(path, "utf8");
    if (actual !== text) throw new Error(`step ${name} wrote ${JSON.stringify(actual)}, expected ${JSON.stringify(text)}`);
  }
  const noop = await timedRun(shape, store);
  if (noop.timing.executed !== 0 || noop.timing.cached !== n) throw new Error(`no-op rerun executed ${noop.timing.executed} and hit ${noop.timing.cached} of ${n} steps`);
  return { cold: cold.timing, noop: noop.timing };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { store: { type: "string" }, layers: { type: "string", default: "20" }, width: { type: "string", default: "10" } } });
  if (!values.store) throw new Error("--store <empty dir> is required");
  const shape = checkShape({ layers: Number(values.layers), width: Number(values.width) }, "args");
  process.stdout.write(`${JSON.stringify(await measureInProcess(shape, values.store))}\n`);
}

/**
 * Scheduling: every step starts as soon as its producers have entries, up to
 * `concurrency` executions at once; when more are ready than there are slots, the one
 * with the longest expected chain of work behind it goes first (schedule.ts). Identical
 * steps (same key) run once per process (in-flight map) and once per store (leases).
 *
 * What a run trusts (entry-guard.ts): a cached entry is used only if its manifest reads and
 * its bytes match it (stat stamps; --verify re-hashes). A producer whose bytes changed is
 * moved aside and recomputed before a consumer's key is computed from it, and checked
 * again right before the consumer runs. Every key is claimed in the run's in-progress
 * record before it is looked up, so `gc` keeps it (live-runs.ts, gc.ts).
 *
 * Stopping (`signal`, from SIGINT/SIGTERM): no new step starts, running ones are cancelled
 * (children stopped, staging removed), leases released, and the run is recorded as
 * interrupted with the entries it finished. Steps that ignore the cancellation are given
 * `stopGraceMs`, then abandoned (their staging and leases are removed for them).
 *
 * Where it is: graph-run.ts (the run's state; each step's inputs, key, cache lookup and
 * execution under a slot and a lease), readiness.ts (when slots may be granted), the
 * options and result run-options.ts, the run's end (record, last events) below.
 */
import type { Graph } from "./graph.ts";
import type { RunOptions, RunResult } from "./run-options.ts";
import { recordRunOutcome } from "./run-record.ts";
import { GraphRun } from "./graph-run.ts";

export { planGraph, type PlanRow, type Planned } from "./plan.ts";
export type { FailureMode, RunOptions, RunResult, StepResult } from "./run-options.ts";

/** Run `graph`: open the run (claims, stop signal), start every step, wait for all, then finish it. */
export async function runGraph(graph: Graph, opts: RunOptions): Promise<RunResult> {
  const run = await GraphRun.open(graph, opts);
  run.start();
  await run.settled();
  return finishRun(run, graph, opts);
}

/** The end of a run: its record (run-record.ts), then the `analysis-failed` event if any and `finished`. */
async function finishRun(run: GraphRun, graph: Graph, opts: RunOptions): Promise<RunResult> {
  const settled = run.outcome();
  const { interrupted } = settled;
  const recordFailure = await recordRunOutcome(opts.store, run.claim, {
    record: opts.record !== false,
    graph,
    results: settled.results,
    seconds: settled.seconds,
    targets: opts.targets,
    started: settled.started,
    ...(opts.about !== undefined ? { about: opts.about } : {}),
    status: interrupted !== undefined ? "interrupted" : settled.failures.length === 0 && settled.analysisFailures.length === 0 ? "ok" : "failed",
    ...(interrupted !== undefined ? { signal: interrupted } : {}),
  });
  if (recordFailure) run.fail(recordFailure);
  // Read after the record: a step abandoned after a stop may still finish meanwhile.
  const { results, failures, analysisFailures, executed, cached, elapsedSeconds } = run.outcome();
  const ok = failures.length === 0 && analysisFailures.length === 0 && interrupted === undefined;
  if (analysisFailures.length > 0) opts.emit({ type: "analysis-failed", failures: analysisFailures });
  const finished: { type: "finished"; ok: boolean; executed: number; cached: number; failed: number; seconds: number; interrupted?: string } = {
    type: "finished",
    ok,
    executed,
    cached,
    failed: failures.filter((f) => f.reason !== "cancelled" && f.reason !== "upstream-failed").length,
    seconds: elapsedSeconds,
  };
  if (interrupted !== undefined) finished.interrupted = interrupted;
  opts.emit(finished);
  return { ok, results, failures, analysisFailures, executed, cached, ...(interrupted !== undefined ? { interrupted } : {}) };
}

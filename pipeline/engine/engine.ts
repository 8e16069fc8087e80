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
 */
import type { AnyStep, RunSettings } from "./step.ts";
import type { Graph } from "./graph.ts";
import { producerCounts, producerOf } from "./graph.ts";
import type { Entry, RunAbout, Store } from "./store.ts";
import type { Executor } from "./executor.ts";
import type { EventSink } from "./events.ts";
import type { AnalysisFailure, RunFailure } from "./failures.ts";
import { cacheKey, type Fingerprint } from "./fingerprint.ts";
import { fingerprintOf, type KeyContext } from "./keys.ts";
import { executeStep } from "./execute.ts";
import { bottomLevels, PrioritySemaphore } from "./schedule.ts";
import { EntryGuard } from "./entry-guard.ts";
import { dropHeldLeasesSync } from "./lease.ts";
import { claimer, recordRunOutcome } from "./run-record.ts";
import { storeIoProblem } from "./store-errors.ts";
import { DevicePool, devicesWanted } from "./devices.ts";
import { wiredInputs } from "./wiring.ts";

import { plannedKey, type Planned } from "./plan.ts";

export { planGraph, type PlanRow, type Planned } from "./plan.ts";

export type FailureMode = "stop" | "continue" | "kill";

export interface RunOptions {
  readonly store: Store;
  readonly executor: Executor;
  readonly keys: KeyContext;
  readonly sourceRoot: string;
  readonly settings: RunSettings;
  readonly emit: EventSink;
  readonly concurrency: number;
  readonly failureMode: FailureMode;
  /** Step names to rerun even when cached. */
  readonly force: ReadonlySet<string>;
  /**
   * The plan made just before this run (the `plan` event's): used only when made over this graph
   * with this key context. Its keys are taken where the inputs' digests are the planned ones, and
   * the entries it read are checked instead of read again (entry-guard.ts `lookup`).
   */
  readonly planned?: Planned;
  /** When set, only these steps may execute; every other step must be a cache hit. */
  readonly only?: ReadonlySet<string>;
  /** Re-hash cached outputs before trusting them (instead of checking their stat stamps). */
  readonly verify: boolean;
  readonly targets: readonly string[];
  readonly tools: Readonly<Record<string, string>>;
  /** Record the run (for gc and explain); default true. */
  readonly record?: boolean;
  /** Step name -> seconds of its last execution (Store.measuredSeconds): scheduling only. */
  readonly measured?: ReadonlyMap<string, number>;
  /** Aborted (reason: the signal's name) to stop the run: see the module comment. */
  readonly signal?: AbortSignal;
  /** How long cancelled steps may take to finish after `signal` before they are abandoned (default 10 s). */
  readonly stopGraceMs?: number;
  /** GPU slots (devices.ts): steps that ask for GPUs take devices instead of a --concurrency slot. Default 0. */
  readonly gpus?: number;
  /** What the targets were built with (data source, overrides), kept in the run record for `compare`. */
  readonly about?: RunAbout;
}

export interface StepResult {
  readonly step: string;
  readonly status: "cached" | "executed" | "failed" | "skipped";
  readonly key?: string;
  readonly entry?: Entry;
}

export interface RunResult {
  readonly ok: boolean;
  readonly results: ReadonlyMap<string, StepResult>;
  readonly failures: readonly RunFailure[];
  readonly analysisFailures: readonly AnalysisFailure[];
  readonly executed: number;
  readonly cached: number;
  /** The signal that stopped the run, if one did. */
  readonly interrupted?: string;
}

type Outcome = { ok: true; entry: Entry } | { ok: false; upstream: string };
type Inputs = Record<string, { entry: Entry; output: string }>;
interface Resolved {
  readonly key: string;
  readonly fp: Fingerprint;
  readonly params: unknown;
  readonly inputs: Inputs;
}

export async function runGraph(graph: Graph, opts: RunOptions): Promise<RunResult> {
  const t0 = performance.now();
  const started = new Date().toISOString();
  const sem = new PrioritySemaphore(Math.max(1, opts.concurrency));
  const gpuPool = new DevicePool(opts.gpus ?? 0);
  const priority = bottomLevels(graph, opts.measured);
  const seconds = new Map<string, number>(); // key -> execution time, for the run record
  const abort = new AbortController();
  const outcomes = new Map<AnyStep, Promise<Outcome>>();
  const inflight = new Map<string, Promise<Entry | RunFailure>>();
  const repairs = new Map<string, Promise<Entry | RunFailure>>();
  const resolved = new Map<AnyStep, Resolved>();
  const results = new Map<string, StepResult>();
  const failures: RunFailure[] = [];
  const analysisFailures: AnalysisFailure[] = [];
  const guard = new EntryGuard(opts.store, opts.emit, opts.verify);
  const planned = opts.planned?.graph === graph && opts.planned.keys === opts.keys ? opts.planned : undefined;
  const claim = await claimer(opts.store, opts.targets, opts.record !== false, abort.signal, opts.emit);
  let stopping = false;
  let executed = 0;
  let cached = 0;

  let interrupted: string | undefined;
  let abandon: () => void = () => {};
  const abandoned = new Promise<void>((resolve) => (abandon = resolve));
  const onSignal = () => {
    interrupted = String(opts.signal?.reason ?? "interrupted");
    stopping = true;
    abort.abort(opts.signal?.reason);
    setTimeout(abandon, opts.stopGraceMs ?? 10_000).unref();
  };
  if (opts.signal?.aborted) onSignal();
  else opts.signal?.addEventListener("abort", onSignal, { once: true });

  // Ready steps compete for slots only once all of them are in the queue. A step is on its
  // way from the moment its producers have all settled (at once, for a step without inputs)
  // until it arrives: queues for a slot, joins an identical step's execution, or resolves
  // without one (cached, skipped, failed). Grants wait while any step is on its way, so a
  // step still reading its manifest is never overtaken by one that read faster; in
  // particular a finishing step's slot goes to the best of the consumers it made ready.
  const { waitingOn, feeds } = producerCounts(graph);
  const settled = new Set<AnyStep>();
  const onTheWay = new Set<AnyStep>();
  const arrived = new Set<AnyStep>();
  const depart = (s: AnyStep) => {
    if (onTheWay.has(s) || arrived.has(s)) return;
    onTheWay.add(s);
    sem.hold();
    gpuPool.hold();
  };
  const arrive = (s: AnyStep) => {
    if (arrived.has(s)) return;
    arrived.add(s);
    if (onTheWay.delete(s)) {
      sem.unhold();
      gpuPool.unhold();
    }
  };
  const settle = (s: AnyStep) => {
    if (settled.has(s)) return;
    settled.add(s);
    arrive(s);
    for (const c of feeds.get(s) ?? []) {
      const left = waitingOn.get(c)! - 1;
      waitingOn.set(c, left);
      if (left === 0) depart(c);
    }
  };

  const onFailure = (f: RunFailure) => {
    failures.push(f);
    opts.emit({ type: "failed", failure: f });
    if (opts.failureMode !== "continue") stopping = true;
    if (opts.failureMode === "kill") abort.abort();
  };
  /** A store I/O error (disk full, read-only) as a run failure; other errors are bugs and propagate. */
  const ioFailure = (step: AnyStep, e: unknown): RunFailure | undefined => {
    const p = storeIoProblem(e, opts.store.root);
    return p && { reason: "store-failed", step: step.name, code: p.code, path: p.path, message: p.message, fix: p.fix };
  };

  /** Recompute a producer whose entry was found damaged (once per key, whoever asks). */
  const repair = (producer: AnyStep): Promise<Entry | RunFailure> => {
    const r = resolved.get(producer);
    if (!r) return Promise.resolve({ reason: "upstream-failed", step: producer.name, upstream: producer.name });
    let pending = repairs.get(r.key);
    if (!pending) {
      pending = (async () => {
        if (opts.only !== undefined && !opts.only.has(producer.name)) {
          analysisFailures.push({ reason: "digest-mismatch", step: producer.name, outputs: [], key: r.key });
          stopping = true;
          return { reason: "cancelled", step: producer.name } as const;
        }
        const out = await computeWithLease(producer, r.key, r.fp, r.params, r.inputs, false, true);
        if ("reason" in out) {
          if (out.reason !== "cancelled") onFailure(out);
        } else results.set(producer.name, { step: producer.name, status: "executed", key: r.key, entry: out });
        return out;
      })();
      repairs.set(r.key, pending);
    }
    return pending;
  };

  /** `entry` if still intact, else its producer's recomputed entry (or the failure). */
  const intactInput = async (producer: AnyStep, entry: Entry): Promise<Entry | RunFailure> => ((await guard.intact(producer, entry)) ? entry : repair(producer));

  const resolveStep = async (step: AnyStep): Promise<Outcome> => {
    const inputs: Inputs = {};
    for (const { name: input, ref } of wiredInputs(step)) {
      const producer = producerOf(graph, step, input);
      const o = await outcomes.get(producer)!;
      // Checked when this run resolved it; checked again right before this step reads it.
      const entry = !o.ok ? undefined : guard.wasChecked(o.entry) ? o.entry : await intactInput(producer, o.entry);
      if (entry === undefined || "reason" in entry) {
        results.set(step.name, { step: step.name, status: "skipped" });
        return { ok: false, upstream: o.ok ? producer.name : o.upstream };
      }
      inputs[input] = { entry, output: ref.output };
    }
    const params = graph.params.get(step);
    const row = planned?.rows.get(step.name);
    const same = plannedKey(step, row, inputs);
    const fp = same?.fingerprint ?? fingerprintOf(step, params, (i) => inputs[i]?.entry, opts.keys)!;
    const key = same?.key ?? cacheKey(fp);
    resolved.set(step, { key, fp, params, inputs });
    const forced = opts.force.has(step.name);
    const mayRun = opts.only === undefined || opts.only.has(step.name);

    await claim(step.name, key);
    const hit = forced ? undefined : await guard.lookup(step, key, row?.entry);
    if (hit) {
      cached++;
      opts.emit({ type: "cache-hit", step: step.name, key });
      results.set(step.name, { step: step.name, status: "cached", key, entry: hit });
      return { ok: true, entry: hit };
    }
    if (!mayRun) {
      const f: AnalysisFailure = { reason: "input-not-cached", step: [...(opts.only ?? [])].join(","), input: step.name, producer: step.name };
      analysisFailures.push(f);
      stopping = true;
      results.set(step.name, { step: step.name, status: "failed", key });
      return { ok: false, upstream: step.name };
    }
    if (stopping) {
      const f: RunFailure = { reason: "cancelled", step: step.name };
      failures.push(f);
      results.set(step.name, { step: step.name, status: "skipped", key });
      return { ok: false, upstream: step.name };
    }

    // One execution per key in this process...
    let pending = inflight.get(key);
    const owner = pending === undefined;
    if (!pending) {
      pending = computeWithLease(step, key, fp, params, inputs, forced, false);
      inflight.set(key, pending);
    } else arrive(step);
    const r = await pending;
    if ("reason" in r) {
      if (owner) onFailure(r);
      results.set(step.name, { step: step.name, status: "failed", key });
      return { ok: false, upstream: step.name };
    }
    results.set(step.name, { step: step.name, status: owner ? "executed" : "cached", key, entry: r });
    return { ok: true, entry: r };
  };

  // ...and one per store: the lease, then a second look (another process may have finished it).
  const computeWithLease = async (step: AnyStep, key: string, fp: Fingerprint, params: unknown, inputs: Inputs, forced: boolean, repairing: boolean): Promise<Entry | RunFailure> => {
    // A CPU slot, or the GPUs the step asks for; either is freed once the step's outcome has
    // settled, i.e. after its consumers departed. A repair runs outside the slots: the consumer
    // that needs it already holds one.
    const wanted = repairing ? 0 : devicesWanted(step, gpuPool.size);
    const slot = repairing ? Promise.resolve(undefined) : wanted > 0 ? gpuPool.acquire(wanted, priority.get(step) ?? 0, step.name) : sem.acquire(priority.get(step) ?? 0, step.name).then(() => undefined);
    if (!repairing) arrive(step);
    const devices = await slot;
    const release = () => (devices === undefined ? sem.release() : gpuPool.release(devices));
    try {
      if (stopping) return { reason: "cancelled", step: step.name };
      const lease = await opts.store.lease(key, {
        signal: abort.signal,
        onWait: (h) => {
          const ev: { type: "waiting"; step: string; key: string; holder?: string } = { type: "waiting", step: step.name, key };
          if (h) ev.holder = `pid ${h.pid} on ${h.host}`;
          opts.emit(ev);
        },
      });
      try {
        if (!forced) {
          const other = await guard.lookup(step, key);
          if (other) {
            cached++;
            opts.emit({ type: "succeeded", step: step.name, key, seconds: 0, reused: true });
            return other;
          }
        }
        // The inputs are about to be read: still the bytes the key was computed from?
        for (const name of Object.keys(inputs).sort()) {
          const { entry, output } = inputs[name]!;
          const producer = producerOf(graph, step, name);
          const now = await intactInput(producer, entry);
          if ("reason" in now) return { reason: "upstream-failed", step: step.name, upstream: producer.name };
          if (now === entry) continue;
          if (now.manifest.outputs[output]?.digest !== fp.inputs[name]?.digest) return { reason: "input-changed", step: step.name, input: name, producer: producer.name };
          inputs = { ...inputs, [name]: { entry: now, output } };
        }
        const r = await executeStep(step, params, fp, inputs, {
          store: opts.store,
          executor: opts.executor,
          lock: opts.keys.lock,
          sourceRoot: opts.sourceRoot,
          settings: opts.settings,
          env: opts.keys.env,
          ...(opts.keys.datasets ? { datasets: opts.keys.datasets } : {}),
          tools: opts.tools,
          emit: opts.emit,
          signal: abort.signal,
          ...(devices !== undefined ? { devices } : {}),
        });
        if (!r.ok) return r.failure;
        guard.vouch(r.entry);
        executed++;
        seconds.set(key, r.seconds);
        opts.emit({ type: "succeeded", step: step.name, key, seconds: r.seconds, reused: false });
        return r.entry;
      } finally {
        await lease.release();
      }
    } catch (e) {
      if (abort.signal.aborted) return { reason: "cancelled", step: step.name };
      const io = ioFailure(step, e);
      if (io) return io;
      throw e;
    } finally {
      if (!repairing) void outcomes.get(step)!.then(release, release);
    }
  };

  /** resolveStep, with a store I/O error (claim, lookup, lease) as this step's failure. */
  const resolveSafely = async (step: AnyStep): Promise<Outcome> => {
    try {
      return await resolveStep(step);
    } catch (e) {
      const f = abort.signal.aborted ? undefined : ioFailure(step, e);
      if (!abort.signal.aborted && !f) throw e;
      if (f) onFailure(f);
      else failures.push({ reason: "cancelled", step: step.name });
      results.set(step.name, { step: step.name, status: "failed" });
      return { ok: false, upstream: step.name };
    }
  };

  for (const step of graph.order) if (wiredInputs(step).length === 0) depart(step);
  for (const step of graph.order) {
    outcomes.set(
      step,
      resolveSafely(step).then(
        (o) => {
          settle(step);
          return o;
        },
        (e: unknown) => {
          arrive(step);
          throw e;
        },
      ),
    );
  }
  const all = Promise.all(outcomes.values());
  await Promise.race([all, abandoned]);
  if (interrupted !== undefined) {
    // Steps still running ignored the cancellation: what they hold goes now, on their behalf.
    opts.store.removeOwnStagingSync();
    dropHeldLeasesSync();
  }
  opts.signal?.removeEventListener("abort", onSignal);

  const recordFailure = await recordRunOutcome(opts.store, claim, {
    record: opts.record !== false,
    graph,
    results,
    seconds,
    targets: opts.targets,
    started,
    ...(opts.about !== undefined ? { about: opts.about } : {}),
    status: interrupted !== undefined ? "interrupted" : failures.length === 0 && analysisFailures.length === 0 ? "ok" : "failed",
    ...(interrupted !== undefined ? { signal: interrupted } : {}),
  });
  if (recordFailure) onFailure(recordFailure);
  const ok = failures.length === 0 && analysisFailures.length === 0 && interrupted === undefined;
  if (analysisFailures.length > 0) opts.emit({ type: "analysis-failed", failures: analysisFailures });
  const finished: { type: "finished"; ok: boolean; executed: number; cached: number; failed: number; seconds: number; interrupted?: string } = {
    type: "finished",
    ok,
    executed,
    cached,
    failed: failures.filter((f) => f.reason !== "cancelled" && f.reason !== "upstream-failed").length,
    seconds: (performance.now() - t0) / 1000,
  };
  if (interrupted !== undefined) finished.interrupted = interrupted;
  opts.emit(finished);
  return { ok, results, failures, analysisFailures, executed, cached, ...(interrupted !== undefined ? { interrupted } : {}) };
}

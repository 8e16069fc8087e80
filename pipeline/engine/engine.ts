/**
 * Scheduling: every step starts as soon as its producers have entries, up to
 * `concurrency` executions at once; when more are ready than there are slots, the one
 * with the longest expected chain of work behind it goes first (schedule.ts). Identical
 * steps (same key) run once per process (in-flight map) and once per store (leases).
 * A cache hit costs a manifest read.
 */
import type { AnyStep, RunSettings } from "./step.ts";
import type { Graph } from "./graph.ts";
import { producerOf } from "./graph.ts";
import type { Entry, Store } from "./store.ts";
import type { Executor } from "./executor.ts";
import type { EventSink, StepStatus } from "./events.ts";
import type { AnalysisFailure, RunFailure } from "./failures.ts";
import { cacheKey, type Fingerprint } from "./fingerprint.ts";
import { fingerprintOf, type KeyContext } from "./keys.ts";
import { executeStep } from "./execute.ts";
import { bottomLevels, PrioritySemaphore } from "./schedule.ts";
import { DevicePool, devicesWanted } from "./devices.ts";

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
  /** When set, only these steps may execute; every other step must be a cache hit. */
  readonly only?: ReadonlySet<string>;
  /** Re-hash cached outputs before trusting them. */
  readonly verify: boolean;
  readonly targets: readonly string[];
  readonly tools: Readonly<Record<string, string>>;
  /** Record the run (for gc and explain); default true. */
  readonly record?: boolean;
  /** Step name -> seconds of its last execution (Store.measuredSeconds): scheduling only. */
  readonly measured?: ReadonlyMap<string, number>;
  /** GPU slots (devices.ts): steps that ask for GPUs take devices instead of a --concurrency slot. Default 0. */
  readonly gpus?: number;
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
}

type Outcome = { ok: true; entry: Entry } | { ok: false; upstream: string };

export async function runGraph(graph: Graph, opts: RunOptions): Promise<RunResult> {
  const t0 = performance.now();
  const sem = new PrioritySemaphore(Math.max(1, opts.concurrency));
  const gpuPool = new DevicePool(opts.gpus ?? 0);
  const priority = bottomLevels(graph, opts.measured);
  const seconds = new Map<string, number>(); // key -> execution time, for the run record
  const abort = new AbortController();
  const outcomes = new Map<AnyStep, Promise<Outcome>>();
  const inflight = new Map<string, Promise<Entry | RunFailure>>();
  const results = new Map<string, StepResult>();
  const failures: RunFailure[] = [];
  const analysisFailures: AnalysisFailure[] = [];
  let stopping = false;
  let executed = 0;
  let cached = 0;

  // Ready steps compete for slots only once all of them are in the queue. A step is on its
  // way from the moment its producers have all settled (at once, for a step without inputs)
  // until it arrives: queues for a slot, joins an identical step's execution, or resolves
  // without one (cached, skipped, failed). Grants wait while any step is on its way, so a
  // step still reading its manifest is never overtaken by one that read faster; in
  // particular a finishing step's slot goes to the best of the consumers it made ready.
  const inGraph = new Set(graph.order);
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
    settled.add(s);
    arrive(s);
    for (const c of graph.consumers.get(s) ?? []) {
      if (inGraph.has(c) && Object.keys(c.def.inputs).every((i) => settled.has(producerOf(graph, c, i)))) depart(c);
    }
  };

  const onFailure = (f: RunFailure) => {
    failures.push(f);
    opts.emit({ type: "failed", failure: f });
    if (opts.failureMode !== "continue") stopping = true;
    if (opts.failureMode === "kill") abort.abort();
  };

  const resolveStep = async (step: AnyStep): Promise<Outcome> => {
    const inputs: Record<string, { entry: Entry; output: string }> = {};
    for (const input of Object.keys(step.def.inputs).sort()) {
      const producer = producerOf(graph, step, input);
      const o = await outcomes.get(producer)!;
      if (!o.ok) {
        results.set(step.name, { step: step.name, status: "skipped" });
        return { ok: false, upstream: o.upstream };
      }
      inputs[input] = { entry: o.entry, output: step.inputs[input]!.output };
    }
    const params = graph.params.get(step);
    const fp = fingerprintOf(step, params, (i) => inputs[i]?.entry, opts.keys)!;
    const key = cacheKey(fp);
    const forced = opts.force.has(step.name);
    const mayRun = opts.only === undefined || opts.only.has(step.name);

    const hit = forced ? undefined : await lookupVerified(step, key, opts);
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
      pending = computeWithLease(step, key, fp, params, inputs, forced);
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
  const computeWithLease = async (
    step: AnyStep,
    key: string,
    fp: Fingerprint,
    params: unknown,
    inputs: Record<string, { entry: Entry; output: string }>,
    forced: boolean,
  ): Promise<Entry | RunFailure> => {
    // A CPU slot, or the GPUs the step asks for. Either is freed once the step's outcome has
    // settled, i.e. after its consumers departed.
    const wanted = devicesWanted(step, gpuPool.size);
    const slot = wanted > 0 ? gpuPool.acquire(wanted, priority.get(step) ?? 0, step.name) : sem.acquire(priority.get(step) ?? 0, step.name).then(() => undefined);
    arrive(step);
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
          const other = await opts.store.lookup(step.def.id, key);
          if (other) {
            cached++;
            opts.emit({ type: "succeeded", step: step.name, key, seconds: 0, reused: true });
            return other;
          }
        }
        const r = await executeStep(step, params, fp, inputs, {
          store: opts.store,
          executor: opts.executor,
          lock: opts.keys.lock,
          sourceRoot: opts.sourceRoot,
          settings: opts.settings,
          env: opts.keys.env,
          tools: opts.tools,
          emit: opts.emit,
          signal: abort.signal,
          ...(devices !== undefined ? { devices } : {}),
        });
        if (!r.ok) return r.failure;
        executed++;
        seconds.set(key, r.seconds);
        opts.emit({ type: "succeeded", step: step.name, key, seconds: r.seconds, reused: false });
        return r.entry;
      } finally {
        await lease.release();
      }
    } catch (e) {
      if (abort.signal.aborted) return { reason: "cancelled", step: step.name };
      throw e;
    } finally {
      void outcomes.get(step)!.then(release, release);
    }
  };

  for (const step of graph.order) if (Object.keys(step.def.inputs).length === 0) depart(step);
  for (const step of graph.order) {
    outcomes.set(
      step,
      resolveStep(step).then(
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
  await Promise.all(outcomes.values());

  if (opts.record !== false) {
    const steps: Record<string, { stepId: string; key: string; seconds?: number }> = {};
    for (const s of graph.order) {
      const r = results.get(s.name);
      if (!r?.key || r.status === "skipped") continue;
      const took = r.status === "executed" ? seconds.get(r.key) : undefined;
      steps[s.name] = took === undefined ? { stepId: s.def.id, key: r.key } : { stepId: s.def.id, key: r.key, seconds: Math.round(took * 1000) / 1000 };
    }
    const keys = [...new Set(Object.values(steps).map((s) => s.key))].sort();
    await opts.store.recordRun({ time: new Date().toISOString(), targets: opts.targets, keys, steps });
  }
  const ok = failures.length === 0 && analysisFailures.length === 0;
  if (analysisFailures.length > 0) opts.emit({ type: "analysis-failed", failures: analysisFailures });
  opts.emit({
    type: "finished",
    ok,
    executed,
    cached,
    failed: failures.filter((f) => f.reason !== "cancelled" && f.reason !== "upstream-failed").length,
    seconds: (performance.now() - t0) / 1000,
  });
  return { ok, results, failures, analysisFailures, executed, cached };
}

async function lookupVerified(step: AnyStep, key: string, opts: Pick<RunOptions, "store" | "verify" | "emit">): Promise<Entry | undefined> {
  const hit = await opts.store.lookup(step.def.id, key);
  if (!hit || !opts.verify) return hit;
  const bad = await opts.store.verify(hit);
  if (bad.length === 0) return hit;
  opts.emit({ type: "tampered", step: step.name, key, outputs: bad });
  await opts.store.discard(hit);
  return undefined;
}

export interface PlanRow {
  readonly step: string;
  readonly stepId: string;
  readonly status: StepStatus;
  readonly key?: string;
  readonly fingerprint?: Fingerprint;
  readonly entry?: Entry;
}

/** What a run would do, without running anything: cached, run (key known), or pending (waits on a step that runs). */
export async function planGraph(graph: Graph, opts: Pick<RunOptions, "store" | "keys" | "force">): Promise<PlanRow[]> {
  const rows = new Map<AnyStep, PlanRow>();
  for (const step of graph.order) {
    const entries: Record<string, Entry> = {};
    let known = true;
    for (const input of Object.keys(step.def.inputs)) {
      const p = rows.get(producerOf(graph, step, input));
      if (p?.status === "cached" && p.entry) entries[input] = p.entry;
      else known = false;
    }
    if (!known) {
      rows.set(step, { step: step.name, stepId: step.def.id, status: "pending" });
      continue;
    }
    const fp = fingerprintOf(step, graph.params.get(step), (i) => entries[i], opts.keys)!;
    const key = cacheKey(fp);
    const entry = opts.force.has(step.name) ? undefined : await opts.store.lookup(step.def.id, key);
    rows.set(step, entry ? { step: step.name, stepId: step.def.id, status: "cached", key, fingerprint: fp, entry } : { step: step.name, stepId: step.def.id, status: "run", key, fingerprint: fp });
  }
  return graph.order.map((s) => rows.get(s)!);
}

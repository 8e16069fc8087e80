/**
 * One run of a graph (runGraph; engine.ts's module comment says what a run does and trusts):
 * the run's state, and each step's way through it: its inputs and key, the cache, then (when
 * it must run) a slot, the store's lease and the execution. The readiness bookkeeping that
 * decides when slots may be granted is readiness.ts; the run's end (record, events) engine.ts.
 */
import type { AnyStep } from "./step.ts";
import type { Graph } from "./graph.ts";
import { producerOf } from "./graph.ts";
import type { Entry } from "./store.ts";
import type { AnalysisFailure, RunFailure } from "./failures.ts";
import type { LeaseHolder } from "./lease.ts";
import { dropHeldLeasesSync } from "./lease.ts";
import type { RunOptions, StepResult } from "./run-options.ts";
import { cacheKey, type Fingerprint } from "./fingerprint.ts";
import { fingerprintOf } from "./keys.ts";
import { executeStep } from "./execute.ts";
import { bottomLevels, PrioritySemaphore } from "./schedule.ts";
import { EntryGuard } from "./entry-guard.ts";
import { claimer, type Claimer } from "./run-record.ts";
import { storeIoProblem } from "./store-errors.ts";
import { DevicePool, devicesWanted } from "./devices.ts";
import { wiredInputs } from "./wiring.ts";
import { Readiness } from "./readiness.ts";
import { plannedKey, type Planned, type PlanRow } from "./plan.ts";

type Outcome = { ok: true; entry: Entry } | { ok: false; upstream: string };
type Inputs = Record<string, { entry: Entry; output: string }>;
/** A step's key and what it was computed from (what a repair recomputes it with). */
interface Resolved {
  readonly key: string;
  readonly fp: Fingerprint;
  readonly params: unknown;
  readonly inputs: Inputs;
}

/** What a run has come to when asked (GraphRun.outcome): a snapshot the run's end (engine.ts) records and returns. */
export interface GraphRunOutcome {
  /** When the run began (ISO 8601), and the seconds since. */
  readonly started: string;
  readonly elapsedSeconds: number;
  readonly results: ReadonlyMap<string, StepResult>;
  readonly failures: readonly RunFailure[];
  readonly analysisFailures: readonly AnalysisFailure[];
  /** Key -> execution time of each step this run executed, for the run record. */
  readonly seconds: ReadonlyMap<string, number>;
  readonly executed: number;
  readonly cached: number;
  /** The signal that stopped the run, if one did. */
  readonly interrupted?: string;
}

export class GraphRun {
  private readonly t0 = performance.now();
  private readonly started = new Date().toISOString();
  private readonly results = new Map<string, StepResult>();
  private readonly failures: RunFailure[] = [];
  private readonly analysisFailures: AnalysisFailure[] = [];
  private readonly seconds = new Map<string, number>();
  private executed = 0;
  private cached = 0;
  private interrupted: string | undefined;

  private readonly sem: PrioritySemaphore;
  private readonly gpuPool: DevicePool;
  private readonly priority: Map<AnyStep, number>;
  private readonly readiness: Readiness;
  private readonly outcomes = new Map<AnyStep, Promise<Outcome>>();
  private readonly inflight = new Map<string, Promise<Entry | RunFailure>>();
  private readonly repairs = new Map<string, Promise<Entry | RunFailure>>();
  private readonly resolved = new Map<AnyStep, Resolved>();
  private readonly guard: EntryGuard;
  private readonly planned: Planned | undefined;
  private stopping = false;
  private abandon: () => void = () => {};
  private readonly abandoned = new Promise<void>((resolve) => (this.abandon = resolve));

  private constructor(
    private readonly graph: Graph,
    private readonly opts: RunOptions,
    private readonly abort: AbortController,
    /** Claims each key in the run's in-progress record before it is looked up. */
    readonly claim: Claimer,
  ) {
    this.sem = new PrioritySemaphore(Math.max(1, opts.concurrency));
    this.gpuPool = new DevicePool(opts.gpus ?? 0);
    this.priority = bottomLevels(graph, opts.measured);
    this.readiness = new Readiness(graph, [this.sem, this.gpuPool]);
    this.guard = new EntryGuard(opts.store, opts.emit, opts.verify);
    this.planned = opts.planned?.graph === graph && opts.planned.keys === opts.keys ? opts.planned : undefined;
  }

  /** A run of `graph`: its claims' record started (run-record.ts), listening for `opts.signal`. */
  static async open(graph: Graph, opts: RunOptions): Promise<GraphRun> {
    const abort = new AbortController();
    const run = new GraphRun(graph, opts, abort, await claimer(opts.store, opts.targets, opts.record !== false, abort.signal, opts.emit));
    if (opts.signal?.aborted) run.onSignal();
    else opts.signal?.addEventListener("abort", run.onSignal, { once: true });
    return run;
  }

  /** Stopping: no new step starts, running ones are cancelled, and after the grace they are abandoned. */
  private readonly onSignal = (): void => {
    this.interrupted = String(this.opts.signal?.reason ?? "interrupted");
    this.stopping = true;
    this.abort.abort(this.opts.signal?.reason);
    setTimeout(this.abandon, this.opts.stopGraceMs ?? 10_000).unref();
  };

  /** Every step starts resolving as soon as its producers have outcomes; those without inputs are on their way at once. */
  start(): void {
    for (const step of this.graph.order) if (wiredInputs(step).length === 0) this.readiness.depart(step);
    for (const step of this.graph.order) {
      this.outcomes.set(
        step,
        this.resolveSafely(step).then(
          (o) => {
            this.readiness.settle(step);
            return o;
          },
          (e: unknown) => {
            this.readiness.arrive(step);
            throw e;
          },
        ),
      );
    }
  }

  /** Resolves once every step has its outcome, or a stop's grace has run out. */
  async settled(): Promise<void> {
    await Promise.race([Promise.all(this.outcomes.values()), this.abandoned]);
    if (this.interrupted !== undefined) {
      // Steps still running ignored the cancellation: what they hold goes now, on their behalf.
      this.opts.store.removeOwnStagingSync();
      dropHeldLeasesSync();
    }
    this.opts.signal?.removeEventListener("abort", this.onSignal);
  }

  /** What the run has come to so far (copies: later steps and failures do not change a returned outcome). */
  outcome(): GraphRunOutcome {
    return {
      started: this.started,
      elapsedSeconds: (performance.now() - this.t0) / 1000,
      results: new Map(this.results),
      failures: [...this.failures],
      analysisFailures: [...this.analysisFailures],
      seconds: new Map(this.seconds),
      executed: this.executed,
      cached: this.cached,
      ...(this.interrupted !== undefined ? { interrupted: this.interrupted } : {}),
    };
  }

  /** A run failure: kept, reported, and the failure mode applied (stop new work, or kill running work too). */
  fail(f: RunFailure): void {
    this.failures.push(f);
    this.opts.emit({ type: "failed", failure: f });
    if (this.opts.failureMode !== "continue") this.stopping = true;
    if (this.opts.failureMode === "kill") this.abort.abort();
  }

  /** A store I/O error (disk full, read-only) as a run failure; other errors are bugs and propagate. */
  private ioFailure(step: AnyStep, e: unknown): RunFailure | undefined {
    const p = storeIoProblem(e, this.opts.store.root);
    return p && { reason: "store-failed", step: step.name, code: p.code, path: p.path, message: p.message, fix: p.fix };
  }

  /** resolveStep, with a store I/O error (claim, lookup, lease) as this step's failure. */
  private async resolveSafely(step: AnyStep): Promise<Outcome> {
    try {
      return await this.resolveStep(step);
    } catch (e) {
      const f = this.abort.signal.aborted ? undefined : this.ioFailure(step, e);
      if (!this.abort.signal.aborted && !f) throw e;
      if (f) this.fail(f);
      else this.failures.push({ reason: "cancelled", step: step.name });
      this.results.set(step.name, { step: step.name, status: "failed" });
      return { ok: false, upstream: step.name };
    }
  }

  /** A step's outcome: its inputs, its key, then the cache, or else one execution of its key. */
  private async resolveStep(step: AnyStep): Promise<Outcome> {
    const got = await this.inputsOf(step);
    if (!got.ok) {
      this.results.set(step.name, { step: step.name, status: "skipped" });
      return got;
    }
    const row = this.planned?.rows.get(step.name);
    const r = this.keyOf(step, got.inputs, row);
    const forced = this.opts.force.has(step.name);

    await this.claim(step.name, r.key);
    const hit = forced ? undefined : await this.guard.lookup(step, r.key, row?.entry);
    if (hit) {
      this.cached++;
      this.opts.emit({ type: "cache-hit", step: step.name, key: r.key });
      this.results.set(step.name, { step: step.name, status: "cached", key: r.key, entry: hit });
      return { ok: true, entry: hit };
    }
    return this.refusal(step, r.key) ?? (await this.executeOnce(step, r, forced));
  }

  /** The producers' entries this step reads, or the upstream step that has none. */
  private async inputsOf(step: AnyStep): Promise<{ ok: true; inputs: Inputs } | { ok: false; upstream: string }> {
    const inputs: Inputs = {};
    for (const { name: input, ref } of wiredInputs(step)) {
      const producer = producerOf(this.graph, step, input);
      const o = await this.outcomes.get(producer)!;
      // Checked when this run resolved it; checked again right before this step reads it.
      const entry = !o.ok ? undefined : this.guard.wasChecked(o.entry) ? o.entry : await this.intactInput(producer, o.entry);
      if (entry === undefined || "reason" in entry) return { ok: false, upstream: o.ok ? producer.name : o.upstream };
      inputs[input] = { entry, output: ref.output };
    }
    return { ok: true, inputs };
  }

  /** The step's key: the plan's where the inputs' digests are the planned ones, else computed. */
  private keyOf(step: AnyStep, inputs: Inputs, row: PlanRow | undefined): Resolved {
    const params = this.graph.params.get(step);
    const same = plannedKey(step, row, inputs);
    const fp = same?.fingerprint ?? fingerprintOf(step, params, (i) => inputs[i]?.entry, this.opts.keys)!;
    const r = { key: same?.key ?? cacheKey(fp), fp, params, inputs };
    this.resolved.set(step, r);
    return r;
  }

  /** Why a step that is not cached does not run, if it does not: --only leaves it out, or the run is stopping. */
  private refusal(step: AnyStep, key: string): Outcome | undefined {
    if (this.opts.only !== undefined && !this.opts.only.has(step.name)) {
      const f: AnalysisFailure = { reason: "input-not-cached", step: [...this.opts.only].join(","), input: step.name, producer: step.name };
      this.analysisFailures.push(f);
      this.stopping = true;
      this.results.set(step.name, { step: step.name, status: "failed", key });
      return { ok: false, upstream: step.name };
    }
    if (this.stopping) {
      const f: RunFailure = { reason: "cancelled", step: step.name };
      this.failures.push(f);
      this.results.set(step.name, { step: step.name, status: "skipped", key });
      return { ok: false, upstream: step.name };
    }
    return undefined;
  }

  /** One execution per key in this process (a step with an identical step's key joins it)... */
  private async executeOnce(step: AnyStep, r: Resolved, forced: boolean): Promise<Outcome> {
    let pending = this.inflight.get(r.key);
    const owner = pending === undefined;
    if (!pending) {
      pending = this.computeWithLease(step, r, forced, false);
      this.inflight.set(r.key, pending);
    } else this.readiness.arrive(step);
    const out = await pending;
    if ("reason" in out) {
      if (owner) this.fail(out);
      this.results.set(step.name, { step: step.name, status: "failed", key: r.key });
      return { ok: false, upstream: step.name };
    }
    this.results.set(step.name, { step: step.name, status: owner ? "executed" : "cached", key: r.key, entry: out });
    return { ok: true, entry: out };
  }

  /** Recompute a producer whose entry was found damaged (once per key, whoever asks). */
  private repair(producer: AnyStep): Promise<Entry | RunFailure> {
    const r = this.resolved.get(producer);
    if (!r) return Promise.resolve({ reason: "upstream-failed", step: producer.name, upstream: producer.name });
    let pending = this.repairs.get(r.key);
    if (!pending) {
      pending = this.recompute(producer, r);
      this.repairs.set(r.key, pending);
    }
    return pending;
  }

  private async recompute(producer: AnyStep, r: Resolved): Promise<Entry | RunFailure> {
    if (this.opts.only !== undefined && !this.opts.only.has(producer.name)) {
      this.analysisFailures.push({ reason: "digest-mismatch", step: producer.name, outputs: [], key: r.key });
      this.stopping = true;
      return { reason: "cancelled", step: producer.name } as const;
    }
    const out = await this.computeWithLease(producer, r, false, true);
    if ("reason" in out) {
      if (out.reason !== "cancelled") this.fail(out);
    } else this.results.set(producer.name, { step: producer.name, status: "executed", key: r.key, entry: out });
    return out;
  }

  /** `entry` if still intact, else its producer's recomputed entry (or the failure). */
  private async intactInput(producer: AnyStep, entry: Entry): Promise<Entry | RunFailure> {
    return (await this.guard.intact(producer, entry)) ? entry : this.repair(producer);
  }

  /** ...and one per store: the lease, then a second look (another process may have finished it). */
  private async computeWithLease(step: AnyStep, r: Resolved, forced: boolean, repairing: boolean): Promise<Entry | RunFailure> {
    // A CPU slot, or the GPUs the step asks for; either is freed once the step's outcome has
    // settled, i.e. after its consumers departed. A repair runs outside the slots: the consumer
    // that needs it already holds one.
    const slot = repairing ? Promise.resolve(undefined) : this.slotFor(step);
    if (!repairing) this.readiness.arrive(step);
    const devices = await slot;
    const release = () => (devices === undefined ? this.sem.release() : this.gpuPool.release(devices));
    try {
      if (this.stopping) return { reason: "cancelled", step: step.name };
      const lease = await this.opts.store.lease(r.key, { signal: this.abort.signal, onWait: (h) => this.opts.emit(waitingEvent(step, r.key, h)) });
      try {
        return await this.underLease(step, r, forced, devices);
      } finally {
        await lease.release();
      }
    } catch (e) {
      if (this.abort.signal.aborted) return { reason: "cancelled", step: step.name };
      const io = this.ioFailure(step, e);
      if (io) return io;
      throw e;
    } finally {
      if (!repairing) void this.outcomes.get(step)!.then(release, release);
    }
  }

  /** The GPUs the step asks for (devices.ts), else a CPU slot (undefined), by its priority. */
  private slotFor(step: AnyStep): Promise<number[] | undefined> {
    const wanted = devicesWanted(step, this.gpuPool.size);
    const priority = this.priority.get(step) ?? 0;
    return wanted > 0 ? this.gpuPool.acquire(wanted, priority, step.name) : this.sem.acquire(priority, step.name).then(() => undefined);
  }

  /** Holding the key's lease: another process's entry if it made one, else this step executed. */
  private async underLease(step: AnyStep, r: Resolved, forced: boolean, devices: number[] | undefined): Promise<Entry | RunFailure> {
    if (!forced) {
      const other = await this.guard.lookup(step, r.key);
      if (other) {
        this.cached++;
        this.opts.emit({ type: "succeeded", step: step.name, key: r.key, seconds: 0, reused: true });
        return other;
      }
    }
    const now = await this.recheckInputs(step, r);
    return now.ok ? this.execute(step, r, now.inputs, devices) : now.failure;
  }

  /** The inputs are about to be read: still the bytes the key was computed from? (A repaired input may be.) */
  private async recheckInputs(step: AnyStep, { fp, inputs }: Resolved): Promise<{ ok: true; inputs: Inputs } | { ok: false; failure: RunFailure }> {
    let checked = inputs;
    for (const name of Object.keys(inputs).sort()) {
      const { entry, output } = inputs[name]!;
      const producer = producerOf(this.graph, step, name);
      const now = await this.intactInput(producer, entry);
      if ("reason" in now) return { ok: false, failure: { reason: "upstream-failed", step: step.name, upstream: producer.name } };
      if (now === entry) continue;
      if (now.manifest.outputs[output]?.digest !== fp.inputs[name]?.digest) return { ok: false, failure: { reason: "input-changed", step: step.name, input: name, producer: producer.name } };
      checked = { ...checked, [name]: { entry: now, output } };
    }
    return { ok: true, inputs: checked };
  }

  private async execute(step: AnyStep, { key, fp, params }: Resolved, inputs: Inputs, devices: number[] | undefined): Promise<Entry | RunFailure> {
    const o = this.opts;
    const r = await executeStep(step, params, fp, inputs, {
      store: o.store,
      executor: o.executor,
      lock: o.keys.lock,
      sourceRoot: o.sourceRoot,
      settings: o.settings,
      env: o.keys.env,
      ...(o.keys.datasets ? { datasets: o.keys.datasets } : {}),
      tools: o.tools,
      emit: o.emit,
      signal: this.abort.signal,
      ...(devices !== undefined ? { devices } : {}),
    });
    if (!r.ok) return r.failure;
    this.guard.vouch(r.entry);
    this.executed++;
    this.seconds.set(key, r.seconds);
    o.emit({ type: "succeeded", step: step.name, key, seconds: r.seconds, reused: false });
    return r.entry;
  }
}

/** The `waiting` event of a step whose key's lease another process holds. */
function waitingEvent(step: AnyStep, key: string, h: LeaseHolder | undefined): { type: "waiting"; step: string; key: string; holder?: string } {
  const ev: { type: "waiting"; step: string; key: string; holder?: string } = { type: "waiting", step: step.name, key };
  if (h) ev.holder = `pid ${h.pid} on ${h.host}`;
  return ev;
}

/**
 * Overall progress of a run, for every reporter: steps done of total, cached vs run, and the
 * expected time left.
 *
 * - `planEvent`: before a run starts, the `plan` event: every step with what a plan says
 *   (cached / run / pending), its producers, and its expected duration: how long it took when
 *   it last ran (the run records the scheduler already reads), else its cost hint. The run
 *   then reuses the plan's rows (session.ts, RunOptions.planned).
 * - `RunProgress`: folds the events of the run into counts, and estimates the time left by
 *   replaying the scheduler on what is left: the same slots, longest chain of work first,
 *   running steps finishing at the rate their progress lines show (or as expected), steps a
 *   plan found cached taking no time.
 * - `withRunProgress`: a sink wrapper that forwards every event and adds `overall` events
 *   (and `metrics` events from programs' `EPOCH {json}` lines), so the TTY, plain and JSON
 *   reporters all see the same numbers.
 */
import type { EngineEvent, EventSink, StepStatus } from "../engine/events.ts";
import type { Graph } from "../engine/graph.ts";
import { producerOf } from "../engine/graph.ts";
import { inputNames } from "../engine/wiring.ts";
import type { PlanRow } from "../engine/engine.ts";
import { expectedSeconds, type Estimates } from "../engine/schedule.ts";

type PlanEvent = Extract<EngineEvent, { type: "plan" }>;
type OverallEvent = Extract<EngineEvent, { type: "overall" }>;

/** The `plan` event of a graph whose plan rows (`planGraph`) are known. */
export function planEvent(graph: Graph, rows: readonly PlanRow[], estimates: Estimates, concurrency: number): PlanEvent {
  const byName = new Map(rows.map((r) => [r.step, r]));
  return {
    type: "plan",
    concurrency,
    steps: graph.order.map((s) => {
      const row = byName.get(s.name);
      const after = [...new Set(inputNames(s).map((input) => producerOf(graph, s, input).name))].sort();
      const e = expectedSeconds(s, graph.params.get(s), estimates);
      return { step: s.name, status: row?.status ?? "pending", ...(row?.key !== undefined ? { key: row.key } : {}), expectedSeconds: Math.round(e.seconds * 1000) / 1000, estimate: e.source, after };
    }),
  };
}

/** Expected seconds for a whole plan with nothing done yet (the same estimate a run starts with). */
export function planEta(e: PlanEvent): number {
  const p = new RunProgress(0);
  p.apply(e, 0);
  return p.eta(0);
}

interface PlannedStep {
  readonly name: string;
  readonly status: StepStatus;
  readonly expected: number;
  readonly after: readonly string[];
}

export interface Snapshot {
  readonly done: number;
  readonly total: number;
  readonly cached: number;
  readonly executed: number;
  readonly failed: number;
  readonly running: number;
  readonly etaSeconds: number | null;
  readonly elapsedSeconds: number;
}

/** Events folded into overall counts; `now` in milliseconds (injected, for tests). */
export class RunProgress {
  private steps = new Map<string, PlannedStep>();
  private concurrency = 1;
  private readonly settled = new Set<string>();
  private readonly running = new Map<string, { started: number; done: number; total?: number }>();
  private cached = 0;
  private executed = 0;
  private failed = 0;
  private planned = false;
  private finished = false;

  constructor(private readonly startedAt: number) {}

  apply(e: EngineEvent, now: number): void {
    switch (e.type) {
      case "plan":
        this.planned = true;
        this.concurrency = Math.max(1, e.concurrency ?? 1);
        this.steps = new Map(e.steps.map((s) => [s.step, { name: s.step, status: s.status, expected: s.expectedSeconds ?? 1, after: s.after ?? [] }]));
        break;
      case "cache-hit":
        if (this.settle(e.step)) this.cached++;
        break;
      case "started":
        this.running.set(e.step, { started: now, done: 0 });
        break;
      case "progress": {
        const r = this.running.get(e.step);
        if (r) {
          r.done = e.done;
          if (e.total !== undefined) r.total = e.total;
        }
        break;
      }
      case "succeeded":
        if (this.settle(e.step)) {
          if (e.reused) this.cached++;
          else this.executed++;
        }
        break;
      case "failed":
        if (this.settle(e.failure.step) && e.failure.reason !== "cancelled" && e.failure.reason !== "upstream-failed") this.failed++;
        break;
      case "finished":
        this.finished = true;
        this.running.clear();
        break;
      default:
        break;
    }
  }

  private settle(step: string): boolean {
    this.running.delete(step);
    if (this.settled.has(step)) return false;
    this.settled.add(step);
    return true;
  }

  private total(): number {
    return this.planned ? this.steps.size : this.settled.size + this.running.size;
  }

  /** Steps not settled yet (cheap: no time estimate). */
  get pending(): number {
    return this.total() - this.settled.size;
  }

  snapshot(now: number): Snapshot {
    return {
      done: this.settled.size,
      total: this.total(),
      cached: this.cached,
      executed: this.executed,
      failed: this.failed,
      running: this.running.size,
      etaSeconds: this.finished ? 0 : this.planned ? Math.round(this.eta(now) * 10) / 10 : null,
      elapsedSeconds: Math.round((now - this.startedAt) / 100) / 10,
    };
  }

  /** Seconds a running step still needs: from its progress rate when it reports one, else its expectation. */
  private remainingOf(name: string, now: number): number {
    const r = this.running.get(name)!;
    const elapsed = (now - r.started) / 1000;
    const expected = this.steps.get(name)?.expected ?? 1;
    if (r.total !== undefined && r.total > 0 && r.done > 0) return (elapsed * (r.total - Math.min(r.done, r.total))) / r.done;
    return Math.max(expected - elapsed, Math.min(expected, 1) * 0.1);
  }

  /** Replays list scheduling (longest remaining chain first, `concurrency` slots) over what is left. */
  eta(now: number): number {
    const left = [...this.steps.values()].filter((s) => !this.settled.has(s.name));
    if (left.length === 0) return 0;
    const cost = new Map(left.map((s) => [s.name, this.running.has(s.name) ? this.remainingOf(s.name, now) : s.status === "cached" ? 0 : s.expected]));
    const consumers = new Map<string, string[]>();
    for (const s of left) {
      for (const a of s.after) {
        if (!cost.has(a)) continue;
        const list = consumers.get(a);
        if (list === undefined) consumers.set(a, [s.name]);
        else list.push(s.name);
      }
    }
    const level = new Map<string, number>();
    const levelOf = (n: string): number => {
      const known = level.get(n);
      if (known !== undefined) return known;
      level.set(n, cost.get(n)!); // guards against (impossible) cycles
      const v = cost.get(n)! + Math.max(0, ...(consumers.get(n) ?? []).map(levelOf));
      level.set(n, v);
      return v;
    };
    const waiting = new Map(left.map((s) => [s.name, s.after.filter((a) => cost.has(a)).length]));
    // Both queues are kept in order by inserting each item at its place (both orders are total:
    // names are unique), not sorted whole after each finish: a plan of 433 cached steps made
    // that ~430 sorts of ~430 items per estimate.
    const byLevel = (a: string, b: string) => levelOf(b) - levelOf(a) || (a < b ? -1 : 1);
    const byTime = (a: { name: string; at: number }, b: { name: string; at: number }) => a.at - b.at || (a.name < b.name ? -1 : 1);
    const finishAt: { name: string; at: number }[] = [];
    for (const n of this.running.keys()) if (cost.has(n)) insertSorted(finishAt, { name: n, at: cost.get(n)! }, byTime);
    const ready = left.filter((s) => !this.running.has(s.name) && waiting.get(s.name) === 0).map((s) => s.name).sort(byLevel);
    let t = 0;
    let slotsBusy = finishAt.length;
    for (;;) {
      while (ready.length > 0 && (slotsBusy < this.concurrency || cost.get(ready[0]!) === 0)) {
        const n = ready.shift()!;
        if (cost.get(n)! > 0) slotsBusy++;
        insertSorted(finishAt, { name: n, at: t + cost.get(n)! }, byTime);
      }
      if (finishAt.length === 0) return t;
      const next = finishAt.shift()!;
      t = next.at;
      if (cost.get(next.name)! > 0) slotsBusy--;
      for (const c of consumers.get(next.name) ?? []) {
        const w = waiting.get(c)! - 1;
        waiting.set(c, w);
        if (w === 0) insertSorted(ready, c, byLevel);
      }
    }
  }
}

/** Inserts `item` into `list` (sorted by `order`) at its place: after every item not greater. */
function insertSorted<T>(list: T[], item: T, order: (a: T, b: T) => number): void {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (order(list[mid]!, item) <= 0) lo = mid + 1;
    else hi = mid;
  }
  list.splice(lo, 0, item);
}

/** Names of a trainer's per-epoch numbers as people read them. */
export function metricLabel(name: string): string {
  const recall = /^dev_recall_at_(\d+)$/.exec(name);
  if (recall) return `dev R@${recall[1]}`;
  return name.replace(/_/g, " ");
}

/** The numbers of an `EPOCH {json}` line (a training program's per-epoch record), or undefined. */
export function parseEpochLine(line: string): { epoch?: number; values: Record<string, number> } | undefined {
  if (!line.startsWith("EPOCH ")) return undefined;
  let row: unknown;
  try {
    row = JSON.parse(line.slice(6));
  } catch {
    return undefined;
  }
  if (typeof row !== "object" || row === null || Array.isArray(row)) return undefined;
  const values: Record<string, number> = {};
  for (const [k, v] of Object.entries(row)) if (typeof v === "number" && Number.isFinite(v) && k !== "epoch") values[k] = v;
  const epoch = (row as { epoch?: unknown }).epoch;
  return typeof epoch === "number" ? { epoch, values } : { values };
}

const TRIGGERS: ReadonlySet<string> = new Set(["plan", "cache-hit", "started", "succeeded", "failed", "finished"]);

/**
 * Forward every event to `sink`, followed by an `overall` event after each event that changes
 * the counts (cache hits at most every `cacheHitIntervalMs`, so a cached rerun stays short),
 * and a `metrics` event after each `EPOCH {json}` log line.
 */
export function withRunProgress(sink: EventSink, options: { now?: () => number; cacheHitIntervalMs?: number } = {}): EventSink {
  const now = options.now ?? (() => Date.now());
  const progress = new RunProgress(now());
  let lastHit = -Infinity;
  return (e) => {
    const t = now();
    progress.apply(e, t);
    sink(e);
    if (e.type === "log") {
      const m = parseEpochLine(e.line);
      if (m) sink({ type: "metrics", step: e.step, ...(m.epoch !== undefined ? { epoch: m.epoch } : {}), values: m.values });
      return;
    }
    if (!TRIGGERS.has(e.type)) return;
    if (e.type === "cache-hit") {
      // decided before any snapshot: the time estimate replays the schedule of every step left,
      // and computing it for each of 1,000 cache hits made a no-op rerun quadratic
      if (t - lastHit < (options.cacheHitIntervalMs ?? 500) && progress.pending > 0) return;
      lastHit = t;
    }
    const overall: OverallEvent = { type: "overall", ...progress.snapshot(t), trigger: e.type as OverallEvent["trigger"] };
    sink(overall);
  };
}

/** m:ss or h:mm:ss; "--:--" when unknown. */
export function formatDuration(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds) || seconds < 0) return "--:--";
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
}

/** "57/229 steps done (41 cached, 16 run, 0 failed), 2 running, 3:12 elapsed, eta 7:32". */
export function overallLine(o: Snapshot, etaSeconds: number | null = o.etaSeconds): string {
  return `${o.done}/${o.total} steps done (${o.cached} cached, ${o.executed} run${o.failed > 0 ? `, ${o.failed} failed` : ""}), ${o.running} running, ${formatDuration(o.elapsedSeconds)} elapsed, eta ${formatDuration(etaSeconds)}`;
}

/** A metrics event in words: "epoch 2: train loss 0.4120, dev R@5 45.1%". */
export function metricsLine(e: Extract<EngineEvent, { type: "metrics" }>): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(e.values).sort(([a], [b]) => (a < b ? 1 : -1))) {
    if (k === "train_loss") parts.push(`train loss ${v.toFixed(4)}`);
    else if (/^dev_recall_at_\d+$/.test(k)) parts.push(`${metricLabel(k)} ${(v * 100).toFixed(1)}%`);
  }
  return `${e.epoch !== undefined ? `epoch ${e.epoch}` : "metrics"}: ${parts.length > 0 ? parts.join(", ") : Object.entries(e.values).slice(0, 4).map(([k, v]) => `${metricLabel(k)} ${v}`).join(", ")}`;
}

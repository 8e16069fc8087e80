/**
 * Which ready step runs next when there are more ready steps than slots: the one with the
 * longest chain of expected work still behind it (its "bottom level": its own cost plus
 * the most expensive path through its consumers). Classic critical-path list scheduling;
 * it starts the long training chains (θ0 → iteration 1 → mining → iteration 2 → ...) early
 * instead of in name order, so their tail overlaps the short independent steps.
 *
 * Costs are hints in rough seconds on one core (`StepDef.cost`), replaced by the measured
 * duration of a step's last execution when an earlier run recorded one; they order work and
 * never enter a key. Ties are broken by step name, so the order is deterministic given the
 * same hints and history.
 */
import type { AnyStep } from "./step.ts";
import type { Graph } from "./graph.ts";

/** Default hints: an in-process step is cheap, a program in a container is not. */
export const DEFAULT_COST = { "in-process": 1, container: 10 } as const;

/**
 * Where a step's expected duration comes from: its last execution in this store (`recorded`),
 * the definitions' reference run on a known machine (`reference`), or its cost hint (`hint`: a guess).
 */
export type EstimateSource = "recorded" | "reference" | "hint";

/** Seconds a step took on the reference machine, if the definitions know (by name, else by step id). */
export type ReferenceCost = (step: AnyStep) => number | undefined;

export interface Estimates {
  /** Step name -> seconds of its last execution in this store (Store.measuredSeconds). */
  readonly recorded: ReadonlyMap<string, number>;
  readonly reference?: ReferenceCost;
}

/** A step's expected seconds and where the number comes from. */
export function expectedSeconds(step: AnyStep, params: unknown, e: Estimates): { seconds: number; source: EstimateSource } {
  const recorded = e.recorded.get(step.name);
  if (recorded !== undefined) return { seconds: recorded, source: "recorded" };
  const reference = e.reference?.(step);
  if (reference !== undefined) return { seconds: reference, source: "reference" };
  return { seconds: stepCost(step, params), source: "hint" };
}

/** Step name -> expected seconds where a run recorded it or the reference knows it (what scheduling priorities read). */
export function knownSeconds(graph: Graph, e: Estimates): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of graph.order) {
    const x = expectedSeconds(s, graph.params.get(s), e);
    if (x.source !== "hint") out.set(s.name, x.seconds);
  }
  return out;
}

export function stepCost(step: AnyStep, params: unknown): number {
  const hint = step.def.cost;
  const c = hint === undefined ? DEFAULT_COST[step.def.runtime.type] : typeof hint === "number" ? hint : hint(params as never);
  if (!Number.isFinite(c) || c < 0) throw new Error(`step ${step.name}: cost hint must be a finite number >= 0, got ${c}`);
  return c;
}

/**
 * Bottom level of every step: cost plus the largest bottom level among its consumers. A
 * step's cost is its measured duration when `measured` has one (seconds of its last
 * execution, by step name, from earlier runs' records), else its hint.
 */
export function bottomLevels(graph: Graph, measured: ReadonlyMap<string, number> = new Map()): Map<AnyStep, number> {
  const levels = new Map<AnyStep, number>();
  for (let i = graph.order.length - 1; i >= 0; i--) {
    const s = graph.order[i]!;
    let tail = 0;
    for (const c of graph.consumers.get(s) ?? []) tail = Math.max(tail, levels.get(c) ?? 0);
    levels.set(s, (measured.get(s.name) ?? stepCost(s, graph.params.get(s))) + tail);
  }
  return levels;
}

/**
 * A counting semaphore whose waiters are served highest priority first, then by name
 * (ascending). Grants happen in a drain scheduled with setImmediate, so steps that become
 * ready in the same turn compete by priority rather than by which one reached `acquire`
 * first.
 *
 * `hold()` / `unhold()` pause grants while some caller is still on its way to `acquire`
 * (the engine holds for every step whose inputs are all available until that step has
 * looked up the store and either queued or turned out cached). Without it, whichever step
 * finished its lookup first would take a free slot before the others could compete.
 */
export class PrioritySemaphore {
  private active = 0;
  private holds = 0;
  private scheduled = false;
  private readonly waiting: { priority: number; name: string; wake: () => void }[] = [];
  constructor(private readonly limit: number) {}

  acquire(priority: number, name: string): Promise<void> {
    return new Promise<void>((wake) => {
      this.waiting.push({ priority, name, wake });
      this.schedule();
    });
  }

  release(): void {
    this.active--;
    this.schedule();
  }

  hold(): void {
    this.holds++;
  }

  unhold(): void {
    if (this.holds === 0) throw new Error("PrioritySemaphore.unhold without a hold");
    this.holds--;
    if (this.holds === 0) this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.drain();
    });
  }

  private drain(): void {
    while (this.holds === 0 && this.active < this.limit && this.waiting.length > 0) {
      let best = 0;
      for (let i = 1; i < this.waiting.length; i++) {
        const w = this.waiting[i]!;
        const b = this.waiting[best]!;
        if (w.priority > b.priority || (w.priority === b.priority && w.name < b.name)) best = i;
      }
      const [next] = this.waiting.splice(best, 1);
      this.active++;
      next!.wake();
    }
  }
}

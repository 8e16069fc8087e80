/**
 * Which steps a run's slots wait for (engine.ts): the readiness bookkeeping of one run.
 *
 * Ready steps compete for slots only once all of them are in the queue. A step is on its
 * way from the moment its producers have all settled (at once, for a step without inputs)
 * until it arrives: queues for a slot, joins an identical step's execution, or resolves
 * without one (cached, skipped, failed). Grants wait while any step is on its way, so a
 * step still reading its manifest is never overtaken by one that read faster; in
 * particular a finishing step's slot goes to the best of the consumers it made ready.
 */
import type { AnyStep } from "./step.ts";
import type { Graph } from "./graph.ts";
import { producerCounts } from "./graph.ts";

/** What grants slots and can pause its grants (PrioritySemaphore, DevicePool). */
export interface Holdable {
  hold(): void;
  unhold(): void;
}

export class Readiness {
  private readonly waitingOn: Map<AnyStep, number>;
  private readonly feeds: Map<AnyStep, AnyStep[]>;
  private readonly settled = new Set<AnyStep>();
  private readonly onTheWay = new Set<AnyStep>();
  private readonly arrived = new Set<AnyStep>();

  /** `gates` are held, in this order, while any step is on its way. */
  constructor(
    graph: Graph,
    private readonly gates: readonly Holdable[],
  ) {
    ({ waitingOn: this.waitingOn, feeds: this.feeds } = producerCounts(graph));
  }

  /** `s` is on its way (its producers have settled): grants wait for it. */
  depart(s: AnyStep): void {
    if (this.onTheWay.has(s) || this.arrived.has(s)) return;
    this.onTheWay.add(s);
    for (const g of this.gates) g.hold();
  }

  /** `s` queued for a slot, joined an identical execution, or resolved without one. */
  arrive(s: AnyStep): void {
    if (this.arrived.has(s)) return;
    this.arrived.add(s);
    if (this.onTheWay.delete(s)) for (const g of this.gates) g.unhold();
  }

  /** `s` has its outcome: its consumers whose producers have now all settled depart. */
  settle(s: AnyStep): void {
    if (this.settled.has(s)) return;
    this.settled.add(s);
    this.arrive(s);
    for (const c of this.feeds.get(s) ?? []) {
      const left = this.waitingOn.get(c)! - 1;
      this.waitingOn.set(c, left);
      if (left === 0) this.depart(c);
    }
  }
}

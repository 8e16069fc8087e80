/** What a run would do, without running anything (`plan`, `explain`, `pin`, analysis checks). */
import type { Graph } from "./graph.ts";
import { producerOf } from "./graph.ts";
import type { AnyStep } from "./step.ts";
import type { Entry, Store } from "./store.ts";
import type { StepStatus } from "./events.ts";
import { cacheKey, type Fingerprint } from "./fingerprint.ts";
import { fingerprintOf, type KeyContext } from "./keys.ts";

export interface PlanRow {
  readonly step: string;
  readonly stepId: string;
  readonly status: StepStatus;
  readonly key?: string;
  readonly fingerprint?: Fingerprint;
  readonly entry?: Entry;
}

/**
 * Cached, run (key known), or pending (waits on a step that runs). Only reads the store:
 * a damaged entry counts as not cached (the run will move it aside and recompute it).
 */
export async function planGraph(graph: Graph, opts: { readonly store: Store; readonly keys: KeyContext; readonly force: ReadonlySet<string> }): Promise<PlanRow[]> {
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

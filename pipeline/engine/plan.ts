/** What a run would do, without running anything (`plan`, `explain`, `pin`, analysis checks). */
import type { Graph } from "./graph.ts";
import { producerOf } from "./graph.ts";
import type { AnyStep } from "./step.ts";
import type { Entry, Store } from "./store.ts";
import type { StepStatus } from "./events.ts";
import { cacheKey, type Fingerprint } from "./fingerprint.ts";
import { fingerprintOf, type KeyContext } from "./keys.ts";
import { inputNames } from "./wiring.ts";

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
    for (const input of inputNames(step)) {
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

/** A plan a run may reuse (RunOptions.planned): its rows, and the graph and key context it computed them from. */
export interface Planned {
  readonly graph: Graph;
  readonly keys: KeyContext;
  readonly rows: ReadonlyMap<string, PlanRow>;
}

/**
 * The planned fingerprint and key of `step`, when the plan computed them from the digests its
 * inputs have now; else undefined. A fingerprint is a function of the step, its params, its
 * inputs' digests and the key context, so a run over the plan's graph with the plan's key context
 * (checked by the caller) gets the same key without hashing again.
 */
export function plannedKey(step: AnyStep, row: PlanRow | undefined, inputs: Readonly<Record<string, { readonly entry: Entry; readonly output: string }>>): { fingerprint: Fingerprint; key: string } | undefined {
  if (row?.fingerprint === undefined || row.key === undefined || row.step !== step.name || row.stepId !== step.def.id) return undefined;
  const planned = row.fingerprint.inputs;
  const names = inputNames(step);
  if (Object.keys(planned).length !== names.length) return undefined;
  for (const name of names) {
    const i = inputs[name];
    const digest = i?.entry.manifest.outputs[i.output]?.digest;
    if (digest === undefined || planned[name]?.digest !== digest) return undefined;
    // A step keyed by its producers' keys too (provenanceKeys) keeps the planned key only for the same producers.
    if (planned[name]?.producer !== undefined && planned[name].producer !== i!.entry.key) return undefined;
  }
  return { fingerprint: row.fingerprint, key: row.key };
}

/**
 * The run's records: the in-progress record (claims, live-runs.ts) kept while the run goes,
 * and the final run record written when it ends, ok, failed or interrupted (gc keeps an
 * interrupted run's entries for a grace period; `explain` and scheduling read them).
 *
 * A store that cannot be written (read-only mount, permissions) can still serve a run
 * whose steps are all cached: the records are then skipped, as nothing can be removed
 * from such a store either. Any step that has to run fails there with the path and fix.
 */
import { existsSync } from "node:fs";
import type { Graph } from "./graph.ts";
import type { EventSink } from "./events.ts";
import type { RunFailure } from "./failures.ts";
import type { Entry, RunAbout, RunRecord, Store } from "./store.ts";
import { LiveRun, gcLockPath } from "./live-runs.ts";
import { leaseState, readLeaseHolder } from "./lease.ts";
import { storeIoProblem } from "./store-errors.ts";

const READ_ONLY = new Set(["EROFS", "EACCES", "EPERM"]);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Claims a key for this run, then waits while a gc decides (see live-runs.ts for why in this order). */
export interface Claimer {
  (step: string, key: string): Promise<void>;
  readonly live: LiveRun | undefined;
}

export async function claimer(store: Store, targets: readonly string[], record: boolean, signal: AbortSignal, emit: EventSink): Promise<Claimer> {
  let live: LiveRun | undefined;
  if (record) {
    try {
      live = await LiveRun.start(store.root, targets);
    } catch (e) {
      if (!storeIoProblem(e, store.root)) throw e;
      // A store we cannot write: reads still work; the first write a step needs fails with the fix.
    }
  }
  const lock = gcLockPath(store.root);
  const fn = async (step: string, key: string) => {
    live?.claim(key);
    let waited = false;
    while (existsSync(lock) && !signal.aborted) {
      const holder = await readLeaseHolder(lock);
      if ((await leaseState(lock, holder)) !== "live") break;
      if (!waited) {
        waited = true;
        emit({ type: "waiting", step, key, holder: `gc${holder ? ` (pid ${holder.pid} on ${holder.host})` : ""}` });
      }
      await sleep(100);
    }
  };
  return Object.assign(fn, { live });
}

export interface RunOutcomeRecord {
  readonly record: boolean;
  readonly graph: Graph;
  readonly results: ReadonlyMap<string, { readonly status: string; readonly key?: string; readonly entry?: Entry }>;
  /** Execution seconds by key. */
  readonly seconds: ReadonlyMap<string, number>;
  readonly targets: readonly string[];
  readonly started: string;
  readonly about?: RunAbout;
  readonly status: NonNullable<RunRecord["status"]>;
  readonly signal?: string;
}

/**
 * Write the final run record (steps that have an entry: cached or computed) and drop the
 * in-progress one. Returns a failure when the store cannot take the record for another
 * reason than being read-only (a full disk).
 */
export async function recordRunOutcome(store: Store, claim: Claimer, r: RunOutcomeRecord): Promise<RunFailure | undefined> {
  let failure: RunFailure | undefined;
  if (r.record) {
    const steps: Record<string, { stepId: string; key: string; seconds?: number }> = {};
    for (const s of r.graph.order) {
      const res = r.results.get(s.name);
      if (!res?.key || !res.entry) continue;
      const took = res.status === "executed" ? r.seconds.get(res.key) : undefined;
      steps[s.name] = took === undefined ? { stepId: s.def.id, key: res.key } : { stepId: s.def.id, key: res.key, seconds: Math.round(took * 1000) / 1000 };
    }
    const keys = [...new Set(Object.values(steps).map((s) => s.key))].sort();
    const rec: RunRecord = {
      time: new Date().toISOString(),
      started: r.started,
      targets: r.targets,
      ...(r.about !== undefined ? { about: r.about } : {}),
      keys,
      steps,
      status: r.status,
      ...(r.signal !== undefined ? { signal: r.signal } : {}),
    };
    try {
      await store.recordRun(rec);
    } catch (e) {
      const p = storeIoProblem(e, store.root);
      if (!p) throw e;
      if (!READ_ONLY.has(p.code) || claim.live !== undefined) failure = { reason: "store-failed", step: "(run record)", code: p.code, path: p.path, message: p.message, fix: p.fix };
    }
  }
  // Only once the final record holds the keys may the claims go.
  if (!failure) await claim.live?.close();
  return failure;
}

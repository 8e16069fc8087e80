/**
 * `--data-dir` and cache keys: for every datasets.lock entry that is not pinned yet and
 * whose file the user placed with --data-dir, the run's key context carries the entry with
 * that file's sha256 and size (steps/data/fetch/data-dir.ts), so the fetch step's key
 * changes when the file does. Pinned entries need nothing: their digest is already in the
 * key, and the fetch step verifies the file against it.
 */
import { join } from "node:path";
import type { Graph } from "./engine/graph.ts";
import type { LockEntry, LockFile } from "./engine/datasets-lock.ts";
import type { RunSettings } from "./engine/step.ts";
import { pinFromDataDir } from "../steps/data/fetch/data-dir.ts";

export async function dataDirDatasets(lock: LockFile, graph: Graph, settings: RunSettings, storeRoot: string): Promise<Record<string, LockEntry> | undefined> {
  if (settings.dataDir === undefined) return undefined;
  const names = new Set<string>();
  for (const s of graph.order) for (const d of s.def.datasets ?? []) if (lock.entries[d]?.sha256 === null) names.add(d);
  const out: Record<string, LockEntry> = {};
  for (const name of [...names].sort()) {
    const pinned = await pinFromDataDir(lock.entries[name]!, settings.dataDir, join(storeRoot, "stamps", "data-dir.json"));
    if (pinned) out[name] = pinned;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

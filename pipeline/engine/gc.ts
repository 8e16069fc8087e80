/**
 * Garbage collection that never removes what a run still needs.
 *
 * Kept: entries referenced by pins; by the newest `keepRuns` finished run records of each
 * target (so a few `bm25` or `diagnose` calls never evict a table built minutes earlier, and an
 * interrupted run does not count as one: it has its own grace period); by runs in
 * progress (their claims, live-runs.ts) whatever their age; by interrupted runs (a record
 * marked interrupted, or an in-progress record whose process died) for `graceMs` after
 * they stopped, so their finished work (the trainings of a stopped report) survives; and
 * keys whose lease is live (a run of an older version that writes no claims).
 *
 * Protocol with runs (see live-runs.ts): gc holds `<store>/gc.lock` while it reads the
 * claims and moves unkept entries into `trash/`; runs claim a key before looking it up and
 * wait while a gc holds the lock. After moving, gc reads the claims again and puts back
 * any entry claimed meanwhile. Only then is the trash deleted.
 *
 * Damaged entries (unreadable manifests) are reported, not removed: `doctor --repair`
 * moves them aside. Entries already moved aside (`damaged/`) are removed, each named.
 */
import { existsSync } from "node:fs";
import { mkdir, readdir, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { acquireLease, readLeaseHolder, leaseState, type LeaseHolder } from "./lease.ts";
import { gcLockPath, readLiveRuns } from "./live-runs.ts";
import { pidAlive, processState, type ProcessIdentity } from "./proc.ts";
import { STAGING_OWNER, dirSize, type DamagedEntry, type Entry, type RunRecord, type Store } from "./store.ts";

export const DEFAULT_GRACE_MS = 7 * 24 * 3600 * 1000;

export interface GcOptions {
  /** Newest finished run records per target whose entries are kept (default 5; 0: none). */
  readonly keepRuns?: number;
  /** How long an interrupted run's entries are kept (default 7 days). */
  readonly graceMs?: number;
  readonly dryRun?: boolean;
  /** Also remove the steps' persistent scratch, unless a run is active. */
  readonly scratch?: boolean;
  /** Staging directories whose owner cannot be checked are removed after this age (default 24 h). */
  readonly stagingMaxAgeMs?: number;
}

export interface InterruptedRun {
  /** The run record or in-progress record. */
  readonly file: string;
  readonly time: string;
  readonly keys: number;
  /** When its entries stop being kept (ISO time). */
  readonly keptUntil: string;
}

export interface GcResult {
  readonly removed: Entry[];
  readonly bytes: number;
  readonly staging: number;
  readonly scratch: { bytes: number; dirs: number; removed: boolean; busy: LeaseHolder[] };
  /** Keys kept, and by what. */
  readonly kept: number;
  readonly keptBy: { readonly pins: number; readonly recentRuns: number; readonly runningRuns: number; readonly interruptedRuns: number; readonly leases: number };
  readonly interrupted: InterruptedRun[];
  /** Entries put back because a run claimed them while gc was deciding. */
  readonly restored: number;
  /** Entry directories with unreadable manifests (left for `doctor --repair`). */
  readonly damaged: DamagedEntry[];
  /** Directories under damaged/ that were removed. */
  readonly removedDamaged: string[];
  readonly prunedRuns: number;
}

async function keysOfLiveLeases(root: string): Promise<Set<string>> {
  const dir = join(root, "leases");
  const out = new Set<string>();
  if (!existsSync(dir)) return out;
  for (const name of await readdir(dir)) {
    if (!name.endsWith(".lease")) continue;
    const p = join(dir, name);
    if ((await leaseState(p, await readLeaseHolder(p))) === "live") out.add(name.slice(0, -".lease".length));
  }
  return out;
}

/** Runs in progress right now: their claims. */
async function runningClaims(root: string): Promise<Set<string>> {
  const out = new Set<string>();
  for (const r of await readLiveRuns(root)) if (r.state === "running") for (const k of r.keys) out.add(k);
  return out;
}

type KeepReason = keyof GcResult["keptBy"];

/**
 * The keys gc keeps, and by what. Each reason counts the distinct keys it keeps (a key in five run
 * records is one key), so no reason's count exceeds `kept`; a key kept for two reasons counts under both.
 */
class KeptKeys {
  readonly all = new Set<string>();
  private readonly reasons: Record<KeepReason, Set<string>> = { pins: new Set(), recentRuns: new Set(), runningRuns: new Set(), interruptedRuns: new Set(), leases: new Set() };

  add(keys: Iterable<string>, reason: KeepReason): void {
    for (const k of keys) {
      this.reasons[reason].add(k);
      this.all.add(k);
    }
  }

  counts(): GcResult["keptBy"] {
    const r = this.reasons;
    return { pins: r.pins.size, recentRuns: r.recentRuns.size, runningRuns: r.runningRuns.size, interruptedRuns: r.interruptedRuns.size, leases: r.leases.size };
  }
}

interface KeptRuns {
  /** Runs stopped within their grace period, live records first. */
  readonly interrupted: InterruptedRun[];
  /** In-progress records of runs that died longer than the grace period ago. */
  readonly staleLive: string[];
  /** The run records kept as recent per target. */
  readonly recent: Set<string>;
}

/** Fill `kept` from running and interrupted runs, pins, recent run records and live leases. */
async function collectKept(store: Store, kept: KeptKeys, keepRuns: number, graceMs: number, now: number): Promise<KeptRuns> {
  const interrupted: InterruptedRun[] = [];
  const staleLive: string[] = [];
  // In-progress records first: a run that ends meanwhile writes its final record before it
  // drops its in-progress one, so its keys are in one or the other of what is read here.
  for (const r of await readLiveRuns(store.root)) {
    if (r.state === "running") kept.add(r.keys, "runningRuns");
    else if (r.mtimeMs + graceMs > now) {
      kept.add(r.keys, "interruptedRuns");
      interrupted.push({ file: r.path, time: r.header?.time ?? new Date(r.mtimeMs).toISOString(), keys: r.keys.size, keptUntil: new Date(r.mtimeMs + graceMs).toISOString() });
    } else staleLive.push(r.path);
  }
  for (const p of await store.pins()) kept.add(p.keys, "pins");
  const records = await store.runRecords(undefined, { strict: true });
  const recent = recentPerTarget(records, keepRuns);
  for (const { file, record } of records) if (recent.has(file)) kept.add(record.keys, "recentRuns");
  for (const { file, record } of records) {
    const until = Date.parse(record.time) + graceMs;
    if (record.status !== "interrupted" || until <= now) continue;
    kept.add(record.keys, "interruptedRuns");
    interrupted.push({ file, time: record.time, keys: record.keys.length, keptUntil: new Date(until).toISOString() });
  }
  kept.add(await keysOfLiveLeases(store.root), "leases");
  return { interrupted, staleLive, recent };
}

/** Move every entry not in `keep` into `trash` (only count it on a dry run). */
async function trashUnkept(store: Store, keep: ReadonlySet<string>, trash: string, dryRun: boolean): Promise<{ removed: Entry[]; bytes: number; damaged: DamagedEntry[] }> {
  const removed: Entry[] = [];
  let bytes = 0;
  const scan = await store.scan();
  for (const e of scan.entries) {
    if (keep.has(e.key)) continue;
    const size = await dirSize(e.dir);
    if (!dryRun) {
      await mkdir(join(trash, e.stepId), { recursive: true });
      try {
        await rename(e.dir, join(trash, e.stepId, e.key));
      } catch {
        continue; // replaced or removed meanwhile
      }
    }
    removed.push(e);
    bytes += size;
  }
  return { removed, bytes, damaged: scan.damaged };
}

/** A run may have claimed a key after the claims were read: put its entry back (out of `removed`). Returns how many. */
async function restoreLateClaims(store: Store, removed: Entry[], trash: string): Promise<number> {
  let restored = 0;
  const late = await runningClaims(store.root);
  for (let i = removed.length - 1; i >= 0; i--) {
    const e = removed[i]!;
    if (!late.has(e.key) || existsSync(e.dir)) continue;
    await rename(join(trash, e.stepId, e.key), e.dir).catch(() => undefined);
    if (existsSync(e.dir)) {
      removed.splice(i, 1);
      restored++;
    }
  }
  return restored;
}

/** After the lock is released: the removed entries' logs and content records, the trash, stale in-progress records. */
async function deleteTrashed(store: Store, removed: readonly Entry[], staleLive: readonly string[]): Promise<void> {
  for (const e of removed) {
    await rm(store.logPath(e.stepId, e.key), { force: true });
    await store.content.forget(e.key).catch(() => undefined);
  }
  await rm(join(store.root, "trash"), { recursive: true, force: true });
  for (const p of staleLive) await rm(p, { force: true });
}

/** Entries moved aside earlier as damaged (`damaged/<step>/<name>`), in name order: removed unless a dry run. */
async function removeDamagedDirs(root: string, dryRun: boolean): Promise<{ paths: string[]; bytes: number }> {
  const paths: string[] = [];
  let bytes = 0;
  const damagedRoot = join(root, "damaged");
  for (const id of existsSync(damagedRoot) ? (await readdir(damagedRoot)).sort() : []) {
    for (const name of (await readdir(join(damagedRoot, id)).catch(() => [] as string[])).sort()) {
      const p = join(damagedRoot, id, name);
      bytes += await dirSize(p);
      paths.push(p);
      if (!dryRun) await rm(p, { recursive: true, force: true });
    }
  }
  return { paths, bytes };
}

/** The steps' persistent scratch, removed when asked and no run is active; `freed` counts it when removed. */
async function collectScratch(store: Store, wanted: boolean, dryRun: boolean): Promise<{ scratch: GcResult["scratch"]; freed: number }> {
  const dirs = await store.scratch();
  const scratch = { bytes: dirs.reduce((a, d) => a + d.bytes, 0), dirs: dirs.length, removed: false, busy: [] as LeaseHolder[] };
  if (!wanted || dirs.length === 0) return { scratch, freed: 0 };
  scratch.busy = await store.activeRuns();
  if (scratch.busy.length > 0) return { scratch, freed: 0 };
  scratch.removed = true;
  if (!dryRun) for (const d of dirs) await rm(d.dir, { recursive: true, force: true });
  return { scratch, freed: scratch.bytes };
}

export async function collectGarbage(store: Store, options: GcOptions = {}): Promise<GcResult> {
  const dryRun = options.dryRun ?? false;
  const now = Date.now();
  if (!existsSync(store.root)) return emptyResult();
  const lock = dryRun ? undefined : await acquireLease(gcLockPath(store.root));
  const kept = new KeptKeys();
  const trash = join(store.root, "trash", `gc-${process.pid}-${randomBytes(4).toString("hex")}`);
  let runs: KeptRuns = { interrupted: [], staleLive: [], recent: new Set() };
  let trashed: Awaited<ReturnType<typeof trashUnkept>> = { removed: [], bytes: 0, damaged: [] };
  let restored = 0;
  try {
    runs = await collectKept(store, kept, options.keepRuns ?? 5, options.graceMs ?? DEFAULT_GRACE_MS, now);
    trashed = await trashUnkept(store, kept.all, trash, dryRun);
    if (!dryRun) restored = await restoreLateClaims(store, trashed.removed, trash);
  } finally {
    await lock?.release();
  }
  const { removed, damaged } = trashed;
  if (!dryRun) await deleteTrashed(store, removed, runs.staleLive);
  const staging = await removeOrphanStaging(store.root, options.stagingMaxAgeMs ?? 24 * 3600 * 1000, dryRun);
  const damagedDirs = await removeDamagedDirs(store.root, dryRun);
  const { scratch, freed } = await collectScratch(store, options.scratch ?? false, dryRun);
  const bytes = trashed.bytes + staging.bytes + damagedDirs.bytes + freed;
  const prunedRuns = dryRun ? 0 : await pruneRuns(store, new Set([...runs.recent, ...runs.interrupted.map((r) => r.file)]));
  return { removed, bytes, staging: staging.count, scratch, kept: kept.all.size, keptBy: kept.counts(), interrupted: runs.interrupted, restored, damaged, removedDamaged: damagedDirs.paths, prunedRuns };
}

function emptyResult(): GcResult {
  return {
    removed: [],
    bytes: 0,
    staging: 0,
    scratch: { bytes: 0, dirs: 0, removed: false, busy: [] },
    kept: 0,
    keptBy: { pins: 0, recentRuns: 0, runningRuns: 0, interruptedRuns: 0, leases: 0 },
    interrupted: [],
    restored: 0,
    damaged: [],
    removedDamaged: [],
    prunedRuns: 0,
  };
}

/**
 * The run records whose entries gc keeps: per target, the newest `keep` that finished (ok or
 * failed; an interrupted run is kept by its grace period instead). `records` oldest first.
 */
export function recentPerTarget(records: readonly { readonly file: string; readonly record: RunRecord }[], keep: number): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  for (let i = records.length - 1; i >= 0; i--) {
    const { file, record } = records[i]!;
    if (record.status === "interrupted") continue;
    for (const t of record.targets.length > 0 ? record.targets : ["(no target)"]) {
      const n = seen.get(t) ?? 0;
      if (n >= keep) continue;
      seen.set(t, n + 1);
      out.add(file);
    }
  }
  return out;
}

/** Delete every run record but those in `keep` (recent per target, interrupted runs within their grace period). */
async function pruneRuns(store: Store, keep: ReadonlySet<string>): Promise<number> {
  let n = 0;
  for (const name of await store.runRecordNames()) {
    const p = join(store.root, "runs", name);
    if (keep.has(p)) continue;
    await rm(p, { force: true });
    n++;
  }
  return n;
}

/** Who made a staging directory: `owner.json` inside it, else the pid in its name (`<key>.<pid>.<rand>`). */
async function stagingOwner(dir: string, name: string): Promise<Pick<ProcessIdentity, "pid" | "host" | "start" | "boot"> | number | undefined> {
  const h = await readLeaseHolder(join(dir, STAGING_OWNER));
  if (h && typeof h.pid === "number" && typeof h.host === "string") return h;
  const pid = Number(name.split(".")[1]);
  return Number.isInteger(pid) ? pid : undefined;
}

/**
 * Staging directories of processes that are gone (killed mid-step), or, when the owner
 * cannot be checked (another host, no owner recorded), older than `maxAgeMs`.
 */
export async function orphanStaging(root: string, maxAgeMs: number): Promise<string[]> {
  const stagingRoot = join(root, "staging");
  const out: string[] = [];
  if (!existsSync(stagingRoot)) return out;
  for (const name of (await readdir(stagingRoot)).sort()) {
    const p = join(stagingRoot, name);
    const s = await stat(p).catch(() => undefined);
    if (!s) continue;
    const owner = await stagingOwner(p, name);
    let dead: boolean;
    if (typeof owner === "number") dead = !pidAlive(owner);
    else if (owner) {
      const state = processState(owner);
      dead = state === "dead" || (state === "unknown" && Date.now() - s.mtimeMs > maxAgeMs);
    } else dead = Date.now() - s.mtimeMs > maxAgeMs;
    if (dead) out.push(p);
  }
  return out;
}

async function removeOrphanStaging(root: string, maxAgeMs: number, dryRun: boolean): Promise<{ count: number; bytes: number }> {
  let bytes = 0;
  const dirs = await orphanStaging(root, maxAgeMs);
  for (const p of dirs) {
    bytes += await dirSize(p);
    if (!dryRun) await rm(p, { recursive: true, force: true });
  }
  return { count: dirs.length, bytes };
}

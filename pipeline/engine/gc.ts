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

export async function collectGarbage(store: Store, options: GcOptions = {}): Promise<GcResult> {
  const keepRuns = options.keepRuns ?? 5;
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  const now = Date.now();
  if (!existsSync(store.root)) return emptyResult();
  const lock = options.dryRun ? undefined : await acquireLease(gcLockPath(store.root));
  const keep = new Set<string>();
  // Each reason counts the distinct keys it keeps (a key in five run records is one key), so no
  // reason's count exceeds `kept`; a key kept for two reasons counts under both.
  const reasons = { pins: new Set<string>(), recentRuns: new Set<string>(), runningRuns: new Set<string>(), interruptedRuns: new Set<string>(), leases: new Set<string>() };
  const add = (keys: Iterable<string>, reason: keyof typeof reasons): void => {
    for (const k of keys) {
      reasons[reason].add(k);
      keep.add(k);
    }
  };
  const removed: Entry[] = [];
  const trash = join(store.root, "trash", `gc-${process.pid}-${randomBytes(4).toString("hex")}`);
  let restored = 0;
  let bytes = 0;
  let damaged: DamagedEntry[] = [];
  const interrupted: InterruptedRun[] = [];
  const staleLive: string[] = [];
  let recent = new Set<string>();
  try {
    // In-progress records first: a run that ends meanwhile writes its final record before it
    // drops its in-progress one, so its keys are in one or the other of what is read here.
    for (const r of await readLiveRuns(store.root)) {
      if (r.state === "running") add(r.keys, "runningRuns");
      else if (r.mtimeMs + graceMs > now) {
        add(r.keys, "interruptedRuns");
        interrupted.push({ file: r.path, time: r.header?.time ?? new Date(r.mtimeMs).toISOString(), keys: r.keys.size, keptUntil: new Date(r.mtimeMs + graceMs).toISOString() });
      } else staleLive.push(r.path);
    }
    for (const p of await store.pins()) add(p.keys, "pins");
    const records = await store.runRecords(undefined, { strict: true });
    recent = recentPerTarget(records, keepRuns);
    for (const { file, record } of records) if (recent.has(file)) add(record.keys, "recentRuns");
    for (const { file, record } of records) {
      const until = Date.parse(record.time) + graceMs;
      if (record.status !== "interrupted" || until <= now) continue;
      add(record.keys, "interruptedRuns");
      interrupted.push({ file, time: record.time, keys: record.keys.length, keptUntil: new Date(until).toISOString() });
    }
    add(await keysOfLiveLeases(store.root), "leases");

    const scan = await store.scan();
    damaged = scan.damaged;
    for (const e of scan.entries) {
      if (keep.has(e.key)) continue;
      const size = await dirSize(e.dir);
      if (!options.dryRun) {
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
    if (!options.dryRun) {
      // A run may have claimed a key after the claims were read: put its entry back.
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
    }
  } finally {
    await lock?.release();
  }

  if (!options.dryRun) {
    for (const e of removed) {
      await rm(store.logPath(e.stepId, e.key), { force: true });
      await store.content.forget(e.key).catch(() => undefined);
    }
    await rm(join(store.root, "trash"), { recursive: true, force: true });
    for (const p of staleLive) await rm(p, { force: true });
  }

  const staging = await removeOrphanStaging(store.root, options.stagingMaxAgeMs ?? 24 * 3600 * 1000, options.dryRun ?? false);
  bytes += staging.bytes;

  const removedDamaged: string[] = [];
  const damagedRoot = join(store.root, "damaged");
  for (const id of existsSync(damagedRoot) ? (await readdir(damagedRoot)).sort() : []) {
    for (const name of (await readdir(join(damagedRoot, id)).catch(() => [] as string[])).sort()) {
      const p = join(damagedRoot, id, name);
      bytes += await dirSize(p);
      removedDamaged.push(p);
      if (!options.dryRun) await rm(p, { recursive: true, force: true });
    }
  }

  const dirs = await store.scratch();
  const scratch = { bytes: dirs.reduce((a, d) => a + d.bytes, 0), dirs: dirs.length, removed: false, busy: [] as LeaseHolder[] };
  if (options.scratch && dirs.length > 0) {
    scratch.busy = await store.activeRuns();
    if (scratch.busy.length === 0) {
      scratch.removed = true;
      bytes += scratch.bytes;
      if (!options.dryRun) for (const d of dirs) await rm(d.dir, { recursive: true, force: true });
    }
  }

  const prunedRuns = options.dryRun ? 0 : await pruneRuns(store, new Set([...recent, ...interrupted.map((r) => r.file)]));
  const keptBy = { pins: reasons.pins.size, recentRuns: reasons.recentRuns.size, runningRuns: reasons.runningRuns.size, interruptedRuns: reasons.interruptedRuns.size, leases: reasons.leases.size };
  return { removed, bytes, staging: staging.count, scratch, kept: keep.size, keptBy, interrupted, restored, damaged, removedDamaged, prunedRuns };
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

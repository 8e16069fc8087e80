/**
 * The content-addressed artifact store.
 *
 *   <root>/entries/<step-id>/<key>/   outputs/, fingerprint.json, manifest.json, log.txt
 *   <root>/staging/                   entries being built (never look complete)
 *   <root>/leases/<key>.lease         who is computing a key right now
 *   <root>/logs/<step-id>/<key>.log   live log of the latest attempt (kept after failures)
 *   <root>/pins/<name>.json           keys kept by `gc` for a pinned target
 *   <root>/runs/<time>-<pid>.json     keys each run resolved, by step name, and how it ended (kept by `gc`; read by `explain`)
 *   <root>/runs/live/<id>.keys        keys each run in progress holds (live-runs.ts; kept by `gc`)
 *   <root>/stamps/<key>.json          stat stamps of an entry's files (stamps.ts; a cache)
 *   <root>/exports/<digest>.json      what was last exported to a destination, with its files' stamps (exports.ts; a cache)
 *   <root>/damaged/<step-id>/<key>.*  entries moved aside: bytes that no longer match, unreadable manifests
 *   <root>/scratch/<step-id>/         persistent scratch (e.g. partial downloads)
 *
 * An entry exists only once its directory has been renamed into `entries/`, and the
 * rename happens after every output, the fingerprint and the manifest were written: a
 * crash at any point leaves only staging debris, which `gc` and `doctor` remove. An entry
 * directory whose manifest is missing or unreadable is damaged: it is moved aside (never
 * silently deleted), and the key is recomputed.
 */
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { mkdir, readdir, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { canonicalJson } from "./canonical.ts";
import type { Fingerprint } from "./fingerprint.ts";
import type { Entry, Manifest } from "./entry.ts";
import type { Overrides } from "./targets.ts";
import { acquireLease, liveLeaseHolders, type Lease, type LeaseHolder, type LeaseOptions } from "./lease.ts";
import { ContentChecker } from "./stamps.ts";
import { StoreFileError, keysShape, manifestShape, readStoreJson, writeStoreJson } from "./store-files.ts";
import { readLiveRuns } from "./live-runs.ts";
import { selfIdentity } from "./proc.ts";

export type { Entry, Manifest, OutputRecord } from "./entry.ts";

/** An entry directory that cannot be trusted: its manifest is missing, unreadable or wrong. */
export interface DamagedEntry {
  readonly stepId: string;
  readonly key: string;
  readonly dir: string;
  /** The file at fault (usually manifest.json). */
  readonly file: string;
  readonly problem: string;
}

export interface RunRecord {
  /** When the run ended. */
  readonly time: string;
  readonly targets: readonly string[];
  /** Every key the run resolved (hit or computed): what `gc` keeps for recent runs. */
  readonly keys: readonly string[];
  /** Step name -> the key it resolved to (what `explain` compares against) and, for steps
   * this run executed, how long that took (scheduling hints for later runs). */
  readonly steps: Readonly<Record<string, { readonly stepId: string; readonly key: string; readonly seconds?: number }>>;
  /** How the run ended (absent in records of older versions). An interrupted run's keys are kept by gc for a grace period. */
  readonly status?: "ok" | "failed" | "interrupted";
  /** The signal that interrupted it. */
  readonly signal?: string;
  /** When the run started (`time` is when it ended); absent in records of older versions. */
  readonly started?: string;
  /** What its targets were built with (absent in records of older versions; `compare` reads it). */
  readonly about?: RunAbout;
}

/** The context a run's targets were built in: the data source and the `--set` overrides (by path). */
export interface RunAbout {
  readonly data?: string;
  readonly overrides?: Overrides;
}

export interface Pin {
  readonly name: string;
  readonly target: string;
  readonly time: string;
  readonly keys: readonly string[];
}

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** In a staging directory: the identity of the process building it (removed before publishing). */
export const STAGING_OWNER = "owner.json";

export class Store {
  /** Content checks with stat stamps (stamps.ts). */
  readonly content: ContentChecker;
  /** Staging directories this process created and has not published or removed yet. */
  private readonly staging = new Set<string>();

  constructor(readonly root: string) {
    this.content = new ContentChecker(root);
  }

  entryDir(stepId: string, key: string): string {
    return join(this.root, "entries", stepId, key);
  }
  /** Records of the exports this store copied out (exports.ts). */
  exportRecordsDir(): string {
    return join(this.root, "exports");
  }
  outputPath(entry: Entry, output: string): string {
    const rec = entry.manifest.outputs[output];
    if (!rec) throw new Error(`entry ${entry.stepId}/${entry.key} has no output '${output}'`);
    return join(entry.dir, "outputs", rec.path);
  }
  logPath(stepId: string, key: string): string {
    return join(this.root, "logs", stepId, `${key}.log`);
  }
  scratchDir(stepId: string): string {
    return join(this.root, "scratch", stepId);
  }

  /** The entry for a key: complete, damaged (its directory exists but its manifest cannot be trusted), or absent. */
  async inspect(stepId: string, key: string): Promise<{ entry: Entry } | { damaged: DamagedEntry } | undefined> {
    const dir = this.entryDir(stepId, key);
    const file = join(dir, "manifest.json");
    try {
      const manifest = await readStoreJson<Manifest>(file, manifestShape(stepId, key));
      if (manifest) return { entry: { stepId, key, dir, manifest } };
    } catch (e) {
      if (e instanceof StoreFileError) return { damaged: { stepId, key, dir, file, problem: e.problem } };
      throw e;
    }
    // No manifest: either no entry, or a directory that lost it.
    const s = await stat(dir).catch(() => undefined);
    if (s === undefined) return undefined;
    return { damaged: { stepId, key, dir, file, problem: s.isDirectory() ? "missing (the entry directory has no manifest.json)" : "the entry is not a directory" } };
  }

  /** The entry for a key, if complete; undefined otherwise (absent or damaged). */
  async lookup(stepId: string, key: string): Promise<Entry | undefined> {
    const r = await this.inspect(stepId, key);
    return r && "entry" in r ? r.entry : undefined;
  }

  async fingerprint(entry: Entry): Promise<Fingerprint> {
    const fp = await readStoreJson<Fingerprint>(join(entry.dir, "fingerprint.json"));
    if (!fp) throw new StoreFileError(join(entry.dir, "fingerprint.json"), "missing");
    return fp;
  }

  /** Re-hash every output; returns the names of outputs whose bytes no longer match the manifest. */
  async verify(entry: Entry): Promise<string[]> {
    return this.content.check(entry, { full: true });
  }

  /**
   * Move a damaged entry directory aside to `damaged/<step-id>/<key>.<time>.<rand>` (never
   * deleted silently: `doctor` lists it, `gc` removes it naming it). Returns where it went,
   * or undefined if it was no longer there (another run moved it first).
   */
  async quarantine(stepId: string, key: string, problem: string): Promise<string | undefined> {
    const dest = join(this.root, "damaged", stepId, `${key}.${new Date().toISOString().replace(/[:.]/g, "-")}.${randomBytes(3).toString("hex")}`);
    await mkdir(join(this.root, "damaged", stepId), { recursive: true });
    try {
      await rename(this.entryDir(stepId, key), dest);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw e;
    }
    await writeFile(join(dest, "DAMAGED.txt"), `${new Date().toISOString()}: moved aside by pid ${process.pid}: ${problem}\n`).catch(() => undefined);
    await this.content.forget(key).catch(() => undefined);
    return dest;
  }

  /** Move an entry out of the way (being replaced, or removed by gc) and delete it. */
  async discard(entry: Entry): Promise<void> {
    const trash = join(this.root, "trash", `${entry.key}.${randomBytes(4).toString("hex")}`);
    await mkdir(join(this.root, "trash"), { recursive: true });
    try {
      await rename(entry.dir, trash);
    } catch {
      return;
    }
    await rm(trash, { recursive: true, force: true });
    await this.content.forget(entry.key).catch(() => undefined);
  }

  async createStaging(key: string): Promise<string> {
    const dir = join(this.root, "staging", `${key}.${process.pid}.${randomBytes(4).toString("hex")}`);
    this.staging.add(dir);
    await mkdir(join(dir, "outputs"), { recursive: true });
    await mkdir(join(dir, "work"), { recursive: true });
    // Who is building it: gc and doctor remove staging only when this process is gone.
    writeFileSync(join(dir, STAGING_OWNER), JSON.stringify({ ...selfIdentity(), since: new Date().toISOString() }));
    return dir;
  }

  /** Remove a staging directory (a failed or cancelled attempt). */
  async removeStaging(dir: string): Promise<void> {
    await rm(dir, { recursive: true, force: true });
    this.staging.delete(dir);
  }

  /** Remove every staging directory this process still has (an interrupted run on its way out). */
  removeOwnStagingSync(): void {
    for (const d of this.staging) rmSync(d, { recursive: true, force: true });
    this.staging.clear();
  }

  /**
   * Publish a staged entry: write fingerprint and manifest, then rename into place.
   * If an entry already sits at the key (a forced rerun), it is replaced; a damaged
   * directory there is moved aside first.
   */
  async publish(staging: string, fingerprint: Fingerprint, manifest: Manifest): Promise<Entry> {
    await rm(join(staging, "work"), { recursive: true, force: true });
    await rm(join(staging, STAGING_OWNER), { force: true });
    await writeFile(join(staging, "fingerprint.json"), canonicalJson(fingerprint, 2) + "\n");
    await writeFile(join(staging, "manifest.json"), canonicalJson(manifest, 2) + "\n");
    const target = this.entryDir(manifest.step.id, manifest.key);
    await mkdir(join(this.root, "entries", manifest.step.id), { recursive: true });
    const existing = await this.inspect(manifest.step.id, manifest.key);
    if (existing && "entry" in existing) await this.discard(existing.entry);
    else if (existing) await this.quarantine(manifest.step.id, manifest.key, `${existing.damaged.file}: ${existing.damaged.problem}`);
    await rename(staging, target);
    this.staging.delete(staging);
    return { stepId: manifest.step.id, key: manifest.key, dir: target, manifest };
  }

  async lease(key: string, options?: LeaseOptions): Promise<Lease> {
    await mkdir(join(this.root, "leases"), { recursive: true });
    return acquireLease(join(this.root, "leases", `${key}.lease`), options);
  }

  // ---- runs and pins ------------------------------------------------------------------

  async recordRun(record: RunRecord): Promise<void> {
    const name = `${record.time.replace(/[:.]/g, "-")}-${process.pid}.json`;
    await writeStoreJson(join(this.root, "runs", name), record);
  }

  private async jsonFiles(dir: string): Promise<string[]> {
    if (!existsSync(dir)) return [];
    return (await readdir(dir)).filter((n) => n.endsWith(".json")).sort(byName);
  }

  /**
   * Run records with their files, oldest first; with `newest`, only the last that many. An
   * unreadable record is skipped, or with `strict` (gc: it must not forget what a record
   * keeps) an error naming it. With `wanted`, a record whose text it refuses is skipped unparsed.
   */
  async runRecords(newest?: number, options: { strict?: boolean; wanted?: (text: string) => boolean } = {}): Promise<{ file: string; record: RunRecord }[]> {
    const dir = join(this.root, "runs");
    const names = await this.jsonFiles(dir);
    const out: { file: string; record: RunRecord }[] = [];
    for (const name of newest === undefined ? names : names.slice(-newest)) {
      const file = join(dir, name);
      try {
        const record = await readStoreJson<RunRecord>(file, keysShape("keys"), options.wanted);
        if (record) out.push({ file, record });
      } catch (e) {
        if (options.strict) throw e;
      }
    }
    return out;
  }

  /** Run records, oldest first; with `newest`, only the last that many (unreadable ones skipped). */
  async runs(newest?: number): Promise<RunRecord[]> {
    return (await this.runRecords(newest)).map((r) => r.record);
  }

  /** Step name -> seconds of its latest execution among the newest `lookBack` run records. */
  async measuredSeconds(lookBack = 10): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    // A record without "seconds" (a run that executed nothing: every no-op rerun) adds nothing: not parsed (1,000 steps: ~200 kB).
    const records = await this.runRecords(lookBack, { wanted: (text) => text.includes('"seconds"') });
    for (const { record: r } of records.reverse()) {
      for (const [name, s] of Object.entries(r.steps ?? {})) {
        if (!out.has(name) && typeof s.seconds === "number" && Number.isFinite(s.seconds) && s.seconds >= 0) out.set(name, s.seconds);
      }
    }
    return out;
  }

  /** Run record file names, oldest first. */
  async runRecordNames(): Promise<string[]> {
    return this.jsonFiles(join(this.root, "runs"));
  }

  async setPin(pin: Pin): Promise<void> {
    await writeStoreJson(join(this.root, "pins", `${encodeURIComponent(pin.name)}.json`), pin);
  }
  /** Pins; an unreadable pin file is an error naming it (gc must never forget a pin). */
  async pins(): Promise<Pin[]> {
    const dir = join(this.root, "pins");
    const out: Pin[] = [];
    for (const name of await this.jsonFiles(dir)) {
      const p = await readStoreJson<Pin>(join(dir, name), keysShape("keys"));
      if (p) out.push(p);
    }
    return out;
  }

  /** Every entry directory: complete ones and damaged ones, each sorted by step id then key. */
  async scan(): Promise<{ entries: Entry[]; damaged: DamagedEntry[] }> {
    const root = join(this.root, "entries");
    const entries: Entry[] = [];
    const damaged: DamagedEntry[] = [];
    if (!existsSync(root)) return { entries, damaged };
    for (const stepId of (await readdir(root)).sort(byName)) {
      const keys = await readdir(join(root, stepId)).catch(() => [] as string[]);
      for (const key of keys.sort(byName)) {
        const r = await this.inspect(stepId, key);
        if (r && "entry" in r) entries.push(r.entry);
        else if (r) damaged.push(r.damaged);
      }
    }
    return { entries, damaged };
  }

  /** Every complete entry, sorted by step id then key. */
  async entries(): Promise<Entry[]> {
    return (await this.scan()).entries;
  }

  /** Entries whose key starts with `prefix` (for `show`). */
  async findByKeyPrefix(prefix: string): Promise<Entry[]> {
    return (await this.entries()).filter((e) => e.key.startsWith(prefix));
  }

  /**
   * Persistent scratch (`<root>/scratch/<step-id>/<dir>`): abandoned partial downloads and the
   * like. Kept by gc unless asked, since a partial may be resumed; never removed while any
   * run is active on this store (it may be writing there).
   */
  async scratch(): Promise<{ dir: string; bytes: number }[]> {
    const root = join(this.root, "scratch");
    const out: { dir: string; bytes: number }[] = [];
    for (const id of existsSync(root) ? (await readdir(root)).sort(byName) : []) {
      for (const name of (await readdir(join(root, id)).catch(() => [] as string[])).sort(byName)) {
        const dir = join(root, id, name);
        out.push({ dir, bytes: await dirSize(dir) });
      }
    }
    return out;
  }

  /** Runs active on this store right now: holders of live leases and runs whose in-progress record is live. */
  async activeRuns(): Promise<LeaseHolder[]> {
    const dir = join(this.root, "leases");
    const names = existsSync(dir) ? (await readdir(dir)).filter((n) => n.endsWith(".lease")) : [];
    const holders = await liveLeaseHolders(names.map((n) => join(dir, n)));
    for (const r of await readLiveRuns(this.root)) {
      if (r.state !== "running") continue;
      const h = r.header;
      if (h && !holders.some((x) => x.pid === h.pid && x.host === h.host)) holders.push({ pid: h.pid, host: h.host, since: h.time });
    }
    return holders;
  }
}

export async function dirSize(path: string): Promise<number> {
  let total = 0;
  let s;
  try {
    s = await stat(path);
  } catch {
    return 0;
  }
  if (!s.isDirectory()) return s.size;
  for (const name of await readdir(path).catch(() => [] as string[])) total += await dirSize(join(path, name));
  return total;
}

/**
 * The content-addressed artifact store.
 *
 *   <root>/entries/<step-id>/<key>/   outputs/, fingerprint.json, manifest.json, log.txt
 *   <root>/staging/                   entries being built (never look complete)
 *   <root>/leases/<key>.lease         who is computing a key right now
 *   <root>/logs/<step-id>/<key>.log   live log of the latest attempt (kept after failures)
 *   <root>/pins/<name>.json           keys kept by `gc` for a pinned target
 *   <root>/runs/<time>-<pid>.json     keys each run resolved, by step name (kept by `gc`; read by `explain`)
 *   <root>/scratch/<step-id>/         persistent scratch (e.g. partial downloads)
 *
 * An entry exists only once its directory has been renamed into `entries/`, and the
 * rename happens after every output, the fingerprint and the manifest were written: a
 * crash at any point leaves only staging debris, which `gc` removes.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { canonicalJson } from "./canonical.ts";
import type { Fingerprint } from "./fingerprint.ts";
import { outputDigest } from "./digest.ts";
import { acquireLease, liveLeaseHolders, pidAlive, type Lease, type LeaseHolder, type LeaseOptions } from "./lease.ts";

export interface OutputRecord {
  readonly path: string;
  readonly kind: string;
  readonly dir: boolean;
  readonly digest: string;
  readonly size: number;
  readonly files: number;
}

export interface Manifest {
  readonly schema: 1;
  readonly key: string;
  readonly step: { readonly id: string; readonly version: number; readonly name: string };
  readonly outputs: Record<string, OutputRecord>;
  readonly timings: { readonly started: string; readonly finished: string; readonly seconds: number };
  readonly host: { readonly hostname: string; readonly platform: string; readonly arch: string; readonly cpus: number };
  readonly tools: Record<string, string>;
  readonly executor: string;
  readonly log: string;
}

export interface Entry {
  readonly stepId: string;
  readonly key: string;
  readonly dir: string;
  readonly manifest: Manifest;
}

export interface RunRecord {
  readonly time: string;
  readonly targets: readonly string[];
  /** Every key the run resolved (hit or computed): what `gc` keeps for recent runs. */
  readonly keys: readonly string[];
  /** Step name -> the key it resolved to (what `explain` compares against) and, for steps
   * this run executed, how long that took (scheduling hints for later runs). */
  readonly steps: Readonly<Record<string, { readonly stepId: string; readonly key: string; readonly seconds?: number }>>;
}

export interface Pin {
  readonly name: string;
  readonly target: string;
  readonly time: string;
  readonly keys: readonly string[];
}

export class Store {
  constructor(readonly root: string) {}

  entryDir(stepId: string, key: string): string {
    return join(this.root, "entries", stepId, key);
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

  /** The entry for a key, if complete; undefined otherwise. */
  async lookup(stepId: string, key: string): Promise<Entry | undefined> {
    const dir = this.entryDir(stepId, key);
    let text: string;
    try {
      text = await readFile(join(dir, "manifest.json"), "utf8");
    } catch {
      return undefined;
    }
    const manifest = JSON.parse(text) as Manifest;
    return { stepId, key, dir, manifest };
  }

  async fingerprint(entry: Entry): Promise<Fingerprint> {
    return JSON.parse(await readFile(join(entry.dir, "fingerprint.json"), "utf8")) as Fingerprint;
  }

  /** Re-hash every output; returns the names of outputs whose bytes no longer match the manifest. */
  async verify(entry: Entry): Promise<string[]> {
    const bad: string[] = [];
    for (const [name, rec] of Object.entries(entry.manifest.outputs)) {
      const path = join(entry.dir, "outputs", rec.path);
      try {
        const d = await outputDigest(path, rec.dir);
        if (d.digest !== rec.digest) bad.push(name);
      } catch {
        bad.push(name);
      }
    }
    return bad.sort();
  }

  /** Move an entry out of the way (tampered or being replaced) and delete it. */
  async discard(entry: Entry): Promise<void> {
    const trash = join(this.root, "trash", `${entry.key}.${randomBytes(4).toString("hex")}`);
    await mkdir(join(this.root, "trash"), { recursive: true });
    try {
      await rename(entry.dir, trash);
    } catch {
      return;
    }
    await rm(trash, { recursive: true, force: true });
  }

  async createStaging(key: string): Promise<string> {
    const dir = join(this.root, "staging", `${key}.${process.pid}.${randomBytes(4).toString("hex")}`);
    await mkdir(join(dir, "outputs"), { recursive: true });
    await mkdir(join(dir, "work"), { recursive: true });
    return dir;
  }

  /**
   * Publish a staged entry: write fingerprint and manifest, then rename into place.
   * If an entry already sits at the key (a forced rerun), it is replaced.
   */
  async publish(staging: string, fingerprint: Fingerprint, manifest: Manifest): Promise<Entry> {
    await rm(join(staging, "work"), { recursive: true, force: true });
    await writeFile(join(staging, "fingerprint.json"), canonicalJson(fingerprint, 2) + "\n");
    await writeFile(join(staging, "manifest.json"), canonicalJson(manifest, 2) + "\n");
    const target = this.entryDir(manifest.step.id, manifest.key);
    await mkdir(join(this.root, "entries", manifest.step.id), { recursive: true });
    const existing = await this.lookup(manifest.step.id, manifest.key);
    if (existing) await this.discard(existing);
    await rename(staging, target);
    return { stepId: manifest.step.id, key: manifest.key, dir: target, manifest };
  }

  async lease(key: string, options?: LeaseOptions): Promise<Lease> {
    await mkdir(join(this.root, "leases"), { recursive: true });
    return acquireLease(join(this.root, "leases", `${key}.lease`), options);
  }

  // ---- refs, pins, runs -------------------------------------------------------------

  private async writeJson(path: string, value: unknown): Promise<void> {
    const tmp = `${path}.${process.pid}.${randomBytes(3).toString("hex")}.tmp`;
    await mkdir(join(path, ".."), { recursive: true });
    await writeFile(tmp, canonicalJson(value, 2) + "\n");
    await rename(tmp, path);
  }
  private async readJson<T>(path: string): Promise<T | undefined> {
    try {
      return JSON.parse(await readFile(path, "utf8")) as T;
    } catch {
      return undefined;
    }
  }

  async recordRun(record: RunRecord): Promise<void> {
    const name = `${record.time.replace(/[:.]/g, "-")}-${process.pid}.json`;
    await this.writeJson(join(this.root, "runs", name), record);
  }
  /** Run records, oldest first; with `newest`, only the last that many. */
  async runs(newest?: number): Promise<RunRecord[]> {
    const dir = join(this.root, "runs");
    if (!existsSync(dir)) return [];
    const out: RunRecord[] = [];
    const names = (await readdir(dir)).filter((n) => n.endsWith(".json")).sort();
    for (const name of newest === undefined ? names : names.slice(-newest)) {
      const r = await this.readJson<RunRecord>(join(dir, name));
      if (r) out.push(r);
    }
    return out;
  }

  /** Step name -> seconds of its latest execution among the newest `lookBack` run records. */
  async measuredSeconds(lookBack = 10): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const r of (await this.runs(lookBack)).reverse()) {
      for (const [name, s] of Object.entries(r.steps ?? {})) {
        if (!out.has(name) && typeof s.seconds === "number" && Number.isFinite(s.seconds) && s.seconds >= 0) out.set(name, s.seconds);
      }
    }
    return out;
  }

  /** Delete all but the newest `keep` run records (gc calls this so the record list does not grow forever). */
  async pruneRuns(keep: number): Promise<number> {
    const dir = join(this.root, "runs");
    if (!existsSync(dir)) return 0;
    const names = (await readdir(dir)).filter((n) => n.endsWith(".json")).sort();
    const old = names.slice(0, Math.max(0, names.length - keep));
    for (const n of old) await rm(join(dir, n), { force: true });
    return old.length;
  }

  async setPin(pin: Pin): Promise<void> {
    await this.writeJson(join(this.root, "pins", `${encodeURIComponent(pin.name)}.json`), pin);
  }
  async pins(): Promise<Pin[]> {
    const dir = join(this.root, "pins");
    if (!existsSync(dir)) return [];
    const out: Pin[] = [];
    for (const name of (await readdir(dir)).filter((n) => n.endsWith(".json")).sort()) {
      const p = await this.readJson<Pin>(join(dir, name));
      if (p) out.push(p);
    }
    return out;
  }

  /** Every complete entry, sorted by step id then key. */
  async entries(): Promise<Entry[]> {
    const root = join(this.root, "entries");
    if (!existsSync(root)) return [];
    const out: Entry[] = [];
    for (const stepId of (await readdir(root)).sort()) {
      for (const key of (await readdir(join(root, stepId))).sort()) {
        const e = await this.lookup(stepId, key);
        if (e) out.push(e);
      }
    }
    return out;
  }

  /** Entries whose key starts with `prefix` (for `show`). */
  async findByKeyPrefix(prefix: string): Promise<Entry[]> {
    return (await this.entries()).filter((e) => e.key.startsWith(prefix));
  }

  /**
   * Persistent scratch (`<root>/scratch/<step-id>/<dir>`): abandoned partial downloads and the
   * like. Kept by gc unless asked (`scratch: true`), since a partial may be resumed; never
   * removed while any run holds a live lease on this store (it may be writing there).
   */
  async scratch(): Promise<{ dir: string; bytes: number }[]> {
    const root = join(this.root, "scratch");
    const out: { dir: string; bytes: number }[] = [];
    for (const id of existsSync(root) ? (await readdir(root)).sort() : []) {
      for (const name of (await readdir(join(root, id)).catch(() => [] as string[])).sort()) {
        const dir = join(root, id, name);
        out.push({ dir, bytes: await dirSize(dir) });
      }
    }
    return out;
  }

  /** Holders of live leases: runs computing on this store right now. */
  async activeRuns(): Promise<LeaseHolder[]> {
    const dir = join(this.root, "leases");
    const names = existsSync(dir) ? (await readdir(dir)).filter((n) => n.endsWith(".lease")) : [];
    return liveLeaseHolders(names.map((n) => join(dir, n)));
  }

  /**
   * Remove entries not in `keep`, staging debris older than `stagingMaxAgeMs` and the
   * trash; with `scratch`, also the steps' scratch unless a run is active (`busy` names it).
   * Returns what was removed and the bytes freed.
   */
  async gc(
    keep: ReadonlySet<string>,
    options: { dryRun?: boolean; stagingMaxAgeMs?: number; scratch?: boolean } = {},
  ): Promise<{ removed: Entry[]; bytes: number; staging: number; scratch: { bytes: number; dirs: number; removed: boolean; busy: LeaseHolder[] } }> {
    const removed: Entry[] = [];
    let bytes = 0;
    for (const e of await this.entries()) {
      if (keep.has(e.key)) continue;
      removed.push(e);
      bytes += await dirSize(e.dir);
      if (!options.dryRun) {
        await this.discard(e);
        await rm(this.logPath(e.stepId, e.key), { force: true });
      }
    }
    let staging = 0;
    const stagingRoot = join(this.root, "staging");
    if (existsSync(stagingRoot)) {
      const maxAge = options.stagingMaxAgeMs ?? 24 * 3600 * 1000;
      for (const name of await readdir(stagingRoot)) {
        const p = join(stagingRoot, name);
        const pid = Number(name.split(".")[1]);
        const s = await stat(p);
        const holderDead = Number.isInteger(pid) && !pidAlive(pid);
        if (holderDead || Date.now() - s.mtimeMs > maxAge) {
          bytes += await dirSize(p);
          staging++;
          if (!options.dryRun) await rm(p, { recursive: true, force: true });
        }
      }
    }
    if (!options.dryRun) await rm(join(this.root, "trash"), { recursive: true, force: true });
    const dirs = await this.scratch();
    const scratch = { bytes: dirs.reduce((a, d) => a + d.bytes, 0), dirs: dirs.length, removed: false, busy: [] as LeaseHolder[] };
    if (options.scratch && dirs.length > 0) {
      scratch.busy = await this.activeRuns();
      if (scratch.busy.length === 0) {
        scratch.removed = true;
        bytes += scratch.bytes;
        if (!options.dryRun) for (const d of dirs) await rm(d.dir, { recursive: true, force: true });
      }
    }
    return { removed, bytes, staging, scratch };
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
  for (const name of await readdir(path)) total += await dirSize(join(path, name));
  return total;
}

/**
 * `doctor`: find what a crash, a full disk or a hand edit left damaged in the store, and
 * repair it. Each finding names its file, what is wrong and what `--repair` does:
 *
 *   entry-without-manifest, unreadable-manifest, unreadable-fingerprint, damaged-outputs
 *       an entry that cannot be trusted: moved aside into damaged/ (recomputed when needed)
 *   orphan-staging      a staging directory whose process is gone: removed
 *   orphan-lease        a lease whose holder is gone (or silent, on another host): removed
 *   unreadable-lease    a lease file that does not parse (its writer died): removed
 *   unreadable-pin, unreadable-run-record
 *                       a pin or run record that does not parse: moved aside into damaged/
 *                       (gc refuses to run while one exists: it could forget what it keeps)
 *   orphan-stamps       stat stamps of an entry that no longer exists: removed
 *   leftover-temp       a temporary file of an interrupted write: removed
 *
 * Outputs are checked by size and file count; with `content`, every byte is re-hashed.
 * Entries already moved aside are listed by `movedAside` (gc removes them).
 */
import { existsSync } from "node:fs";
import { mkdir, readdir, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { listOutputFiles } from "./digest.ts";
import { leaseState, readLeaseHolder } from "./lease.ts";
import { orphanStaging } from "./gc.ts";
import { StoreFileError, keysShape, readStoreJson } from "./store-files.ts";
import type { Entry, Store } from "./store.ts";

export type FindingKind =
  | "entry-without-manifest"
  | "unreadable-manifest"
  | "unreadable-fingerprint"
  | "damaged-outputs"
  | "orphan-staging"
  | "orphan-lease"
  | "unreadable-lease"
  | "unreadable-pin"
  | "unreadable-run-record"
  | "orphan-stamps"
  | "leftover-temp";

export interface Finding {
  readonly kind: FindingKind;
  /** The file or directory at fault. */
  readonly path: string;
  readonly detail: string;
  /** What `--repair` does about it. */
  readonly repair: string;
  /** For entry findings: the entry's step id and key. */
  readonly entry?: { readonly stepId: string; readonly key: string };
}

export interface DoctorOptions {
  /** Re-hash every output (default: sizes and file counts only). */
  readonly content?: boolean;
  /** Staging whose owner cannot be checked counts as orphaned after this age (default 24 h). */
  readonly stagingMaxAgeMs?: number;
}

/** A lease file younger than this may still be being written by its creator. */
const LEASE_WRITE_MS = 1000;
/** Temporary files older than this belong to a write that will never finish. */
const TEMP_AGE_MS = 3600 * 1000;

const MOVE_ENTRY = "move the entry aside into damaged/ (it is recomputed when a run needs it)";

const problemOf = (err: unknown): string => (err instanceof StoreFileError ? err.problem : (err as Error).message);

async function names(dir: string): Promise<string[]> {
  return existsSync(dir) ? (await readdir(dir)).sort() : [];
}

async function outputsProblem(store: Store, e: Entry, content: boolean): Promise<string | undefined> {
  if (content) {
    const bad = await store.content.check(e, { full: true });
    return bad.length > 0 ? `outputs ${bad.join(", ")} do not match their recorded digests` : undefined;
  }
  for (const [name, rec] of Object.entries(e.manifest.outputs).sort()) {
    const path = join(e.dir, "outputs", rec.path);
    try {
      if (!rec.dir) {
        const s = await stat(path);
        if (!s.isFile() || s.size !== rec.size) return `output '${name}' has ${s.size} bytes, the manifest records ${rec.size}`;
      } else {
        const files = await listOutputFiles(path);
        const size = files.reduce((a, f) => a + Number(f.stat.size), 0);
        if (files.length !== rec.files || size !== rec.size) return `output '${name}' has ${files.length} files and ${size} bytes, the manifest records ${rec.files} and ${rec.size}`;
      }
    } catch {
      return `output '${name}' is missing`;
    }
  }
  return undefined;
}

export async function diagnoseStore(store: Store, options: DoctorOptions = {}): Promise<Finding[]> {
  const scan = await store.scan();
  const root = store.root;
  return [
    ...(await entryFindings(store, scan, options.content ?? false)),
    ...(await orphanStaging(root, options.stagingMaxAgeMs ?? 24 * 3600 * 1000)).map((p): Finding => ({ kind: "orphan-staging", path: p, detail: "the process that was building this entry is gone", repair: "remove it" })),
    ...(await leaseFindings(join(root, "leases"))),
    ...(await recordFindings(join(root, "pins"), "unreadable-pin")),
    ...(await recordFindings(join(root, "runs"), "unreadable-run-record")),
    ...(await stampFindings(join(root, "stamps"), scan)),
  ];
}

type Scan = Awaited<ReturnType<Store["scan"]>>;

/** Entries without a readable manifest, with an unreadable fingerprint, or whose outputs differ from their manifest. */
async function entryFindings(store: Store, scan: Scan, content: boolean): Promise<Finding[]> {
  const out: Finding[] = [];
  for (const d of scan.damaged) {
    const kind = d.problem.startsWith("missing") ? "entry-without-manifest" : "unreadable-manifest";
    out.push({ kind, path: kind === "entry-without-manifest" ? d.dir : d.file, detail: d.problem, repair: MOVE_ENTRY, entry: { stepId: d.stepId, key: d.key } });
  }
  for (const e of scan.entries) {
    const fp = join(e.dir, "fingerprint.json");
    try {
      await store.fingerprint(e);
    } catch (err) {
      out.push({ kind: "unreadable-fingerprint", path: fp, detail: problemOf(err), repair: MOVE_ENTRY, entry: { stepId: e.stepId, key: e.key } });
      continue;
    }
    const problem = await outputsProblem(store, e, content);
    if (problem) out.push({ kind: "damaged-outputs", path: join(e.dir, "outputs"), detail: problem, repair: MOVE_ENTRY, entry: { stepId: e.stepId, key: e.key } });
  }
  return out;
}

/** Leases whose holder is gone, that do not parse (past the time a write takes), and leases set aside while taken over. */
async function leaseFindings(leases: string): Promise<Finding[]> {
  const out: Finding[] = [];
  for (const name of await names(leases)) {
    const p = join(leases, name);
    if (!name.endsWith(".lease")) {
      if (name.includes(".lease.stale-")) out.push({ kind: "leftover-temp", path: p, detail: "a lease set aside while being taken over", repair: "remove it" });
      continue;
    }
    const holder = await readLeaseHolder(p);
    const s = await stat(p).catch(() => undefined);
    if (!s) continue;
    if (!holder || typeof holder.pid !== "number") {
      if (Date.now() - s.mtimeMs > LEASE_WRITE_MS) out.push({ kind: "unreadable-lease", path: p, detail: "does not parse (its writer died while creating it)", repair: "remove it" });
    } else if ((await leaseState(p, holder)) === "stale") {
      out.push({ kind: "orphan-lease", path: p, detail: `its holder (pid ${holder.pid} on ${holder.host}) is gone`, repair: "remove it" });
    }
  }
  return out;
}

/** In pins/ or runs/: records that do not read, and old temp files of writes that never finished. */
async function recordFindings(dir: string, kind: "unreadable-pin" | "unreadable-run-record"): Promise<Finding[]> {
  const out: Finding[] = [];
  for (const name of await names(dir)) {
    const p = join(dir, name);
    if (name.endsWith(".tmp")) {
      const s = await stat(p).catch(() => undefined);
      if (s && Date.now() - s.mtimeMs > TEMP_AGE_MS) out.push({ kind: "leftover-temp", path: p, detail: "a write that never finished", repair: "remove it" });
      continue;
    }
    if (!name.endsWith(".json")) continue;
    try {
      await readStoreJson(p, keysShape("keys"));
    } catch (err) {
      out.push({ kind, path: p, detail: problemOf(err), repair: "move it aside into damaged/" });
    }
  }
  return out;
}

/** Stat stamps of keys that no entry (sound or damaged) has. */
async function stampFindings(stamps: string, scan: Scan): Promise<Finding[]> {
  const keys = new Set(scan.entries.map((e) => e.key).concat(scan.damaged.map((d) => d.key)));
  const out: Finding[] = [];
  for (const name of await names(stamps)) {
    const m = /^([0-9a-f]{64})\.json$/.exec(name);
    if (m && !keys.has(m[1]!)) out.push({ kind: "orphan-stamps", path: join(stamps, name), detail: "no entry with this key exists", repair: "remove it" });
  }
  return out;
}

export interface Repaired {
  readonly finding: Finding;
  /** What was done, or why nothing was. */
  readonly action: string;
  readonly ok: boolean;
}

async function moveAside(store: Store, path: string, group: string): Promise<string> {
  const dest = join(store.root, "damaged", group, `${path.split("/").pop()}.${new Date().toISOString().replace(/[:.]/g, "-")}`);
  await mkdir(join(store.root, "damaged", group), { recursive: true });
  await rename(path, dest);
  return dest;
}

/** Repair each finding (re-checking it first: the store may have moved on since the diagnosis). */
export async function repairStore(store: Store, findings: readonly Finding[]): Promise<Repaired[]> {
  const out: Repaired[] = [];
  for (const f of findings) {
    try {
      switch (f.kind) {
        case "entry-without-manifest":
        case "unreadable-manifest":
        case "unreadable-fingerprint":
        case "damaged-outputs": {
          const dest = await store.quarantine(f.entry!.stepId, f.entry!.key, `${f.path}: ${f.detail}`);
          out.push({ finding: f, ok: true, action: dest ? `moved to ${dest}` : "already gone" });
          break;
        }
        case "orphan-lease":
        case "unreadable-lease": {
          const holder = await readLeaseHolder(f.path);
          if (holder && typeof holder.pid === "number" && (await leaseState(f.path, holder)) === "live") {
            out.push({ finding: f, ok: true, action: "left alone: its holder is alive again" });
            break;
          }
          await rm(f.path, { force: true });
          out.push({ finding: f, ok: true, action: "removed" });
          break;
        }
        case "unreadable-pin":
        case "unreadable-run-record":
          out.push({ finding: f, ok: true, action: `moved to ${await moveAside(store, f.path, f.kind === "unreadable-pin" ? "pins" : "runs")}` });
          break;
        case "orphan-staging":
        case "orphan-stamps":
        case "leftover-temp":
          await rm(f.path, { recursive: true, force: true });
          out.push({ finding: f, ok: true, action: "removed" });
          break;
      }
    } catch (err) {
      out.push({ finding: f, ok: false, action: `could not repair: ${(err as Error).message}` });
    }
  }
  return out;
}

/** Entries and files already moved aside (removed by `gc`). */
export async function movedAside(store: Store): Promise<string[]> {
  const root = join(store.root, "damaged");
  const out: string[] = [];
  for (const group of await names(root)) for (const name of await names(join(root, group))) out.push(join(root, group, name));
  return out;
}

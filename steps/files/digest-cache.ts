/**
 * sha256 of a user's file, remembered by the file's identity so that a rerun on an unchanged
 * multi-gigabyte collection does not read it again (git's index does the same with stat data).
 *
 * A digest is reused only when device, inode, size, modification time and change time (both in
 * nanoseconds) all match what was recorded when it was computed; any write to the file changes
 * its ctime, which a user cannot set back. On a filesystem with whole-second timestamps a file
 * modified less than 2 s before it was hashed is not remembered (git's "racy" case: a second
 * write within the same second would keep the same times). The cache is one JSON file, rewritten atomically (temp
 * file + rename); losing it only costs a re-hash. Steps that read the file hash the bytes they read
 * again and fail on a mismatch, so a stale digest can never publish an entry built from other bytes.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, readFile, realpath, rename, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { InputError } from "../../pipeline/engine/errors.ts";

export interface FileIdentity {
  readonly path: string;
  readonly sha256: string;
  readonly size: number;
}

interface CacheRecord {
  readonly dev: string;
  readonly ino: string;
  readonly size: string;
  readonly mtimeNs: string;
  readonly ctimeNs: string;
  readonly sha256: string;
}

const FILE = "digests.json";

async function stamp(path: string): Promise<Omit<CacheRecord, "sha256">> {
  let s;
  try {
    s = await stat(path, { bigint: true });
  } catch (e) {
    throw new InputError(`cannot read: ${(e as Error).message}`, { file: path, fix: "check the path" });
  }
  if (!s.isFile()) throw new InputError("is not a regular file", { file: path, fix: "pass a file (or, where a collection is expected, a directory of files)" });
  return { dev: String(s.dev), ino: String(s.ino), size: String(s.size), mtimeNs: String(s.mtimeNs), ctimeNs: String(s.ctimeNs) };
}

/** Whole-second timestamps and a modification in the last 2 s: the times may not change on the next write. */
function racy(s: Omit<CacheRecord, "sha256">): boolean {
  const mtime = BigInt(s.mtimeNs);
  return mtime % 1_000_000_000n === 0n && Date.now() - Number(mtime / 1_000_000n) < 2000;
}

async function readCache(dir: string): Promise<Record<string, CacheRecord>> {
  try {
    return JSON.parse(await readFile(join(dir, FILE), "utf8")) as Record<string, CacheRecord>;
  } catch {
    return {};
  }
}

async function writeCache(dir: string, cache: Record<string, CacheRecord>): Promise<void> {
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `${FILE}.${process.pid}.tmp`);
  const sorted = Object.fromEntries(Object.entries(cache).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  await writeFile(tmp, JSON.stringify(sorted, null, 1) + "\n");
  await rename(tmp, join(dir, FILE));
}

/** sha256 of a whole file, streaming; `onBytes` sees the bytes hashed so far. */
export async function hashFile(path: string, onBytes?: (done: number) => void): Promise<string> {
  const h = createHash("sha256");
  let done = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
    h.update(chunk as Buffer);
    done += (chunk as Buffer).length;
    onBytes?.(done);
  }
  return h.digest("hex");
}

/**
 * Digests of `paths`, from the cache in `cacheDir` where the stat data still match, else computed
 * (and recorded). `onHash` is told which file is being hashed (for a progress line).
 */
export async function digestFiles(paths: readonly string[], cacheDir: string, onHash?: (path: string, done: number, total: number) => void): Promise<FileIdentity[]> {
  const cache = await readCache(cacheDir);
  let changed = false;
  const out: FileIdentity[] = [];
  for (const p of paths) {
    const real = await realpath(p).catch(() => p);
    const s = await stamp(real);
    const hit = cache[real];
    if (hit !== undefined && hit.dev === s.dev && hit.ino === s.ino && hit.size === s.size && hit.mtimeNs === s.mtimeNs && hit.ctimeNs === s.ctimeNs) {
      out.push({ path: p, sha256: hit.sha256, size: Number(s.size) });
      continue;
    }
    const sha256 = await hashFile(real, (done) => onHash?.(p, done, Number(s.size)));
    const after = await stamp(real);
    if (after.mtimeNs !== s.mtimeNs || after.size !== s.size) throw new InputError("changed while it was being hashed", { file: p, fix: "wait until the file is completely written, then rerun" });
    if (!racy(s)) {
      cache[real] = { ...s, sha256 };
      changed = true;
    }
    out.push({ path: p, sha256, size: Number(s.size) });
  }
  if (changed) await writeCache(cacheDir, cache);
  return out;
}

/** Record a digest computed elsewhere (e.g. while copying a file out of the store). */
export async function rememberDigest(path: string, sha256: string, cacheDir: string): Promise<void> {
  const real = await realpath(path);
  const s = await stamp(real);
  if (racy(s)) return;
  const cache = await readCache(cacheDir);
  cache[real] = { ...s, sha256 };
  await writeCache(cacheDir, cache);
}

/** The cache directory of a store (in its persistent scratch, kept by gc, removed by gc --scratch). */
export function digestCacheDir(scratchOf: (stepId: string) => string): string {
  return dirname(join(scratchOf("user-file-digests"), FILE));
}

/**
 * Content digests of step outputs: a file hashes its bytes; a directory hashes the sorted
 * list of (relative path, file digest). Every file hashed is counted (`hashStats`), so the
 * cost of content checks can be measured, and comes back with its stat stamp (stamps.ts).
 */
import { createHash } from "node:crypto";
import { createReadStream, type BigIntStats } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { canonicalHash } from "./canonical.ts";

const counters = { files: 0, bytes: 0 };
/** Files and bytes hashed by this process so far. */
export function hashStats(): { readonly files: number; readonly bytes: number } {
  return { ...counters };
}

export async function fileDigest(path: string): Promise<string> {
  const h = createHash("sha256");
  let bytes = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
    h.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  counters.files++;
  counters.bytes += bytes;
  return h.digest("hex");
}

export interface OutputDigest {
  readonly digest: string;
  readonly size: number;
  readonly files: number;
}

/** What identifies a file's current bytes without reading them (changes whenever they are written). */
export interface StatStamp {
  readonly size: number;
  readonly mtimeNs: string;
  readonly ctimeNs: string;
  readonly ino: string;
  readonly dev: string;
}

export function statStamp(s: BigIntStats): StatStamp {
  return { size: Number(s.size), mtimeNs: String(s.mtimeNs), ctimeNs: String(s.ctimeNs), ino: String(s.ino), dev: String(s.dev) };
}

export function sameStamp(a: StatStamp, b: StatStamp): boolean {
  return a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs && a.ino === b.ino && a.dev === b.dev;
}

/** Files under `dir` (following symlinks, as reading them does), sorted by relative path ('/'-separated). */
export async function listOutputFiles(dir: string, prefix = "", out: { rel: string; stat: BigIntStats }[] = []): Promise<{ rel: string; stat: BigIntStats }[]> {
  for (const name of (await readdir(dir)).sort()) {
    const p = join(dir, name);
    const s = await stat(p, { bigint: true });
    const rel = prefix ? `${prefix}/${name}` : name;
    if (s.isDirectory()) await listOutputFiles(p, rel, out);
    else if (s.isFile()) out.push({ rel, stat: s });
  }
  return out;
}

/** The digest of a directory output from its files' digests. */
export function dirDigest(files: Readonly<Record<string, string>>): string {
  return canonicalHash({ dir: files });
}

export interface StampedDigest extends OutputDigest {
  /** Per file ("" for a file output, else its relative path): stat stamp and digest. */
  readonly stamps: Record<string, StatStamp & { readonly digest: string }>;
}

/** Hash an output and record each file's stat stamp (taken after hashing). */
export async function stampedOutputDigest(path: string, isDir: boolean): Promise<StampedDigest> {
  if (!isDir) {
    const digest = await fileDigest(path);
    const s = statStamp(await stat(path, { bigint: true }));
    return { digest, size: s.size, files: 1, stamps: { "": { ...s, digest } } };
  }
  const files = await listOutputFiles(path);
  const digests: Record<string, string> = {};
  const stamps: Record<string, StatStamp & { digest: string }> = {};
  let size = 0;
  for (const f of files) {
    const p = join(path, ...f.rel.split("/"));
    const digest = await fileDigest(p);
    const s = statStamp(await stat(p, { bigint: true }));
    digests[f.rel] = digest;
    stamps[f.rel] = { ...s, digest };
    size += s.size;
  }
  return { digest: dirDigest(digests), size, files: files.length, stamps };
}

export async function outputDigest(path: string, isDir: boolean): Promise<OutputDigest> {
  const { digest, size, files } = await stampedOutputDigest(path, isDir);
  return { digest, size, files };
}

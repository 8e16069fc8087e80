/**
 * `--data-dir <dir>`: files a user placed by hand (e.g. downloaded in a browser behind a
 * login, or copied from another machine). Looked up by the lock entry's `file` name in the
 * directory itself and one level of subfolders, and accepted only when its digest matches.
 *
 * For a lock entry that is not pinned yet (sha256 null), the content of the placed file
 * still decides the fetch step's key: `pinFromDataDir` returns the entry with the file's
 * sha256 and size filled in (and a note saying so), which the engine uses for the key and
 * hands to the step, so a replaced file is fetched again and the step accepts exactly the
 * bytes the key was computed from. Digests are cached by the file's stat stamp in
 * `<store>/stamps/data-dir.json`, so an unchanged multi-gigabyte file is hashed once.
 */
import { readdir, readFile, rename, stat, writeFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import type { LockEntry } from "../../../pipeline/engine/datasets-lock.ts";
import { sameStamp, statStamp, type StatStamp } from "../../../pipeline/engine/digest.ts";
import { hashFile } from "./sinks.ts";

/** The `notes` of an entry whose sha256 and size were taken from a --data-dir file (it is unpinned in datasets.lock). */
export const UNPINNED_FROM_DATA_DIR = "unpinned in datasets.lock: sha256 and size are those of the file placed with --data-dir";

/** Existing candidate paths for `file`, the top level first, then subfolders in name order. */
export async function findInDataDir(dataDir: string, file: string): Promise<string[]> {
  const out: string[] = [];
  const isFile = async (p: string): Promise<boolean> => {
    try {
      return (await stat(p)).isFile();
    } catch {
      return false;
    }
  };
  const top = join(dataDir, file);
  if (await isFile(top)) out.push(top);
  let names: string[];
  try {
    names = (await readdir(dataDir, { withFileTypes: true })).filter((d) => d.isDirectory() || d.isSymbolicLink()).map((d) => d.name);
  } catch {
    return out;
  }
  names.sort();
  for (const name of names) {
    const p = join(dataDir, name, file);
    if (await isFile(p)) out.push(p);
  }
  return out;
}

type DigestCache = Record<string, StatStamp & { readonly sha256: string }>;

/**
 * `entry` with the sha256 and size of the one file named `entry.file` in `dataDir`, when the
 * entry is unpinned; undefined when the entry is pinned or there is not exactly one such
 * file (the fetch step then reports what is wrong). `cacheFile` keeps digests by stat stamp.
 */
export async function pinFromDataDir(entry: LockEntry, dataDir: string, cacheFile?: string): Promise<LockEntry | undefined> {
  if (entry.sha256 !== null) return undefined;
  const found = await findInDataDir(dataDir, entry.file);
  if (found.length !== 1) return undefined;
  const path = found[0]!;
  let cache: DigestCache = {};
  if (cacheFile !== undefined) {
    try {
      cache = JSON.parse(await readFile(cacheFile, "utf8")) as DigestCache;
    } catch {
      cache = {};
    }
  }
  const st = statStamp(await stat(path, { bigint: true }));
  let sha256 = cache[path] && sameStamp(cache[path], st) ? cache[path].sha256 : undefined;
  if (sha256 === undefined) {
    sha256 = (await hashFile(path)).sha256;
    const after = statStamp(await stat(path, { bigint: true }));
    // Cached only if unchanged while hashing and not changed in the last 100 ms (a write in the
    // same clock tick as the stamp would not show in it).
    const changedMs = Number((BigInt(st.mtimeNs) > BigInt(st.ctimeNs) ? BigInt(st.mtimeNs) : BigInt(st.ctimeNs)) / 1_000_000n);
    if (cacheFile !== undefined && sameStamp(after, st) && Date.now() - changedMs >= 100) {
      cache[path] = { ...st, sha256 };
      const tmp = `${cacheFile}.${process.pid}.${randomBytes(3).toString("hex")}.tmp`;
      try {
        await mkdir(join(cacheFile, ".."), { recursive: true });
        await writeFile(tmp, JSON.stringify(cache));
        await rename(tmp, cacheFile);
      } catch {
        /* a cache: a read-only store just hashes again next time */
      }
    }
  }
  return { ...entry, sha256, size: st.size, notes: UNPINNED_FROM_DATA_DIR };
}

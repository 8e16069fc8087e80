/**
 * Fetch one datasets.lock entry into `destDir`, verified by digest, then unpack it.
 *
 * Sources, in order:
 *  1. `<destDir>/<file>` already there (an earlier run): re-verified, reused.
 *  2. `dataDir` (the user's `--data-dir`): `<dataDir>/<file>` or `<dataDir>/<sub>/<file>`;
 *     verified, then copied (a reflink where the filesystem can share blocks copy-on-write,
 *     e.g. btrfs, XFS): never hard-linked, so the store's copy and the user's file can
 *     never change each other. The user's file is never written to, moved or chmod-ed.
 *     Errors about a file taken from there (a truncated archive) name the user's file.
 *  3. The entry's URLs, resumable through `<destDir>/.partial/<file>`; the partial file is
 *     renamed to `<destDir>/<file>` only after its size and sha256 match the lock.
 *
 * An entry without a pinned sha256 is refused unless `allowUnpinned` is set; then the
 * computed digest is returned with a note telling the caller to run `lock --update <name>`.
 */
import { constants } from "node:fs";
import { copyFile, mkdir, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { InputError } from "../../../pipeline/engine/errors.ts";
import type { LockEntry } from "../../../pipeline/engine/datasets-lock.ts";
import { findInDataDir, UNPINNED_FROM_DATA_DIR } from "./data-dir.ts";
import { FileSink, hashFile, type Digest } from "./sinks.ts";
import { transfer, type TransferOptions, type UrlFailure } from "./transfer.ts";
import { unpackFile } from "./unpack.ts";

export interface FetchEntryOptions extends Omit<TransferOptions, "expectedSize" | "onProgress"> {
  /** Where the verified file goes (`<destDir>/<file>`), plus `.partial/` for downloads in progress. */
  destDir: string;
  /** A directory of files placed by hand, looked up by file name (and one level of subfolders). */
  dataDir?: string;
  /** Never touch the network (fail with instructions when the file is not already available). */
  offline?: boolean;
  /** Accept an entry whose sha256 is null (the computed digest is reported). Default false. */
  allowUnpinned?: boolean;
  /** Where archives are unpacked. Default `<destDir>/unpacked`. */
  unpackDir?: string;
  /** Keep the archive only; do not unpack. */
  skipUnpack?: boolean;
  /** Lock file path used in messages. Default `datasets.lock`. */
  lockFile?: string;
  onProgress?: (done: number, total?: number) => void;
}

export type FetchSource = "existing" | "data-dir" | "download";

export interface FetchEntryResult {
  readonly name: string;
  /** The verified file, `<destDir>/<file>`. */
  readonly path: string;
  readonly sha256: string;
  readonly size: number;
  readonly source: FetchSource;
  /** URL it came from (download) or the user's file (data-dir). */
  readonly from?: string;
  /** Set when the entry was unpacked (kind other than `none` and not skipped). */
  readonly unpackedDir?: string;
  /** True when the lock had no sha256 for this entry: the digest above is unverified. */
  readonly unpinned: boolean;
  /** Things the caller should tell the user (e.g. run `lock --update <name>`). */
  readonly notes: readonly string[];
}

function describeExpected(entry: LockEntry): string {
  const digest = entry.sha256 ?? "(not pinned)";
  const size = entry.size !== null ? `, ${entry.size} bytes` : "";
  return `sha256 ${digest}${size}`;
}

function handPlacementFix(name: string, entry: LockEntry): string {
  const verify = entry.sha256 ? `verified against sha256 ${entry.sha256}` : `not verifiable until 'lock --update ${name}' pins its sha256, so also pass --allow-unpinned`;
  return `download ${entry.urls[0]} on a machine with internet and place it as '${entry.file}' in a directory passed with --data-dir <dir> (looked up by file name there and one level of subfolders; ${verify})`;
}

function digestMatches(entry: LockEntry, d: Digest): boolean {
  return (entry.size === null || entry.size === d.size) && (entry.sha256 === null || entry.sha256 === d.sha256);
}

function mismatchText(entry: LockEntry, d: Digest): string {
  const parts: string[] = [];
  if (entry.sha256 !== null && entry.sha256 !== d.sha256) parts.push(`sha256 expected ${entry.sha256}, got ${d.sha256}`);
  if (entry.size !== null && entry.size !== d.size) parts.push(`size expected ${entry.size} bytes, got ${d.size}`);
  return parts.join("; ");
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Copy the user's file into the store: a reflink where the filesystem supports one, else a plain copy. */
async function placeCopy(src: string, dst: string): Promise<void> {
  await rm(dst, { force: true });
  const tmp = `${dst}.copying`;
  await copyFile(src, tmp, constants.COPYFILE_FICLONE);
  await rename(tmp, dst);
}

/** An error about the store's copy of a user's file, restated about the user's file. */
function aboutUsersFile(err: unknown, copy: string, original: string): unknown {
  if (!(err instanceof InputError) || err.file !== copy) return err;
  let message = err.message;
  if (message.startsWith(`${copy}: `)) message = message.slice(copy.length + 2);
  if (err.fix !== undefined && message.endsWith(` Fix: ${err.fix}`)) message = message.slice(0, -(` Fix: ${err.fix}`.length));
  message = message.split(copy).join(original);
  const fix = err.fix === undefined ? undefined : err.fix.replace(/delete it and fetch again/, `replace it in --data-dir with a complete copy`);
  return new InputError(`${message} (the file placed with --data-dir)`, { file: original, ...(err.line !== undefined ? { line: err.line } : {}), ...(fix !== undefined ? { fix } : {}) });
}

function offlineError(name: string, entry: LockEntry, lockFile: string, failures: readonly UrlFailure[], looked?: string): InputError {
  const why = failures.map((f) => `${f.url}: ${f.detail}`).join("; ");
  const lookedText = looked ? ` It is not in ${looked} either.` : "";
  return new InputError(`cannot fetch '${name}' (${entry.file}): no URL is reachable (offline?): ${why}. Expected ${describeExpected(entry)}.${lookedText}`, {
    file: lockFile,
    field: `entries.${name}.urls`,
    fix: handPlacementFix(name, entry),
  });
}

async function checkProvides(name: string, entry: LockEntry, root: string, lockFile: string): Promise<void> {
  const missing: string[] = [];
  for (const p of entry.provides ?? []) if (!(await exists(join(root, p)))) missing.push(p);
  if (missing.length > 0) {
    throw new InputError(`'${name}' unpacked into ${root} but lacks ${missing.map((m) => `'${m}'`).join(", ")}`, {
      file: lockFile,
      field: `entries.${name}.provides`,
      fix: "check the archive's layout and correct 'provides' (or 'unpack') in datasets.lock",
    });
  }
}

/** One fetch: the entry, its options, the lock file named in messages, the verified file's path, and whether the lock pins it. */
interface Fetch {
  readonly name: string;
  readonly entry: LockEntry;
  readonly options: FetchEntryOptions;
  readonly lockFile: string;
  readonly finalPath: string;
  readonly unpinned: boolean;
}

type Got = { digest: Digest; source: FetchSource; from?: string };

function refuseUnpinned(name: string, lockFile: string): InputError {
  return new InputError(`entry '${name}' has no pinned sha256, so its content cannot be verified`, {
    file: lockFile,
    field: `entries.${name}.sha256`,
    fix: `run 'lock --update ${name}' on a machine with internet to pin it (then commit datasets.lock), or pass --allow-unpinned to fetch it once unverified and see its digest`,
  });
}

/**
 * 1. Already fetched by an earlier run; for an unpinned entry only if the user placed no file by
 * hand (a file placed now replaces what an earlier run fetched, e.g. a truncated copy). A copy that
 * no longer matches is deleted.
 */
async function fromEarlierRun(f: Fetch): Promise<Got | undefined> {
  const { entry, options, finalPath } = f;
  const handPlaced = f.unpinned && options.dataDir !== undefined && (await findInDataDir(options.dataDir, entry.file)).length > 0;
  if (handPlaced || !(await exists(finalPath))) return undefined;
  const d = await hashFile(finalPath, options.onProgress);
  if (digestMatches(entry, d)) return { digest: d, source: "existing" };
  await rm(finalPath, { force: true });
  return undefined;
}

/** 2. Placed by hand in `dataDir`: the first candidate that matches the lock, copied into the store; candidates that do not match are an error. */
async function fromDataDir(f: Fetch, dataDir: string): Promise<Got | undefined> {
  const { name, entry, options } = f;
  const candidates = await findInDataDir(dataDir, entry.file);
  const rejected: string[] = [];
  for (const candidate of candidates) {
    const size = (await stat(candidate)).size;
    if (entry.size !== null && size !== entry.size) {
      rejected.push(`${candidate}: size ${size} bytes, expected ${entry.size}`);
      continue;
    }
    const d = await hashFile(candidate, options.onProgress);
    if (digestMatches(entry, d)) {
      if (f.unpinned && candidates.length > 1) {
        throw new InputError(`'${name}': ${candidates.length} files named '${entry.file}' under ${dataDir} and no pinned sha256 to choose between them: ${candidates.join(", ")}`, {
          file: f.lockFile,
          field: `entries.${name}.sha256`,
          fix: `keep only one of them, or pin the digest with 'lock --update ${name}'`,
        });
      }
      await placeCopy(candidate, f.finalPath);
      return { digest: d, source: "data-dir", from: candidate };
    }
    rejected.push(`${candidate}: sha256 ${d.sha256}, expected ${entry.sha256}`);
  }
  if (rejected.length === 0) return undefined;
  throw new InputError(`'${name}': the file in --data-dir does not match datasets.lock (${rejected.join("; ")})`, {
    file: rejected.length === 1 ? (candidates[0] ?? dataDir) : dataDir,
    fix: `replace it with the original ${entry.file} from ${entry.urls[0]} (a re-compressed or edited copy has a different digest)`,
  });
}

/** 3. Downloaded from the entry's URLs through `.partial/` (resumable), renamed into place once it matches the lock. */
async function download(f: Fetch, looked: string | undefined): Promise<Got> {
  const { name, entry, options, lockFile } = f;
  if (options.offline) throw offlineError(name, entry, lockFile, [{ url: entry.urls[0] ?? "(no URL)", kind: "unreachable", detail: "offline mode" }], looked);
  const partialPath = join(options.destDir, ".partial", entry.file);
  const sink = await FileSink.open(partialPath);
  const { onProgress, ...rest } = options;
  const transferOptions: TransferOptions = { ...rest, expectedSize: entry.size };
  if (onProgress) transferOptions.onProgress = onProgress;
  const result = await transfer(entry.urls, sink, transferOptions);
  if (!result.ok) {
    await sink.abandon();
    if (result.failures.every((x) => x.kind === "unreachable")) throw offlineError(name, entry, lockFile, result.failures, looked);
    throw new InputError(`cannot download '${name}' (${entry.file}): ${result.failures.map((x) => `${x.url}: ${x.detail}`).join("; ")}. Expected ${describeExpected(entry)}.`, {
      file: lockFile,
      field: `entries.${name}.urls`,
      fix: `check the URLs (a moved file needs a new URL in datasets.lock), run again to resume, or ${handPlacementFix(name, entry)}`,
    });
  }
  const d = await sink.finish();
  if (!digestMatches(entry, d)) {
    await rm(partialPath, { force: true });
    throw new InputError(`downloaded '${name}' from ${result.url} does not match datasets.lock: ${mismatchText(entry, d)}. The download was deleted.`, {
      file: lockFile,
      field: `entries.${name}.sha256`,
      fix: `if the publisher changed the file on purpose, re-pin it with 'lock --update ${name}' and review the diff; otherwise run again (a corrupted transfer) or ${handPlacementFix(name, entry)}`,
    });
  }
  await rename(partialPath, f.finalPath);
  return { digest: d, source: "download", from: result.url };
}

/** Unpacks the verified file (unless its kind is none or unpacking is skipped) and checks what it provides; an error about a user's file names that file. */
async function unpackChecked(f: Fetch, got: Got): Promise<string | undefined> {
  const { name, entry, options, lockFile, finalPath } = f;
  try {
    if (entry.unpack !== "none" && !options.skipUnpack) {
      const unpackedDir = options.unpackDir ?? join(options.destDir, "unpacked");
      await unpackFile(finalPath, entry.unpack, unpackedDir);
      await checkProvides(name, entry, unpackedDir, lockFile);
      return unpackedDir;
    }
    if (entry.unpack === "none") await checkProvides(name, entry, options.destDir, lockFile);
    return undefined;
  } catch (err) {
    throw got.source === "data-dir" && got.from !== undefined ? aboutUsersFile(err, finalPath, got.from) : err;
  }
}

export async function fetchEntry(name: string, entry: LockEntry, options: FetchEntryOptions): Promise<FetchEntryResult> {
  const lockFile = options.lockFile ?? "datasets.lock";
  // Unpinned in datasets.lock, whether or not this run took the digest of a --data-dir file (data-dir.ts).
  const unpinned = entry.sha256 === null || entry.notes === UNPINNED_FROM_DATA_DIR;
  if (unpinned && !options.allowUnpinned) throw refuseUnpinned(name, lockFile);
  await mkdir(options.destDir, { recursive: true });
  const f: Fetch = { name, entry, options, lockFile, finalPath: join(options.destDir, entry.file), unpinned };
  let got = await fromEarlierRun(f);
  const looked = !got && options.dataDir !== undefined ? `--data-dir ${options.dataDir} (and its subfolders)` : undefined;
  if (!got && options.dataDir !== undefined) got = await fromDataDir(f, options.dataDir);
  got ??= await download(f, looked);
  const notes: string[] = [];
  if (unpinned) notes.push(`'${name}' is not pinned: got sha256 ${got.digest.sha256} (${got.digest.size} bytes) from ${got.from ?? f.finalPath}, unverified. Run 'lock --update ${name}' to pin it.`);
  const unpackedDir = await unpackChecked(f, got);
  return {
    name,
    path: f.finalPath,
    sha256: got.digest.sha256,
    size: got.digest.size,
    source: got.source,
    ...(got.from !== undefined ? { from: got.from } : {}),
    ...(unpackedDir !== undefined ? { unpackedDir } : {}),
    unpinned,
    notes,
  };
}

/**
 * `lock --update <name>`: download an entry (streaming, hashing as it goes), and return a
 * new lock with its sha256 and size filled in. The input lock is not modified. The bytes are
 * discarded unless `keepDir` is given (then they land in `<keepDir>/<file>` as a fetch would
 * leave them). Write the result with `serializeLockFile` and review the diff: a changed
 * digest means the publisher changed the file.
 */
import { mkdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { InputError } from "../../../pipeline/engine/errors.ts";
import type { LockEntry, LockFile } from "../../../pipeline/engine/datasets-lock.ts";
import { FileSink, HashSink, hashFile, type TransferSink } from "./sinks.ts";
import { checkPlausibleRelease } from "./plausibility.ts";
import { transfer, type TransferOptions } from "./transfer.ts";

export interface UpdateLockOptions extends Omit<TransferOptions, "expectedSize"> {
  /** Keep the downloaded file as `<keepDir>/<file>` (resumable through `<keepDir>/.partial/`). */
  keepDir?: string;
  lockFile?: string;
}

export interface EntryDigestChange {
  readonly name: string;
  readonly before: { readonly sha256: string | null; readonly size: number | null };
  readonly after: { readonly sha256: string; readonly size: number };
  readonly url: string;
}

/** Download and hash one entry; returns the new digest and where it came from. */
export async function measureEntry(name: string, entry: LockEntry, options: UpdateLockOptions = {}): Promise<EntryDigestChange> {
  const lockFile = options.lockFile ?? "datasets.lock";
  let sink: TransferSink;
  let partial: string | undefined;
  if (options.keepDir !== undefined) {
    partial = join(options.keepDir, ".partial", entry.file);
    sink = await FileSink.open(partial);
  } else sink = new HashSink();
  // The old size is not trusted here (the point is to re-measure), so it is not passed on.
  const result = await transfer(entry.urls, sink, { ...options, expectedSize: null });
  if (!result.ok) {
    await sink.abandon();
    throw new InputError(`cannot download '${name}' to pin it: ${result.failures.map((f) => `${f.url}: ${f.detail}`).join("; ")}`, {
      file: lockFile,
      field: `entries.${name}.urls`,
      fix: "run 'lock --update' on a machine with internet, or fix the URL in datasets.lock",
    });
  }
  const d = await sink.finish();
  if (options.keepDir !== undefined && partial !== undefined) {
    await mkdir(options.keepDir, { recursive: true });
    const final = join(options.keepDir, entry.file);
    await rm(final, { force: true });
    await rename(partial, final);
  }
  return { name, before: { sha256: entry.sha256, size: entry.size }, after: { sha256: d.sha256, size: d.size }, url: result.url };
}

/** Return a copy of `lock` whose entry `name` has the sha256 and size just measured. */
export async function updateLockEntry(lock: LockFile, name: string, options: UpdateLockOptions = {}): Promise<LockFile> {
  const entry = lock.entries[name];
  if (!entry) {
    const known = Object.keys(lock.entries).sort().join(", ");
    throw new InputError(`no entry named '${name}'`, { file: options.lockFile ?? "datasets.lock", field: "entries", fix: `use one of: ${known}` });
  }
  const change = await measureEntry(name, entry, options);
  return withDigest(lock, name, change.after);
}

/** Pure: a copy of `lock` with one entry's sha256 and size replaced. */
export function withDigest(lock: LockFile, name: string, digest: { sha256: string; size: number }): LockFile {
  const entry = lock.entries[name];
  if (!entry) throw new InputError(`no entry named '${name}'`, { field: "entries" });
  return { ...lock, entries: { ...lock.entries, [name]: { ...entry, sha256: digest.sha256, size: digest.size } } };
}

/**
 * `lock --update <name> --data-dir`: the digest of a file placed by hand, after checking that
 * it looks like the release (plausibility.ts); an implausible file is an InputError and is
 * never pinned.
 */
export async function measurePlacedFile(name: string, entry: LockEntry, path: string, lockFile = "datasets.lock"): Promise<{ sha256: string; size: number }> {
  checkPlausibleRelease(name, entry, path, lockFile);
  return hashFile(path);
}

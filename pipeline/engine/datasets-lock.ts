/**
 * datasets.lock: every external input of the pipeline (datasets and model checkpoints),
 * pinned by URL and sha256. The file is canonical JSON (sorted keys, 2-space indent,
 * trailing newline) so diffs stay readable and the digest of an entry is stable.
 *
 * A step names the entries it reads; the engine folds each entry's canonical digest
 * into the step's cache key, so changing a pinned digest invalidates exactly its readers.
 */
import { readFileSync, existsSync } from "node:fs";
import { z } from "zod";
import { canonicalJson, sha256Hex } from "./canonical.ts";
import { InputError } from "./errors.ts";

export const unpackKinds = ["none", "gz", "zip", "tar", "tar.gz", "tar.bz2", "bz2"] as const;
export type UnpackKind = (typeof unpackKinds)[number];

export const lockEntrySchema = z
  .object({
    /** What it is, one line. */
    description: z.string(),
    /** Download URLs, tried in order. */
    urls: z.array(z.string().url()).min(1),
    /** File name to store it under and to look for in `--data-dir`. */
    file: z.string().min(1),
    /** Lowercase hex sha256 of the downloaded file; null when it could not be known yet. */
    sha256: z.string().regex(/^[0-9a-f]{64}$/).nullable(),
    /** Size in bytes; null when unknown. */
    size: z.number().int().nonnegative().nullable(),
    license: z.string(),
    unpack: z.enum(unpackKinds),
    /** Paths inside the unpacked entry that steps read (informational, checked after unpack). */
    provides: z.array(z.string()).optional(),
    /** Anything a human needs to know (e.g. a login wall, a mirror). */
    notes: z.string().optional(),
  })
  .strict();
export type LockEntry = z.infer<typeof lockEntrySchema>;

export const lockFileSchema = z
  .object({
    version: z.literal(1),
    entries: z.record(z.string().regex(/^[a-z0-9][a-z0-9._-]*$/), lockEntrySchema),
  })
  .strict();
export type LockFile = z.infer<typeof lockFileSchema>;

export function parseLockFile(text: string, file = "datasets.lock"): LockFile {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new InputError(`not valid JSON (${(e as Error).message})`, { file, fix: "restore it from git or fix the syntax" });
  }
  const parsed = lockFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue ? issue.path.join(".") : "";
    throw new InputError(issue?.message ?? "invalid lock file", { file, field, fix: "see the README section 'datasets.lock'" });
  }
  return parsed.data;
}

export function readLockFile(path: string): LockFile {
  if (!existsSync(path)) return { version: 1, entries: {} };
  return parseLockFile(readFileSync(path, "utf8"), path);
}

export function serializeLockFile(lock: LockFile): string {
  return canonicalJson(lock, 2) + "\n";
}

/** Digest that enters the cache key of every step that reads this entry. */
export function lockEntryDigest(entry: LockEntry): string {
  return sha256Hex(canonicalJson(entry));
}

/**
 * `lock`: inspect and pin datasets.lock.
 *
 *   lock --check                  list unpinned (sha256 null) and ambiguous entries; exit 1 unless all are pinned
 *   lock --update <name...>       download each entry, compute sha256 and size, rewrite datasets.lock canonically
 *   lock --update <name> --data-dir <dir>   measure a file placed by hand instead of downloading it
 *
 * `lock` without flags is `lock --check`. `--lock <path>` names another lock file (default
 * `<project root>/datasets.lock`). The lock file is rewritten after each pinned entry
 * (temp file + rename), so an interrupted `--update a b c` keeps what it measured.
 * Exit codes: 0 ok, 1 check failed or a download failed, 2 bad usage (unknown entry).
 * Heavy modules are imported inside the action so other commands do not load them.
 */
import type { Command } from "commander";
import type { LockFile } from "../engine/datasets-lock.ts";
import type * as FetchModule from "../../steps/data/fetch/index.ts";

export interface LockCommandIO {
  readonly stdout: { write(chunk: string): unknown };
  readonly stderr: { write(chunk: string): unknown };
  readonly env: Readonly<Record<string, string | undefined>>;
}

interface LockFlags {
  check?: boolean;
  update?: string[];
  dataDir?: string;
  lock?: string;
}

type Fetch = typeof FetchModule;
type Lines = { readonly out: (line: string) => void; readonly err: (line: string) => void };

export function registerLockCommand(program: Command, io: LockCommandIO, setExitCode: (code: number) => void): void {
  const lines: Lines = { out: (line) => void io.stdout.write(`${line}\n`), err: (line) => void io.stderr.write(`${line}\n`) };
  program
    .command("lock")
    .description("check datasets.lock for unpinned entries, or pin entries by downloading them (--update)")
    .option("--check", "report entries whose sha256 is null (or otherwise ambiguous); exit 1 if any")
    .option("--update <names...>", "download these entries and write their sha256 and size into the lock file")
    .option("--data-dir <dir>", "with --update: measure files placed by hand here (by file name) instead of downloading")
    .option("--lock <path>", "lock file (default: <project root>/datasets.lock)")
    .action(async (flags: LockFlags) => setExitCode(await lockAction(flags, io, lines)));
}

/** The action; returns the exit code. */
async function lockAction(flags: LockFlags, io: LockCommandIO, lines: Lines): Promise<number> {
  const usage = (message: string): number => {
    lines.err(`error: ${message}`);
    return 2;
  };
  const fetchMod = await import("../../steps/data/fetch/index.ts");
  const lockPath = await lockPathOf(flags);
  const read = await readLock(lockPath);
  if (typeof read === "string") return usage(read);
  const lock = read;
  const updates = flags.update ?? [];
  if (updates.length === 0) {
    const report = fetchMod.checkLock(lock);
    io.stdout.write(fetchMod.formatLockCheck(report));
    return report.ok ? 0 : 1;
  }
  if (flags.check) return usage("--check and --update cannot be combined (run --check after the update)");
  const unknown = updates.filter((n) => lock.entries[n] === undefined);
  if (unknown.length > 0) return usage(`${lockPath}: no entr${unknown.length > 1 ? "ies" : "y"} named ${unknown.map((n) => `'${n}'`).join(", ")}; known: ${Object.keys(lock.entries).sort().join(", ")}`);
  const failed = await updateEntries(fetchMod, { lockPath, lock, names: [...new Set(updates)], flags }, lines);
  return failed > 0 ? 1 : 0;
}

/** --lock, else the project's datasets.lock. */
async function lockPathOf(flags: LockFlags): Promise<string> {
  const { resolve, join } = await import("node:path");
  if (flags.lock !== undefined) return resolve(flags.lock);
  const { findProjectRoot } = await import("../engine/sources.ts");
  return join(findProjectRoot(), "datasets.lock");
}

/** The parsed lock file, or what is wrong with it (a message). */
async function readLock(lockPath: string): Promise<LockFile | string> {
  const { readFileSync, existsSync } = await import("node:fs");
  const { parseLockFile } = await import("../engine/datasets-lock.ts");
  if (!existsSync(lockPath)) return `${lockPath}: no such lock file (pass --lock <path>)`;
  try {
    return parseLockFile(readFileSync(lockPath, "utf8"), lockPath);
  } catch (e) {
    return (e as Error).message;
  }
}

interface Update {
  readonly lockPath: string;
  readonly lock: LockFile;
  readonly names: readonly string[];
  readonly flags: LockFlags;
}

/** Measure and pin each entry in turn, rewriting the lock file after each; returns how many failed. */
async function updateEntries(fetchMod: Fetch, u: Update, lines: Lines): Promise<number> {
  const { writeFile, rename } = await import("node:fs/promises");
  const { serializeLockFile } = await import("../engine/datasets-lock.ts");
  let lock = u.lock;
  const dataDir = (await import("./paths.ts")).dataDirOf(u.flags);
  let failed = 0;
  for (const name of u.names) {
    const entry = lock.entries[name]!;
    try {
      const { after, from } = await measure(fetchMod, name, entry, u, dataDir, lines);
      lock = fetchMod.withDigest(lock, name, after);
      const tmp = `${u.lockPath}.${process.pid}.tmp`;
      await writeFile(tmp, serializeLockFile(lock));
      await rename(tmp, u.lockPath);
      lines.out(updateLine(name, entry.sha256, after, from));
    } catch (e) {
      failed++;
      lines.err(`error: ${(e as Error).message}`);
    }
  }
  return failed;
}

type LockEntry = LockFile["entries"][string];

/** An entry's digest and size: of the file placed under --data-dir when there is one, else of a download. */
async function measure(fetchMod: Fetch, name: string, entry: LockEntry, u: Update, dataDir: string | undefined, lines: Lines): Promise<{ after: { sha256: string; size: number }; from: string }> {
  const { InputError } = await import("../engine/errors.ts");
  const placed = dataDir === undefined ? [] : await fetchMod.findInDataDir(dataDir, entry.file);
  if (u.flags.dataDir !== undefined && placed.length > 1) {
    throw new InputError(`${placed.length} files named '${entry.file}' under ${u.flags.dataDir}: ${placed.join(", ")}`, { file: u.flags.dataDir, fix: "keep only the original file" });
  }
  // pinned only if it looks like the release (steps/data/fetch/plausibility.ts)
  if (placed[0] !== undefined) return { after: await fetchMod.measurePlacedFile(name, entry, placed[0], u.lockPath), from: placed[0] };
  if (u.flags.dataDir !== undefined) lines.err(`${name}: '${entry.file}' is not in ${u.flags.dataDir}; downloading`);
  const change = await fetchMod.measureEntry(name, entry, { lockFile: u.lockPath });
  return { after: change.after, from: change.url };
}

/** What pinning did to an entry: pinned, unchanged, or CHANGED (review before committing). */
function updateLine(name: string, before: string | null, after: { sha256: string; size: number }, from: string): string {
  if (before === null) return `${name}: pinned sha256 ${after.sha256} (${after.size} bytes) from ${from}`;
  if (before === after.sha256) return `${name}: unchanged sha256 ${after.sha256} (${after.size} bytes) from ${from}`;
  return `${name}: CHANGED sha256 ${before} -> ${after.sha256} (${after.size} bytes) from ${from}; the publisher changed the file: review before committing`;
}

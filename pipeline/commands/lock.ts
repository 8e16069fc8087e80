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

export function registerLockCommand(program: Command, io: LockCommandIO, setExitCode: (code: number) => void): void {
  const out = (line: string): void => void io.stdout.write(`${line}\n`);
  const err = (line: string): void => void io.stderr.write(`${line}\n`);
  program
    .command("lock")
    .description("check datasets.lock for unpinned entries, or pin entries by downloading them (--update)")
    .option("--check", "report entries whose sha256 is null (or otherwise ambiguous); exit 1 if any")
    .option("--update <names...>", "download these entries and write their sha256 and size into the lock file")
    .option("--data-dir <dir>", "with --update: measure files placed by hand here (by file name) instead of downloading")
    .option("--lock <path>", "lock file (default: <project root>/datasets.lock)")
    .action(async (flags: LockFlags) => {
      const { resolve, join } = await import("node:path");
      const { readFileSync, existsSync } = await import("node:fs");
      const { writeFile, rename } = await import("node:fs/promises");
      const { parseLockFile, serializeLockFile } = await import("../engine/datasets-lock.ts");
      const { InputError } = await import("../engine/errors.ts");
      const fetchMod = await import("../../steps/data/fetch/index.ts");

      let lockPath: string;
      if (flags.lock !== undefined) lockPath = resolve(flags.lock);
      else {
        const { findProjectRoot } = await import("../engine/sources.ts");
        lockPath = join(findProjectRoot(), "datasets.lock");
      }
      if (!existsSync(lockPath)) {
        err(`error: ${lockPath}: no such lock file (pass --lock <path>)`);
        setExitCode(2);
        return;
      }
      let lock: LockFile;
      try {
        lock = parseLockFile(readFileSync(lockPath, "utf8"), lockPath);
      } catch (e) {
        err(`error: ${(e as Error).message}`);
        setExitCode(2);
        return;
      }

      const updates = flags.update ?? [];
      if (updates.length === 0) {
        const report = fetchMod.checkLock(lock);
        io.stdout.write(fetchMod.formatLockCheck(report));
        if (!report.ok) setExitCode(1);
        return;
      }
      if (flags.check) {
        err("error: --check and --update cannot be combined (run --check after the update)");
        setExitCode(2);
        return;
      }
      const unknown = updates.filter((n) => lock.entries[n] === undefined);
      if (unknown.length > 0) {
        err(`error: ${lockPath}: no entr${unknown.length > 1 ? "ies" : "y"} named ${unknown.map((n) => `'${n}'`).join(", ")}; known: ${Object.keys(lock.entries).sort().join(", ")}`);
        setExitCode(2);
        return;
      }

      const write = async (): Promise<void> => {
        const tmp = `${lockPath}.${process.pid}.tmp`;
        await writeFile(tmp, serializeLockFile(lock));
        await rename(tmp, lockPath);
      };
      const dataDir = (await import("./paths.ts")).dataDirOf(flags);
      let failed = 0;
      for (const name of [...new Set(updates)]) {
        const entry = lock.entries[name]!;
        try {
          let after: { sha256: string; size: number };
          let from: string;
          const placed = dataDir === undefined ? [] : await fetchMod.findInDataDir(dataDir, entry.file);
          if (flags.dataDir !== undefined && placed.length > 1) {
            throw new InputError(`${placed.length} files named '${entry.file}' under ${flags.dataDir}: ${placed.join(", ")}`, { file: flags.dataDir, fix: "keep only the original file" });
          }
          if (placed[0] !== undefined) {
            // pinned only if it looks like the release (steps/data/fetch/plausibility.ts)
            after = await fetchMod.measurePlacedFile(name, entry, placed[0], lockPath);
            from = placed[0];
          } else {
            if (flags.dataDir !== undefined) err(`${name}: '${entry.file}' is not in ${flags.dataDir}; downloading`);
            const change = await fetchMod.measureEntry(name, entry, { lockFile: lockPath });
            after = change.after;
            from = change.url;
          }
          const before = entry.sha256;
          lock = fetchMod.withDigest(lock, name, after);
          await write();
          if (before === null) out(`${name}: pinned sha256 ${after.sha256} (${after.size} bytes) from ${from}`);
          else if (before === after.sha256) out(`${name}: unchanged sha256 ${after.sha256} (${after.size} bytes) from ${from}`);
          else out(`${name}: CHANGED sha256 ${before} -> ${after.sha256} (${after.size} bytes) from ${from}; the publisher changed the file: review before committing`);
        } catch (e) {
          failed++;
          err(`error: ${e instanceof InputError ? e.message : (e as Error).message}`);
        }
      }
      if (failed > 0) setExitCode(1);
    });
}

/**
 * Paths a user names on the command line for a command to write to (`--output`, `--out`,
 * `--per-query <file>`, `--export-dir`, `--index`) or to read a directory from (`--data-dir`),
 * checked before any work: a path that cannot serve (a directory where a file is written, a file
 * where a directory is, a file above the path, a directory that does not exist) is an InputError
 * naming the option, the path and the fix, never a bare EISDIR / EEXIST / ENOTDIR printed after
 * the computation, and never a silently ignored option. Input files: `checkInputFile` in
 * steps/lib/text.ts (kept there, beside the readers, so this CLI-only module re-keys no step).
 */
import { statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { InputError } from "../engine/errors.ts";

type PathKind = "file" | "directory" | "missing";

function kindOf(path: string, option: string): PathKind {
  try {
    return statSync(path).isDirectory() ? "directory" : "file";
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return "missing";
    throw new InputError(`${option}: ${code === "EACCES" ? "permission denied" : (e as Error).message}.`, { file: path, fix: "check the path's permissions" });
  }
}

/** What will be created at `path` needs its nearest existing ancestor to be a directory. */
function checkCreatable(path: string, option: string): void {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    const kind = kindOf(dir, option);
    if (kind === "directory") return;
    if (kind === "file") throw new InputError(`${option}: ${dir} is a file, so nothing can be created under it.`, { file: path, fix: "name a path under a directory" });
    if (dirname(dir) === dir) return;
  }
}

/** A file the command writes (created with its parent directories, replaced if it exists). */
export function checkOutputFile(path: string, option: string): void {
  const kind = kindOf(path, option);
  if (kind === "directory") throw new InputError(`${option}: this is a directory; ${option} takes the file to write.`, { file: path, fix: "name a file (a new one, or one to replace)" });
  if (kind === "missing") checkCreatable(path, option);
}

/** A directory the command writes into (created with its parents if missing). */
export function checkOutputDir(path: string, option: string): void {
  const kind = kindOf(path, option);
  if (kind === "file") throw new InputError(`${option}: this is a file; ${option} takes a directory to write into.`, { file: path, fix: "name a directory (a new one is created)" });
  if (kind === "missing") checkCreatable(path, option);
}

/** `--data-dir`'s directory, resolved and checked to exist; undefined without the option. */
export function dataDirOf(flags: { readonly dataDir?: string }): string | undefined {
  if (flags.dataDir === undefined) return undefined;
  const dir = resolve(flags.dataDir);
  checkInputDir(dir, "--data-dir");
  return dir;
}

/** A directory the command reads from: it must exist. */
export function checkInputDir(path: string, option: string): void {
  const kind = kindOf(path, option);
  if (kind === "missing") throw new InputError(`${option}: no such directory.`, { file: path, fix: `check the path (relative paths start at ${process.cwd()})` });
  if (kind === "file") throw new InputError(`${option}: this is a file; ${option} takes a directory.`, { file: path, fix: `name the directory that holds it (${dirname(path)})` });
}

/**
 * Disk-full and permission errors while a step writes into the store or the engine
 * publishes it: turned into a run failure naming the path, the real cause and the fix,
 * instead of escaping as a bare system message (which the CLI would report as bad usage).
 *
 * Node's recursive mkdir reports ENOENT when a parent directory cannot be written (a
 * read-only mount): the nearest existing ancestor is checked so the message says why.
 */
import { accessSync, constants, existsSync } from "node:fs";
import { dirname, resolve } from "node:path";

export interface StoreIoProblem {
  readonly code: string;
  readonly path: string;
  readonly operation: string;
  readonly message: string;
  readonly fix: string;
}

const STORE_CODES = new Set(["ENOSPC", "EDQUOT", "EROFS", "EACCES", "EPERM", "EMFILE", "ENFILE", "EIO"]);

function nearestExisting(path: string): string {
  let p = resolve(path);
  while (!existsSync(p)) {
    const up = dirname(p);
    if (up === p) break;
    p = up;
  }
  return p;
}

/** Why `dir` cannot be written ("EROFS", "EACCES"), or undefined if it can. */
function unwritable(dir: string): string | undefined {
  try {
    accessSync(dir, constants.W_OK);
    return undefined;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code ?? "EACCES";
  }
}

function fixFor(code: string, path: string, storeRoot: string): string {
  switch (code) {
    case "ENOSPC":
    case "EDQUOT":
      return `free space on the filesystem holding ${storeRoot} ('gc' removes entries that no pin or recent run needs; 'gc --scratch' removes abandoned partial downloads), or pass --store <dir> (or set CSPIPE_STORE) to a larger disk`;
    case "EROFS":
      return `${path} is on a read-only filesystem: remount it read-write, or pass --store <dir> (or set CSPIPE_STORE) to a writable directory`;
    case "EACCES":
    case "EPERM":
      return `this user may not write ${path}: fix its owner or permissions, or pass --store <dir> (or set CSPIPE_STORE) to a directory you own`;
    case "EMFILE":
    case "ENFILE":
      return "too many open files: raise the limit (ulimit -n) or run with a lower --concurrency";
    default:
      return `check the disk holding ${storeRoot} (dmesg may say more), or pass --store <dir> to another disk`;
  }
}

const REASONS: Record<string, string> = {
  ENOSPC: "no space left on device",
  EDQUOT: "disk quota exceeded",
  EROFS: "read-only file system",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EMFILE: "too many open files",
  ENFILE: "too many open files in the system",
  EIO: "input/output error",
};

/**
 * The store problem behind `err`, if it is one: an errno error of the kinds above, or an
 * ENOENT from mkdir under a directory that cannot be written. `inStore` limits errors from
 * a step's own code to paths under the store (a step reading a missing input file is not a
 * store problem).
 */
export function storeIoProblem(err: unknown, storeRoot: string, inStore = false): StoreIoProblem | undefined {
  const e = err as NodeJS.ErrnoException | undefined;
  if (!e || typeof e !== "object" || typeof e.code !== "string") return undefined;
  let code = e.code;
  let path = typeof e.path === "string" ? e.path : storeRoot;
  const operation = e.syscall ?? "write";
  if (code === "ENOENT" && operation === "mkdir") {
    const parent = nearestExisting(path);
    const why = unwritable(parent);
    if (why === undefined) return undefined;
    code = why;
    path = parent;
  }
  if (!STORE_CODES.has(code)) return undefined;
  if (inStore && !resolve(path).startsWith(resolve(storeRoot))) return undefined;
  if (code === "EACCES" || code === "EPERM") {
    // Name the directory that refuses, not a file that does not exist yet.
    const parent = nearestExisting(path);
    if (unwritable(parent) !== undefined) path = parent;
  }
  return { code, path, operation, message: `${REASONS[code] ?? code} (${operation} ${path})`, fix: fixFor(code, path, storeRoot) };
}

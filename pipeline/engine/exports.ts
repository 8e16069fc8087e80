/**
 * Copying a target's exported outputs out of the store (`./report/`, `results/<target>/`).
 *
 * The copy is replaced whole: written to a temporary sibling, then renamed into place, so
 * readers never see a half-written export. A rerun whose export is already there is not copied
 * again (the default target's report is ~80 MB, 700 files: copying it was most of a no-op
 * rerun): after each copy the store records, in `<store>/exports/<digest of the path>.json`,
 * which entry output was copied and the stat stamp (size, mtime, ctime, inode, device) of every
 * file and folder of the copy. The next export of the same output to the same place is skipped
 * only when the destination holds exactly those paths with exactly those stamps; an edited,
 * touched, added, removed or replaced file (any write changes ctime), a symlink, or another
 * output makes it a copy again. The record is a cache like `stamps/`: unreadable or absent, the
 * export is copied. Like the stamps taken when an entry is published, a copy's stamps are taken
 * right after this process wrote it: only a write into the copy within the same clock tick could
 * go unseen.
 */
import { lstatSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync, type BigIntStats } from "node:fs";
import { cp, mkdir, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { randomBytes } from "node:crypto";
import { canonicalJson, sha256Hex } from "./canonical.ts";
import { statStamp, type StatStamp } from "./digest.ts";
import { EXPORT_NAME } from "./targets.ts";

/** What was copied: the entry output, by key and output name, with its recorded digest. */
export interface ExportSource {
  readonly key: string;
  readonly output: string;
  readonly digest: string;
}

/** A copy's paths ("" for the destination itself, else '/'-separated relative paths): a folder, or a file's stamp. */
export type TreeStamps = Record<string, "dir" | StatStamp>;

interface ExportRecord {
  readonly schema: 1;
  readonly dest: string;
  readonly source: ExportSource;
  readonly tree: TreeStamps;
}

/** The stamps of every file and folder at `path` (not following symlinks); undefined when it holds anything else, or is absent. */
export function treeStamps(path: string): TreeStamps | undefined {
  const out: TreeStamps = {};
  const walk = (p: string, rel: string): boolean => {
    let s: BigIntStats;
    try {
      s = lstatSync(p, { bigint: true });
    } catch {
      return false;
    }
    if (s.isFile()) {
      out[rel] = statStamp(s);
      return true;
    }
    if (!s.isDirectory()) return false;
    out[rel] = "dir";
    for (const name of readdirSync(p).sort()) if (!walk(join(p, name), rel === "" ? name : `${rel}/${name}`)) return false;
    return true;
  };
  return walk(path, "") ? out : undefined;
}

/** Is `tree` (the destination now) the copy `record` describes, of `source`, at `dest`? Pure. */
export function isRecordedCopy(record: unknown, dest: string, source: ExportSource, tree: TreeStamps | undefined): boolean {
  if (tree === undefined || typeof record !== "object" || record === null) return false;
  const r = record as Partial<ExportRecord>;
  return r.schema === 1 && r.dest === dest && canonicalJson(r.source ?? null) === canonicalJson(source) && canonicalJson(r.tree ?? null) === canonicalJson(tree);
}

function recordPath(recordsDir: string, dest: string): string {
  return join(recordsDir, `${sha256Hex(dest).slice(0, 32)}.json`);
}

function readRecord(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
}

function writeRecord(file: string, record: ExportRecord): void {
  const tmp = `${file}.${process.pid}.${randomBytes(3).toString("hex")}.tmp`;
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(tmp, JSON.stringify(record));
    renameSync(tmp, file);
  } catch {
    rmSync(tmp, { force: true }); // a read-only store: no record, the next run copies again
  }
}

/** Where the copy goes, and whether this call copied it (false: the recorded copy was already there). */
export interface Published {
  readonly path: string;
  readonly copied: boolean;
}

/**
 * Copy `from` (a file or a directory) to `<root>/<name>` (`name` may hold subfolders), replacing
 * what is there, unless the copy recorded in `recordsDir` for `source` is there unchanged.
 */
export async function publishExport(from: string, root: string, name: string, recorded?: { readonly recordsDir: string; readonly source: ExportSource }): Promise<Published> {
  if (!EXPORT_NAME.test(name)) throw new Error(`export name '${name}' is not a relative path of plain names`);
  const dest = join(root, name);
  const file = recorded === undefined ? undefined : recordPath(recorded.recordsDir, dest);
  if (recorded !== undefined && isRecordedCopy(readRecord(file!), dest, recorded.source, treeStamps(dest))) return { path: dest, copied: false };
  await copyReplacing(from, dest);
  if (recorded !== undefined) {
    const tree = treeStamps(dest);
    if (tree !== undefined) writeRecord(file!, { schema: 1, dest, source: recorded.source, tree });
  }
  return { path: dest, copied: true };
}

/** Copy to a temporary sibling, then rename over `dest` (a previous directory is moved aside and deleted after the rename). */
async function copyReplacing(from: string, dest: string): Promise<void> {
  const parent = dirname(dest);
  await mkdir(parent, { recursive: true });
  const suffix = `${process.pid}-${randomBytes(4).toString("hex")}`;
  const tmp = join(parent, `.${basename(dest)}.tmp-${suffix}`);
  const old = join(parent, `.${basename(dest)}.old-${suffix}`);
  try {
    await cp(from, tmp, { recursive: true, errorOnExist: true, force: false });
    const isDir = (await stat(tmp)).isDirectory();
    const existing = await stat(dest).catch(() => undefined);
    // rename(2) replaces a file atomically but cannot replace a non-empty directory: move it aside first.
    if (existing !== undefined && (isDir || existing.isDirectory())) await rename(dest, old);
    await rename(tmp, dest);
  } finally {
    await rm(tmp, { recursive: true, force: true });
    await rm(old, { recursive: true, force: true });
  }
}

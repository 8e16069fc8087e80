/**
 * Errors about the real datasets name the user's files. Preprocessing reads an assembled raw
 * directory in the store (assemble.ts: lock entries laid out under the release's own names, e.g.
 * the user's `cs-shortcut-qrecc-qrels.txt` as `raw/qrels.txt`), so a parse error would otherwise
 * name a store path the user never made. For a file placed with `--data-dir`, the error is restated
 * at the user's file; for a fetched or unpacked one it names the lock entry it came from.
 */
import { relative, sep } from "node:path";
import { InputError } from "../../pipeline/engine/errors.ts";
import { RAW_ASSEMBLY } from "./assemble.ts";
import { findInDataDir } from "./fetch/data-dir.ts";
import type { DatasetName } from "./schemas.ts";

/** Where a file of an assembled raw directory came from, in the user's terms; undefined when it is not an assembled part. */
export async function rawFileOrigin(dataset: DatasetName, rawDir: string, file: string, dataDir: string | undefined): Promise<string | undefined> {
  const rel = relative(rawDir, file).split(sep).join("/");
  if (rel.startsWith("..")) return undefined;
  const part = RAW_ASSEMBLY[dataset].find((p) => rel === p.to || rel.startsWith(`${p.to}/`));
  if (part === undefined) return undefined;
  if (rel === part.to && dataDir !== undefined) {
    const placed = await findInDataDir(dataDir, part.from);
    if (placed.length === 1) return placed[0]!;
  }
  const inside = rel === part.to ? part.from : `${part.from}${rel.slice(part.to.length)}`;
  return `${inside} (datasets.lock entry '${part.entry}'; the store's copy: ${file})`;
}

/** What a preprocessing step knows of its raw input: the directory, and the step id that produced it. */
export interface RawInput {
  readonly dir: string;
  readonly stepId: string;
}

/**
 * Run `body` (a preprocessing step reading `raw`); when the raw directory was assembled from lock
 * entries (`assemble-raw-*`, real data), an InputError about one of its files is thrown again
 * naming where that file came from (`rawFileOrigin`). Mini data's generated directories are left alone.
 */
export async function withRawOrigins<T>(dataset: DatasetName, raw: RawInput, dataDir: string | undefined, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (e) {
    if (!(e instanceof InputError) || e.file === undefined || !raw.stepId.startsWith("assemble-raw-")) throw e;
    const rawDir = raw.dir;
    const origin = await rawFileOrigin(dataset, rawDir, e.file, dataDir);
    if (origin === undefined) throw e;
    throw new InputError(e.detail, { file: origin, ...(e.line !== undefined ? { line: e.line } : {}), ...(e.field !== undefined ? { field: e.field } : {}), ...(e.fix !== undefined ? { fix: e.fix } : {}) });
  }
}

/**
 * Assemble a dataset's raw directories (what layout.ts's `locateCollection` and
 * `locateTurns` read, kind `raw:<dataset>`) from the outputs of its `fetch` steps: which
 * datasets.lock entries make up each dataset, and where each fetched file or unpacked folder
 * goes. A dataset has two kinds of raw directory, so that a target fetches exactly the files
 * its steps read: the collection's, and the turns' of a set of splits (a test-split table
 * needs no training file). The target paths follow the releases'
 * own layouts (the same ones the mini generator writes), under the names the descriptor's
 * `layout` gives — lock entries are stored under prefixed names (e.g. `orquac-train.txt`) so
 * that they never collide in `--data-dir` or a fetch directory.
 *
 * Placement: every file is hard-linked from the fetch entry when both sit on one
 * filesystem (they do inside one store), else copied. The result is self-contained:
 * a hard link is a second name for the same bytes, so `gc` removing the fetch entry, or
 * a store moved to another disk, leaves the raw directory intact. Symbolic links are never
 * used: they would dangle after `gc`, escape the entry when it is mounted into a container
 * or exported by Dagger, and the entry's digest would cover link text instead of content.
 * Store entries are never written to after publishing, so sharing inodes between two of
 * them is safe (`--verify` would flag an edit made by hand in either).
 */
import { copyFile, link, mkdir, readdir, rename, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { InputError } from "../../pipeline/engine/errors.ts";
import type { DatasetName } from "./schemas.ts";
import type { RawPart } from "./datasets/descriptor.ts";
import { perDataset } from "./datasets/registry.ts";

export type { RawPart } from "./datasets/descriptor.ts";

/** Which lock entries make up each dataset's raw directory: each descriptor's `rawParts`. */
export const RAW_ASSEMBLY: Readonly<Record<DatasetName, readonly RawPart[]>> = perDataset((d) => d.rawParts);

/** What one raw directory holds: the collection, or the turns of these file splits (with their answers' files: QA's references). */
export type RawScope = { readonly part: "collection" } | { readonly part: "turns"; readonly fileSplits: readonly string[]; readonly withAnswers?: boolean };

/** The parts of one raw directory. */
export function rawParts(dataset: DatasetName, scope: RawScope): RawPart[] {
  if (scope.part === "collection") return RAW_ASSEMBLY[dataset].filter((p) => p.part === "collection");
  const parts = scope.withAnswers === true ? ["turns", "answers"] : ["turns"];
  return RAW_ASSEMBLY[dataset].filter((p) => parts.includes(p.part) && (p.splits === undefined || p.splits.some((s) => scope.fileSplits.includes(s))));
}

/** The lock entries a raw directory is assembled from (sorted, unique); every scope's when none is given. */
export function rawEntries(dataset: DatasetName, scope?: RawScope): string[] {
  const parts = scope === undefined ? RAW_ASSEMBLY[dataset] : rawParts(dataset, scope);
  return [...new Set(parts.map((p) => p.entry))].sort();
}

export type PlaceMode = "hardlink" | "copy";

export interface AssembleOptions {
  /** Hard-link where possible (default), or always copy. */
  readonly mode?: PlaceMode;
  /** Called after each file with files placed so far and the total. */
  readonly onProgress?: (done: number, total?: number) => void;
  readonly signal?: AbortSignal;
}

export interface AssembleResult {
  readonly files: number;
  readonly bytes: number;
  /** Files that had to be copied (another filesystem, or mode "copy"). */
  readonly copied: number;
}

async function listFiles(root: string, rel = ""): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(join(root, rel), { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...(await listFiles(root, r)));
    else if (e.isFile()) out.push(r);
    else throw new InputError(`'${r}' is neither a file nor a directory (symbolic links are not followed)`, { file: root, fix: "fetch the entry again" });
  }
  return out;
}

/** Hard-link `src` to `dst`, or copy when linking is impossible; returns whether it copied. */
export async function placeFile(src: string, dst: string, mode: PlaceMode = "hardlink"): Promise<boolean> {
  await mkdir(dirname(dst), { recursive: true });
  if (mode === "hardlink") {
    try {
      await link(src, dst);
      return false;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // EXDEV: another filesystem; EPERM/EMLINK/ENOTSUP: links not allowed or too many.
      if (code !== "EXDEV" && code !== "EPERM" && code !== "EMLINK" && code !== "ENOTSUP" && code !== "EACCES") throw e;
    }
  }
  const tmp = `${dst}.copying`;
  await copyFile(src, tmp);
  await rename(tmp, dst);
  return true;
}

/**
 * Place every part of `parts` into `outDir`. `inputs` maps entry name -> that fetch step's
 * `files` directory. Missing inputs, missing `from` paths and two parts writing the same
 * path are InputErrors that name the entry.
 */
export async function assembleRaw(parts: readonly RawPart[], inputs: Readonly<Record<string, string>>, outDir: string, options: AssembleOptions = {}): Promise<AssembleResult> {
  const plan: { src: string; dst: string; entry: string }[] = [];
  const seen = new Map<string, string>();
  for (const part of parts) {
    const root = inputs[part.entry];
    if (root === undefined) throw new InputError(`no fetched files for entry '${part.entry}'`, { field: part.entry, fix: "wire the entry's fetch step into the assemble step" });
    const src = join(root, part.from);
    let isDir: boolean;
    try {
      isDir = (await stat(src)).isDirectory();
    } catch {
      const have = (await readdir(root).catch(() => [] as string[])).sort().join(", ") || "nothing";
      throw new InputError(`fetched entry '${part.entry}' has no '${part.from}' (it holds: ${have})`, {
        file: "datasets.lock",
        field: `entries.${part.entry}`,
        fix: "check the entry's 'file', 'unpack' and 'provides' in datasets.lock against the release, and the dataset's `rawParts` in steps/data/datasets/",
      });
    }
    const rels = isDir ? (await listFiles(src)).map((r) => ({ from: join(src, r), to: `${part.to}/${r}` })) : [{ from: src, to: part.to }];
    for (const r of rels) {
      const prev = seen.get(r.to);
      if (prev !== undefined) throw new InputError(`'${r.to}' would come from both '${prev}' and '${part.entry}'`, { field: part.entry, fix: "give each part its own target path in the dataset's `rawParts`" });
      seen.set(r.to, part.entry);
      plan.push({ src: r.from, dst: join(outDir, r.to), entry: part.entry });
    }
  }
  let bytes = 0;
  let copied = 0;
  let done = 0;
  for (const p of plan) {
    if (options.signal?.aborted) throw options.signal.reason instanceof Error ? options.signal.reason : new Error("cancelled");
    if (await placeFile(p.src, p.dst, options.mode ?? "hardlink")) copied++;
    bytes += (await stat(p.dst)).size;
    options.onProgress?.(++done, plan.length);
  }
  return { files: plan.length, bytes, copied };
}

/**
 * Finding a dataset's native files inside a raw dataset directory, where its descriptor's
 * `layout` says they sit (as the real releases unpack and as the mini generator writes them).
 * Files are found by name anywhere below the root, so an extra top-level folder from an
 * archive does not matter.
 */
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { InputError } from "../../pipeline/engine/errors.ts";
import type { DatasetName } from "./schemas.ts";
import { descriptorOf } from "./datasets/registry.ts";
import type { PreprocessInputs } from "./preprocess/common.ts";

function walk(root: string, dir = root, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(root, p, out);
    else out.push(relative(root, p));
  }
  return out;
}

/** Every split a dataset's turns table can hold, sorted. */
export function datasetSplits(dataset: DatasetName): string[] {
  const l = descriptorOf(dataset).layout;
  return [...new Set([...Object.keys(l.turns), ...Object.keys(l.derived ?? {})])].sort();
}

/** The file splits whose turn files a table of `splits` reads (sorted); RangeError on an unknown split. */
export function fileSplitsFor(dataset: DatasetName, splits: readonly string[]): string[] {
  const l = descriptorOf(dataset).layout;
  const out = new Set<string>();
  for (const s of splits) {
    const source = l.turns[s] !== undefined ? s : l.derived?.[s];
    if (source === undefined) throw new RangeError(`${dataset}: unknown split '${s}' (known: ${datasetSplits(dataset).join(", ")})`);
    out.add(source);
  }
  return [...out].sort();
}

function finder(dataset: DatasetName, root: string) {
  const files = walk(root);
  const find = (name: string, required: boolean): string | undefined => {
    const hits = files.filter((f) => f === name || f.endsWith(`/${name}`));
    if (hits.length > 1) throw new InputError(`${hits.length} files named ${name}: ${hits.join(", ")}`, { file: root, fix: "keep one copy of each dataset file" });
    if (hits.length === 0 && required) {
      throw new InputError(`no file named ${name} for ${dataset}`, { file: root, fix: `place the ${dataset} release files there (see datasets.lock and the README's "Running on the real datasets")` });
    }
    return hits[0] === undefined ? undefined : join(root, hits[0]);
  };
  return { files, find };
}

/** The collection files of a dataset under `root` (sorted). */
export function locateCollection(dataset: DatasetName, root: string): string[] {
  const layout = descriptorOf(dataset).layout;
  const collectionFiles = walk(root).filter((f) => layout.collection.test(f)).map((f) => join(root, f));
  if (collectionFiles.length === 0) throw new InputError(`no collection files matching ${layout.collection} for ${dataset}`, { file: root, fix: `place the ${dataset} collection there (see the README's "Running on the real datasets")` });
  return collectionFiles;
}

/**
 * The turn, qrels and labels files a turns table of `splits` reads (default: every split):
 * only those, so a test-only table needs no training file.
 */
export function locateTurns(dataset: DatasetName, root: string, splits: readonly string[] = datasetSplits(dataset)): Omit<PreprocessInputs, "outDir" | "params" | "onProgress" | "passagesFile"> {
  const layout = descriptorOf(dataset).layout;
  const { find } = finder(dataset, root);
  const fileSplits = fileSplitsFor(dataset, splits);
  const turnsFiles: Record<string, string> = {};
  for (const split of fileSplits) turnsFiles[split] = find(layout.turns[split]!, true)!;
  const out: { turnsFiles: Record<string, string>; qrelsFiles?: Record<string, string>; labelsFile?: string } = { turnsFiles };
  if (layout.qrels) {
    const q: Record<string, string> = {};
    for (const [split, name] of Object.entries(layout.qrels)) {
      if (split !== "all" && !fileSplits.includes(split)) continue;
      const f = find(name, false);
      if (f) q[split] = f;
    }
    out.qrelsFiles = q;
  }
  if (layout.labels && splits.includes(layout.labels.split)) {
    const l = find(layout.labels.file, false);
    if (l) out.labelsFile = l;
  }
  return out;
}

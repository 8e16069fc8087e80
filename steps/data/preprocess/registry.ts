/**
 * Per-dataset turn preprocessors, keyed by dataset name (each descriptor's `preprocessor`;
 * its collection is parsed by the descriptor's `collectionFormat`). All share one input contract
 * (PreprocessInputs) and write turns.parquet and qrels.parquet into `outDir`, checked
 * against a passages.parquet that `preprocessDatasetCollection` wrote (a step of its own).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { DatasetName } from "../schemas.ts";
import { descriptorOf, perDataset } from "../datasets/registry.ts";
import { preprocessCollection } from "./collection.ts";
import type { PreprocessInputs, PreprocessResult, Preprocessor } from "./common.ts";
import { tablePaths } from "./common.ts";

export const preprocessors: Readonly<Record<DatasetName, Preprocessor>> = perDataset((d) => d.preprocessor);

export function preprocessorFor(dataset: string): Preprocessor {
  const p = (preprocessors as Record<string, Preprocessor | undefined>)[dataset];
  if (p === undefined) throw new RangeError(`no preprocessor for dataset '${dataset}' (known: ${Object.keys(preprocessors).sort().join(", ")})`);
  return p;
}

/** A dataset's collection files -> `outFile` (passages.parquet); returns the passage count. */
export async function preprocessDatasetCollection(
  dataset: DatasetName,
  files: readonly string[],
  outFile: string,
  options: { rowGroupRows?: number; onProgress?: (done: number, total?: number) => void; signal?: AbortSignal } = {},
): Promise<{ passages: number }> {
  const r = await preprocessCollection({ files, format: descriptorOf(dataset).collectionFormat, outFile, ...options });
  return { passages: r.passages };
}

/** Both stages in one call (tests, scripts): the collection into `outDir`, then the turns against it. */
export async function preprocessDataset(
  dataset: DatasetName,
  inputs: Omit<PreprocessInputs, "passagesFile"> & { readonly collectionFiles: readonly string[] },
): Promise<PreprocessResult & { files: { turns: string; qrels: string; passages: string } }> {
  const { collectionFiles, ...rest } = inputs;
  mkdirSync(inputs.outDir, { recursive: true });
  const passagesFile = tablePaths(inputs.outDir).passages;
  const rowGroupRows = inputs.params?.rowGroupRows;
  const { passages } = await preprocessDatasetCollection(dataset, collectionFiles, passagesFile, {
    ...(rowGroupRows === undefined ? {} : { rowGroupRows }),
    ...(inputs.onProgress === undefined ? {} : { onProgress: inputs.onProgress }),
  });
  const r = await preprocessorFor(dataset)({ ...rest, passagesFile });
  return { ...r, counts: { ...r.counts, passages }, files: { ...r.files, passages: join(inputs.outDir, "passages.parquet") } };
}

/**
 * Per-dataset preprocessors, keyed by dataset name. All share one input contract
 * (PreprocessInputs) and write turns.parquet, passages.parquet and qrels.parquet into
 * `outDir`.
 */
import type { DatasetName } from "../schemas.ts";
import type { Preprocessor } from "./common.ts";
import { preprocessOrquac } from "./orquac.ts";
import { preprocessQrecc } from "./qrecc.ts";
import { preprocessTopiocqa } from "./topiocqa.ts";

export const preprocessors: Readonly<Record<DatasetName, Preprocessor>> = {
  qrecc: preprocessQrecc,
  topiocqa: preprocessTopiocqa,
  orquac: preprocessOrquac,
};

export function preprocessorFor(dataset: string): Preprocessor {
  const p = (preprocessors as Record<string, Preprocessor | undefined>)[dataset];
  if (p === undefined) throw new RangeError(`no preprocessor for dataset '${dataset}' (known: ${Object.keys(preprocessors).sort().join(", ")})`);
  return p;
}

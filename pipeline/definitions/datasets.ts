/**
 * Dataset wiring: where each dataset's normalized tables come from. On this machine
 * (and by default) that is the seeded mini benchmark; with `--data real` it is the real
 * releases pinned in datasets.lock: one `fetch-dataset.<entry>` step per entry, then
 * `assemble-raw-<dataset>` lays the fetched files out as the preprocessor reads them
 * (see README, "datasets.lock").
 */
import { use, type OutputRef } from "../engine/step.ts";
import type { DataSource, Overrides, Target } from "../engine/targets.ts";
import { preprocessOf, sharedParameters, type PreprocessOptions } from "./shared-parameters.ts";
import { generateMini, preprocess, preprocessCollectionSteps, DATASETS } from "../../steps/data/steps.ts";
import { fetchStepDef } from "../../steps/data/fetch/steps.ts";
import { assembleRawStep } from "../../steps/data/assemble-steps.ts";
import { rawEntries, type RawScope } from "../../steps/data/assemble.ts";
import { datasetSplits, fileSplitsFor } from "../../steps/data/layout.ts";
import type { DatasetName } from "../../steps/data/schemas.ts";
import { descriptorOf } from "../../steps/data/datasets/registry.ts";

/** Mini-benchmark sizes; the defaults of the generator unless overridden here. */
export interface MiniSizes {
  readonly seed?: number;
  readonly entities?: number;
  readonly scale?: number;
}

const NO_OPTIONS: PreprocessOptions = { allowMissingGold: false };

/** The normalized tables of one dataset: passages from the collection step, turns and qrels from the turns step. */
export interface DatasetTables {
  readonly passages: OutputRef<"parquet:passages">;
  readonly turns: OutputRef<"parquet:turns">;
  readonly qrels: OutputRef<"parquet:qrels">;
  /** Preprocessing report of the turns (counts, warnings). */
  readonly report: OutputRef<"json:preprocess-report">;
  /** question-types.json / .md: the breakdown and the computed types' agreement with the labels. */
  readonly questionTypes: OutputRef<"json:question-types">;
  readonly questionTypesReport: OutputRef<"text:question-types-md">;
}

/** Step-name suffix of a split set ("" for every split, else ".test", ".dev+test", ...). */
function splitsTag(dataset: DatasetName, splits: readonly string[] | undefined): string {
  if (splits === undefined) return "";
  const sorted = [...new Set(splits)].sort();
  return sorted.join(",") === datasetSplits(dataset).join(",") ? "" : `.${sorted.join("+")}`;
}

function tablesFrom(dataset: DatasetName, prefix: string, collectionRaw: OutputRef<string>, turnsRaw: OutputRef<string>, splits: readonly string[] | undefined, options: PreprocessOptions): DatasetTables {
  type Raw = OutputRef<"raw:qrecc">;
  const coll = use(preprocessCollectionSteps[dataset] as (typeof preprocessCollectionSteps)["qrecc"], {
    name: `preprocess-collection-${prefix}-${dataset}`,
    params: {},
    inputs: { raw: collectionRaw as Raw },
  });
  const sorted = splits === undefined ? undefined : [...new Set(splits)].sort();
  const tag = splitsTag(dataset, sorted);
  const prep = use(preprocess[dataset] as (typeof preprocess)["qrecc"], {
    name: `preprocess-${prefix}-${dataset}${tag}`,
    params: { ...descriptorOf(dataset).preprocessParams, ...(tag === "" || sorted === undefined ? {} : { splits: sorted }), ...(options.allowMissingGold ? { allowMissingGold: true } : {}) },
    inputs: { raw: turnsRaw as Raw, passages: coll.out.passages },
  });
  return { passages: coll.out.passages, ...prep.out };
}

export function miniTables(dataset: DatasetName, sizes: MiniSizes = {}, splits?: readonly string[], options: PreprocessOptions = NO_OPTIONS): DatasetTables {
  const gen = use(generateMini[dataset] as (typeof generateMini)["qrecc"], { name: `generate-mini-${dataset}`, params: sizes, inputs: {} });
  return tablesFrom(dataset, "mini", gen.out.raw, gen.out.raw, splits, options);
}

/**
 * The normalized tables of a dataset from the chosen source: the mini benchmark, or the
 * real release assembled from datasets.lock entries. `splits` limits the turns table to
 * what a target evaluates on (e.g. ["test"]): on real data its steps then fetch only those
 * splits' files; the collection step is shared by every split set. `options`: the preprocessing
 * options a `--set data.<dataset>.*` gave (shared-parameters.ts).
 */
export function datasetTables(dataset: DatasetName, data: DataSource, splits?: readonly string[], options: PreprocessOptions = NO_OPTIONS): DatasetTables {
  if (data === "mini") return miniTables(dataset, {}, splits, options);
  return realTables(dataset, splits, options);
}

/** The tables of a dataset as a target's context builds them (its data source and `--set data.<dataset>.*`). */
export function tablesIn(ctx: { readonly data: DataSource; readonly overrides?: Overrides }, dataset: DatasetName, splits?: readonly string[]): DatasetTables {
  return datasetTables(dataset, ctx.data, splits, preprocessOf(ctx.overrides, dataset));
}

/**
 * The verified content of one datasets.lock entry (the file, or the unpacked tree of an
 * archive), e.g. `lockedFiles("dpr-nq-question-encoder")` for a checkpoint or
 * `lockedFiles("bert-base-uncased-vocab")` for the vocabulary. Every call for a name is the
 * same step (`fetch-dataset.<name>`), so the entry is fetched once per run however many
 * consumers it has.
 */
export function lockedFiles(entryName: string): OutputRef<"fetched"> {
  return use(fetchStepDef(entryName), { name: `fetch-dataset.${entryName}`, params: { entry: entryName }, inputs: {} }).out.files;
}

/** One raw directory of a real release (collection, or the turns of some file splits): its lock entries fetched, then assembled. */
export function realRaw(dataset: DatasetName, scope: RawScope) {
  const inputs = Object.fromEntries(rawEntries(dataset, scope).map((e) => [e, lockedFiles(e)]));
  const name = scope.part === "collection" ? `assemble-raw-${dataset}-collection` : `assemble-raw-${dataset}-turns.${[...scope.fileSplits].sort().join("+")}${scope.withAnswers === true ? "+answers" : ""}`;
  return use(assembleRawStep(dataset, scope), { name, inputs }).out.raw;
}

export function realTables(dataset: DatasetName, splits?: readonly string[], options: PreprocessOptions = NO_OPTIONS): DatasetTables {
  const fileSplits = fileSplitsFor(dataset, splits ?? datasetSplits(dataset));
  return tablesFrom(dataset, "real", realRaw(dataset, { part: "collection" }), realRaw(dataset, { part: "turns", fileSplits }), splits, options);
}

export const dataTarget: Target = {
  name: "data",
  description: "the normalized Parquet tables of QReCC, TopiOCQA and OR-QuAC (mini benchmark by default)",
  steps(ctx) {
    return DATASETS.map((d) => tablesIn(ctx, d).report.step);
  },
  parameters: sharedParameters("the preprocessing options", DATASETS, []),
};

/**
 * Dataset wiring: where each dataset's normalized tables come from. On this machine
 * (and by default) that is the seeded mini benchmark; with `--data real` it is the real
 * releases pinned in datasets.lock: one `fetch-dataset.<entry>` step per entry, then
 * `assemble-raw-<dataset>` lays the fetched files out as the preprocessor reads them
 * (see README, "datasets.lock").
 */
import { use, type OutputRef } from "../engine/step.ts";
import type { DataSource, Target } from "../engine/targets.ts";
import { generateMini, preprocess, DATASETS } from "../../steps/data/steps.ts";
import { fetchStepDef } from "../../steps/data/fetch/steps.ts";
import { assembleRawSteps } from "../../steps/data/assemble-steps.ts";
import { rawEntries } from "../../steps/data/assemble.ts";
import type { DatasetName } from "../../steps/data/schemas.ts";

/** Mini-benchmark sizes; the defaults of the generator unless overridden here. */
export interface MiniSizes {
  readonly seed?: number;
  readonly entities?: number;
  readonly scale?: number;
}

/**
 * Preprocessing params per dataset, the same for mini and real data. QReCC's dev cut is
 * the authors' 2,000 conversations; dev-split.ts clamps it to 20% of the train
 * conversations, which scales it down on the mini train set (60 of ~300) and leaves it at
 * exactly 2,000 on the real one (~10.8k conversations).
 */
const PREPROCESS: Readonly<Record<DatasetName, Record<string, unknown>>> = {
  qrecc: { devConversations: 2000 },
  topiocqa: {},
  orquac: {},
};

export function miniTables(dataset: DatasetName, sizes: MiniSizes = {}) {
  const gen = use(generateMini[dataset] as (typeof generateMini)["qrecc"], { name: `generate-mini-${dataset}`, params: sizes, inputs: {} });
  const prep = use(preprocess[dataset] as (typeof preprocess)["qrecc"], {
    name: `preprocess-mini-${dataset}`,
    params: PREPROCESS[dataset],
    inputs: { raw: gen.out.raw },
  });
  return prep.out;
}

/**
 * The normalized tables of a dataset from the chosen source: the mini benchmark, or the
 * real release assembled from datasets.lock entries.
 */
export function datasetTables(dataset: DatasetName, data: DataSource) {
  if (data === "mini") return miniTables(dataset);
  return realTables(dataset);
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

/** The raw directory of a real release: its lock entries fetched, then assembled. */
export function realRaw(dataset: DatasetName) {
  const inputs = Object.fromEntries(rawEntries(dataset).map((e) => [e, lockedFiles(e)]));
  return use(assembleRawSteps[dataset] as (typeof assembleRawSteps)["qrecc"], { name: `assemble-raw-${dataset}`, inputs }).out.raw;
}

export function realTables(dataset: DatasetName) {
  const prep = use(preprocess[dataset] as (typeof preprocess)["qrecc"], {
    name: `preprocess-real-${dataset}`,
    params: PREPROCESS[dataset],
    inputs: { raw: realRaw(dataset) },
  });
  return prep.out;
}

export const dataTarget: Target = {
  name: "data",
  description: "the normalized Parquet tables of QReCC, TopiOCQA and OR-QuAC (mini benchmark by default)",
  steps(ctx) {
    return DATASETS.map((d) => datasetTables(d, ctx.data).report.step);
  },
};

/**
 * Dataset wiring: where each dataset's normalized tables come from. On this machine
 * (and by default) that is the seeded mini benchmark; the real releases are pinned in
 * datasets.lock and fetched by `fetch` steps (see README, "Real datasets").
 */
import { use } from "../engine/step.ts";
import type { DataSource, Target } from "../engine/targets.ts";
import { InputError } from "../engine/errors.ts";
import { generateMini, preprocess, DATASETS } from "../../steps/data/steps.ts";
import type { DatasetName } from "../../steps/data/schemas.ts";

/** Mini-benchmark sizes; the defaults of the generator unless overridden here. */
export interface MiniSizes {
  readonly seed?: number;
  readonly entities?: number;
  readonly scale?: number;
}

/** Preprocessing params per dataset; QReCC's dev cut is scaled to the mini train set. */
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
  throw new InputError(`real ${dataset} is not wired into targets yet`, { field: "--data", fix: "use --data mini" });
}

export const dataTarget: Target = {
  name: "data",
  description: "the normalized Parquet tables of QReCC, TopiOCQA and OR-QuAC (mini benchmark by default)",
  steps(ctx) {
    return DATASETS.map((d) => datasetTables(d, ctx.data).report.step);
  },
};

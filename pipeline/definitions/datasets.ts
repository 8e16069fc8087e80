/**
 * Dataset wiring: where each dataset's normalized tables come from. On this machine
 * (and by default) that is the seeded mini benchmark; the real releases are pinned in
 * datasets.lock and fetched by `fetch` steps (see README, "Real datasets").
 */
import { use } from "../engine/step.ts";
import type { Target } from "../engine/targets.ts";
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

export const dataTarget: Target = {
  name: "data",
  description: "generate the mini benchmark (QReCC, TopiOCQA, OR-QuAC) and preprocess it to Parquet",
  steps() {
    return DATASETS.map((d) => miniTables(d).report.step);
  },
};

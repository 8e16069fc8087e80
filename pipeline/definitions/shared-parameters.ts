/**
 * `--set` parameters every target that reads a dataset shares, whatever else it reads:
 *  - `bm25.<dataset>.k1`, `bm25.<dataset>.b`: BM25's parameters for every BM25 search on the
 *    dataset (the tables' BM25 rows, and in the dense graph the searches that mine negatives and
 *    build dev collections); the code's values are the paper's (steps/sparse/presets.ts);
 *  - `data.<dataset>.allowMissingGold`: let preprocessing accept gold passages missing from the
 *    collection (counted in its report, scored as unreachable) instead of stopping, for a real
 *    release that lacks some.
 * Described once (typed against the records they set, so a field added there does not compile
 * until it is documented here); the lexical, dense and DCSR spaces list them beside their own.
 */
import type { OverrideValue, Overrides, ParameterSpace } from "../engine/targets.ts";
import type { Bm25Params } from "../../steps/sparse/similarity.ts";
import { BM25_PRESETS } from "../../steps/sparse/presets.ts";
import type { DatasetName } from "../../steps/data/schemas.ts";
import { getPath, parseSets, typeText, type Described, type ParamDef } from "./overrides.ts";

/** Preprocessing options a user may need on a real release (the step's params of the same names). */
export interface PreprocessOptions {
  readonly allowMissingGold: boolean;
}

export const BM25_FIELDS: Described<Bm25Params> = {
  k1: { kind: "number", min: 0, minExclusive: true, max: 10, doc: "BM25 k1 (term frequency saturation) of every BM25 search on the dataset" },
  b: { kind: "number", min: 0, max: 1, doc: "BM25 b (document length normalisation) of every BM25 search on the dataset" },
};

export const DATA_FIELDS: Described<PreprocessOptions> = {
  allowMissingGold: { kind: "bool", doc: "accept gold passages missing from the collection (counted in the preprocessing report, scored as unreachable) instead of stopping" },
};

const DEFAULT_PREPROCESS: PreprocessOptions = { allowMissingGold: false };

/** The datasets BM25 searches on; nq only where θ0 is pre-trained (the mini benchmark). */
export type Bm25Dataset = keyof typeof BM25_PRESETS;

/** The shared parameters of a target reading `datasets` (BM25 also of `bm25Datasets`), with their code values. */
export function sharedParamDefs(datasets: readonly DatasetName[], bm25Datasets: readonly Bm25Dataset[] = datasets): ParamDef[] {
  const out: ParamDef[] = [];
  for (const d of bm25Datasets) for (const [k, f] of Object.entries(BM25_FIELDS)) out.push({ path: `bm25.${d}.${k}`, field: f, value: getPath(BM25_PRESETS, `${d}.${k}`) as OverrideValue });
  for (const d of datasets) for (const [k, f] of Object.entries(DATA_FIELDS)) out.push({ path: `data.${d}.${k}`, field: f, value: getPath(DEFAULT_PREPROCESS, k) as OverrideValue });
  return out;
}

/** Whether an override path is one of the shared ones (the dense and DCSR setups do not hold them). */
export const isShared = (path: string): boolean => path.startsWith("bm25.") || path.startsWith("data.");

/** The overrides without the shared paths: what a setup record applies. */
export function ownOverrides(overrides: Overrides | undefined): Overrides | undefined {
  if (overrides === undefined) return undefined;
  return Object.fromEntries(Object.entries(overrides).filter(([p]) => !isShared(p)));
}

/** BM25's parameters on a dataset under the overrides. */
export function bm25Of(overrides: Overrides | undefined, dataset: Bm25Dataset): Bm25Params {
  const v = (k: keyof Bm25Params) => overrides?.[`bm25.${dataset}.${k}`] as number | undefined;
  return { k1: v("k1") ?? BM25_PRESETS[dataset].k1, b: v("b") ?? BM25_PRESETS[dataset].b };
}

/** Preprocessing options of a dataset under the overrides. */
export function preprocessOf(overrides: Overrides | undefined, dataset: DatasetName): PreprocessOptions {
  const v = overrides?.[`data.${dataset}.allowMissingGold`];
  return { allowMissingGold: typeof v === "boolean" ? v : DEFAULT_PREPROCESS.allowMissingGold };
}

/** Only the overrides of the shared paths (what the dataset tables and BM25 steps are memoised on). */
export function sharedOverrides(overrides: Overrides | undefined): Overrides {
  return Object.fromEntries(Object.entries(overrides ?? {}).filter(([p]) => isShared(p)));
}

/** The parameters as `params` lists them (code values; a space lists only what can be set). */
export function describeDefs(defs: readonly ParamDef[]) {
  return defs.filter((d) => d.unavailable === undefined).map((d) => ({ path: d.path, type: typeText(d.field), value: d.value, description: d.field.doc }));
}

/** The space of a target that reads only the shared parameters (the lexical targets: BM25 and preprocessing; `data`: preprocessing). */
export function sharedParameters(name: string, datasets: readonly DatasetName[], bm25Datasets: readonly Bm25Dataset[] = datasets): ParameterSpace {
  const defs = sharedParamDefs(datasets, bm25Datasets);
  return { name, describe: () => describeDefs(defs), parse: (sets, ctx) => parseSets(sets, defs, { space: `${name} (${ctx.data})` }) };
}

/**
 * The DCSR trainer's config keys: the one source of their names, types, defaults, ranges
 * and meaning. The optimisation, schedule, selection and export keys are the DPR trainer's
 * own (steps/training/config-schema.ts, picked here by name, so their defaults and checks
 * stay one definition); DCSR adds how each example's negatives are drawn. From this come
 * the step params (`dcsrParamsShape`), the TypeScript type and `steps/dcsr/python/
 * config_schema.json`, which the Python trainer validates against (`npx tsx
 * scripts/gen-dcsr-schema.ts` rewrites it; test/dcsr/config-schema.test.ts fails while stale).
 */
import { z } from "zod";
import { INIT_KINDS, TRAINER_FIELDS, trainerParamsShape } from "../training/config-schema.ts";

/** DPR trainer keys DCSR shares; n_hard_negatives, mask_false_negatives and filter_gold_negatives have DCSR counterparts below. */
export const SHARED_KEYS = [
  "lr", "weight_decay", "warmup_ratio", "clip", "adam_eps", "epochs", "patience", "min_delta", "batch_size", "seed", "device", "amp", "threads",
  "deterministic", "eval_batch_size", "eval_before_training", "recall_k", "progress_every", "save_checkpoint", "export_onnx", "onnx_opset",
  "parity_check_transformers", "allow_pickle",
] as const satisfies readonly (keyof typeof TRAINER_FIELDS)[];

type BoundedInt = { readonly kind: "int"; readonly default: number; readonly min: number; readonly max?: number; readonly doc: string };

/** The keys DCSR adds (Wu et al. 2022, §3.2 and §4.5). */
export const DCSR_FIELDS = {
  in_passage_negatives: { kind: "int", default: 1, min: 0, max: 1, doc: "a sentence of the positive passage that neither contains the answer nor neighbours one that does, per example (DCSR: 1; 0 = the '+1/+2 BM25 random' ablations); where the passage has none, a sentence of a negative passage stands in" },
  negative_sentences: { kind: "int", default: 1, min: 1, max: 2, doc: "mined negatives per example: one random sentence from each of this many mined passages (BM25 negatives), or this many mined sentences (DCSR x IHN)" },
  dev_top_m: { kind: "int", default: 3000, min: 1, doc: "model selection: sentences of the dev collection retrieved per dev query before the HasAns passage ranking" },
  max_markers: { kind: "int", default: 10, min: 1, doc: "marker slots per passage; must equal the width of the tokens' markers.npy" },
} as const satisfies Record<string, BoundedInt>;

type SharedKey = (typeof SHARED_KEYS)[number];

export const DCSR_TRAINER_FIELDS = {
  ...(Object.fromEntries(SHARED_KEYS.map((k) => [k, TRAINER_FIELDS[k]])) as { [K in SharedKey]: (typeof TRAINER_FIELDS)[K] }),
  ...DCSR_FIELDS,
};

const boundedInt = (f: BoundedInt) => (f.max === undefined ? z.number().int().min(f.min) : z.number().int().min(f.min).max(f.max)).default(f.default);

/** zod params of the DCSR trainer's keys (defaults filled in). */
export const dcsrParamsShape = {
  ...(Object.fromEntries(SHARED_KEYS.map((k) => [k, trainerParamsShape[k]])) as { [K in SharedKey]: (typeof trainerParamsShape)[K] }),
  in_passage_negatives: boundedInt(DCSR_FIELDS.in_passage_negatives),
  negative_sentences: boundedInt(DCSR_FIELDS.negative_sentences),
  dev_top_m: boundedInt(DCSR_FIELDS.dev_top_m),
  max_markers: boundedInt(DCSR_FIELDS.max_markers),
};

export type DcsrSettings = { -readonly [K in keyof typeof dcsrParamsShape]: z.output<(typeof dcsrParamsShape)[K]> };

/** The JSON the Python trainer validates against (scripts/gen-dcsr-schema.ts writes it). */
export function dcsrSchemaJson(): string {
  return `${JSON.stringify({ note: "generated from steps/dcsr/config-schema.ts by scripts/gen-dcsr-schema.ts; do not edit", fields: DCSR_TRAINER_FIELDS, init_kinds: INIT_KINDS }, null, 2)}\n`;
}

export const DCSR_SCHEMA_FILE = "steps/dcsr/python/config_schema.json";

/**
 * The span-corruption pre-trainer's config keys (fid.py pretrain-span), one source: FiD's own
 * optimiser and run keys (steps/qa/config-schema.ts's FID_FIELDS) less those of reading
 * questions, plus the objective's. From them come the step's zod params and
 * `steps/qa/fid/span_config_schema.py` (written by `npx tsx scripts/gen-python.ts`; a test
 * fails while it is stale).
 */
import type { TrainerField } from "../../training/config-schema.ts";
import { FID_FIELDS } from "../config-schema.ts";

const { dev_questions: _dq, allow_pickle: _ap, n_context: _nc, answer_max_length: _am, start_is_candidate: _sc, ...shared } = FID_FIELDS;

export const SPAN_FIELDS = {
  ...shared,
  epochs: { kind: "int", default: 4, min: 0, doc: "epochs over the collection, new noise masks each; the epoch with the lowest dev loss is kept (0 = export the initial model)" },
  lr: { kind: "number", default: 1e-3, min: 0, minExclusive: true, doc: "AdamW learning rate" },
  batch_size: { kind: "int", default: 32, min: 1, doc: "passages per step" },
  eval_batch_size: { kind: "int", default: 64, min: 1, doc: "passages per forward pass in the dev loss" },
  grad_cache_chunk: { kind: "int?", default: null, min: 1, doc: "passages per chunk of a step's forward and backward pass (the loss is a sum over target tokens, so each chunk backpropagates its share on its own: the same gradients with one chunk's activations in memory; null = the whole batch at once)" },
  amp: { kind: "enum", values: ["bf16", "none"], default: "bf16", doc: "mixed precision on CUDA only (bf16: T5 v1.0 overflows in fp16); CPU trains in float32" },
  noise_density: { kind: "number", default: 0.15, min: 0, max: 1, minExclusive: true, maxExclusive: true, doc: "fraction of each passage's tokens corrupted (T5: 0.15)" },
  mean_span_length: { kind: "number", default: 3, min: 1, doc: "mean length of a corrupted span in tokens (T5: 3)" },
  sentinels: { kind: "int", default: 32, min: 2, doc: "sentinel ids added above the vocabulary (T5's <extra_id_i> is id vocab - 1 - i); at least the most spans a passage gets, plus one" },
} as const satisfies Record<string, TrainerField>;

export const SPAN_INIT_KINDS = { random: { required: [], optional: ["t5_config"] } } as const;

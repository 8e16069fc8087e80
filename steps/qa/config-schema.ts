/**
 * The readers' config keys, one source each (as steps/training/config-schema.ts is for the
 * retriever trainer): names, types, defaults, ranges and meaning. From them come the steps'
 * zod params and the schemas the Python programs check their config against
 * (`steps/qa/dpr_reader/config_schema.py`, `steps/qa/fid/config_schema.py`), written by
 * `npx tsx scripts/gen-python.ts`; a test fails while one is stale.
 * Defaults are the upstream readers' (facebookresearch/DPR's reader, FiD) where the paper is silent.
 */
import type { z } from "zod";
import { TRAINER_FIELDS, zodOf, type TrainerField } from "../training/config-schema.ts";

const common = {
  weight_decay: { kind: "number", default: 0, min: 0, doc: "AdamW weight decay, on weights only (not biases, not norm weights)" },
  warmup_ratio: { kind: "number", default: 0, min: 0, max: 1, maxExclusive: true, doc: "linear warm-up over ceil(ratio x steps), then linear decay to 0" },
  clip: { kind: "number", default: 1.0, min: 0, minExclusive: true, doc: "gradient-norm clip" },
  adam_eps: { kind: "number", default: 1e-8, min: 0, minExclusive: true, doc: "AdamW epsilon" },
  epochs: { kind: "int", default: 10, min: 0, doc: "epochs to train; the epoch with the best dev EM is kept, ties broken by dev F1, then the earlier (0 = export the initial model)" },
  start_is_candidate: { kind: "bool", default: false, doc: "score the initial model on dev as epoch 0 and keep it unless an epoch beats it (for a start that already answers: an earlier reader)" },
  seed: { kind: "int", default: 42, doc: "seeds a random init, the example order and the passage sampling" },
  device: { kind: "enum", values: ["auto", "cpu", "cuda"], default: "auto", doc: "auto = cuda when torch sees a GPU" },
  threads: TRAINER_FIELDS.threads,
  world_size: { kind: "int?", default: null, min: 1, doc: "data-parallel processes (one per GPU, launched by the trainer itself); null = one per visible CUDA device, 1 on CPU. The global batch stays batch_size: each process computes its share of the batch's loss" },
  grad_cache_chunk: { kind: "int?", default: null, min: 1, doc: "questions per chunk of a step's forward and backward pass (the loss is a sum over questions, so each chunk backpropagates its share on its own: the same gradients with one chunk's activations in memory; null = the whole batch at once)" },
  activation_checkpointing: { kind: "bool", default: false, doc: "recompute each encoder layer's activations during the backward pass instead of keeping them: the same gradients, about a third more compute" },
  deterministic: { kind: "bool", default: true, doc: "torch.use_deterministic_algorithms" },
  eval_batch_size: { kind: "int", default: 64, min: 1, doc: "sequences per forward pass in the dev evaluation" },
  dev_questions: { kind: "int", default: 0, min: 0, doc: "dev questions scored per epoch for model selection (0 = all)" },
  progress_every: { kind: "int", default: 10, min: 1, doc: "steps between PROGRESS lines" },
  allow_pickle: { kind: "bool", default: false, doc: ".bin checkpoints are read with torch.load(weights_only=True) unless true" },
} as const satisfies Record<string, TrainerField>;

/** The DPR extractive reader (facebookresearch/DPR's reader defaults; Appendix E of the paper). */
export const READER_FIELDS = {
  ...common,
  lr: { kind: "number", default: 1e-5, min: 0, minExclusive: true, doc: "AdamW learning rate" },
  batch_size: { kind: "int", default: 16, min: 1, doc: "questions per step" },
  passages_per_question: { kind: "int", default: 24, min: 2, doc: "passages read per training question: 1 with the answer + the rest without, sampled from the top N" },
  max_answer_length: { kind: "int", default: 10, min: 1, doc: "longest answer in tokens (the paper: 30 on QReCC)" },
  eval_top_docs: { kind: "int", default: 50, min: 1, doc: "passages the reader ranks at inference (and in the dev evaluation)" },
  amp: { kind: "enum", values: ["fp16", "bf16", "none"], default: "fp16", doc: "mixed precision on CUDA only; CPU trains in float32" },
  attention: TRAINER_FIELDS.attention,
  export_onnx: { kind: "bool", default: true, doc: "export the reader to ONNX with parity fixtures (Node answers with it)" },
  onnx_opset: { kind: "int", default: 14, min: 7, doc: "ONNX opset of the export" },
} as const satisfies Record<string, TrainerField>;

/** FiD (Izacard & Grave): T5 reading each passage separately, one decoder over all of them. */
export const FID_FIELDS = {
  ...common,
  lr: { kind: "number", default: 1e-4, min: 0, minExclusive: true, doc: "AdamW learning rate" },
  weight_decay: { kind: "number", default: 0.01, min: 0, doc: "AdamW weight decay, on weights only (not norm weights)" },
  batch_size: { kind: "int", default: 1, min: 1, doc: "questions per step (each with n_context passages)" },
  n_context: { kind: "int", default: 50, min: 1, doc: "passages per question (the paper: top 50)" },
  answer_max_length: { kind: "int", default: 100, min: 1, doc: "longest target and greedy decoding length in tokens, eos included" },
  amp: { kind: "enum", values: ["bf16", "fp16", "none"], default: "bf16", doc: "mixed precision on CUDA only (bf16: T5 v1.0 overflows in fp16); CPU trains in float32" },
  attention: { kind: "enum", values: ["auto", "sdpa", "math"], default: "auto", doc: "auto = torch's fused scaled_dot_product_attention where torch has it (>= 2.0), with the relative position bias as its additive mask; else the explicit float32 softmax (math)" },
  eval_batch_size: { kind: "int", default: 8, min: 1, doc: "questions per batch in the dev evaluation and prediction" },
} as const satisfies Record<string, TrainerField>;

export const QA_INIT_KINDS = {
  reader: { random: { required: [], optional: ["bert_config"] }, checkpoint: { required: ["path"], optional: [] }, bert: { required: ["path"], optional: [] } },
  fid: { random: { required: [], optional: ["t5_config"] }, checkpoint: { required: ["path"], optional: [] }, "hf-t5": { required: ["path"], optional: [] } },
} as const;

type ValueOf<F> = F extends { kind: "enum"; values: readonly (infer V)[] } ? V : F extends { kind: "bool" } ? boolean : F extends { kind: "int?" } ? number | null : number;
export type FieldsValues<T> = { -readonly [K in keyof T]: ValueOf<T[K]> };

/** zod params for a field set (defaults filled in), typed by the fields. */
export function paramsShape<T extends Record<string, TrainerField>>(fields: T): { [K in keyof T]: z.ZodDefault<z.ZodType<ValueOf<T[K]>, ValueOf<T[K]>>> } {
  return Object.fromEntries(Object.entries(fields).map(([k, f]) => [k, zodOf(f)])) as { [K in keyof T]: z.ZodDefault<z.ZodType<ValueOf<T[K]>, ValueOf<T[K]>>> };
}

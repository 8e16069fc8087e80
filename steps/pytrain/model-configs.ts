/**
 * The model configurations the Python programs build, one source each: BERT (the DPR and DCSR
 * encoders, the DPR reader, the GPU encoder) and T5 (FiD and its span-corruption pre-training).
 * Each field's name, type, default, range and meaning is here once, in Hugging Face's names (so
 * a released config.json reads as it is). From it come:
 * - the steps' zod params for `init.bert_config` / `init.t5_config` (`modelConfigParams`),
 * - the TypeScript types (`BertConfig`, `T5Config`) and the shape checks of released configs,
 * - the Python dataclasses in steps/pytrain/model_configs.py (generated, with the config
 *   schemas: steps/pytrain/generated.ts; `npx tsx scripts/gen-python.ts` rewrites them and
 *   test/training/generated-python.test.ts fails while one is stale).
 */
import { z } from "zod";

/** shape: a released config.json carries it (a checkpoint's tensors follow it); hfDefault: Hugging Face fills it in when absent. */
type IntField = { readonly kind: "int"; readonly default: number; readonly min: number; readonly doc: string; readonly param?: Param; readonly shape?: true; readonly hfDefault?: true };
type FloatField = { readonly kind: "float"; readonly default: number; readonly min: number; readonly max?: number; readonly doc: string; readonly param?: Param };
type BoolField = { readonly kind: "bool"; readonly default: boolean; readonly doc: string; readonly param?: Param };
/** Whether a step's params may set the field in `init.<x>_config` (absent: never). */
type Param = "required" | "optional";
export type ModelField = IntField | FloatField | BoolField;

export interface ModelConfigSpec {
  /** The Python dataclass's name. */
  readonly name: string;
  readonly doc: string;
  readonly fields: Readonly<Record<string, ModelField>>;
  /** Fields a config.json may carry that the model only implements with one value (absent counts as that value). */
  readonly requires: Readonly<Record<string, string>>;
  /** [a, b]: a must be a multiple of b. */
  readonly multipleOf: readonly (readonly [string, string])[];
  /** A field that defaults to another field's value when a config omits it. */
  readonly defaultFrom: Readonly<Record<string, string>>;
  /** Fields written into a saved config.json beside the dataclass's own (Hugging Face's). */
  readonly hf: Readonly<Record<string, unknown>>;
}

export const BERT = {
  name: "BertConfig",
  doc: "A BERT encoder (Hugging Face BertConfig's fields the compact BERT of pytrain/bert_model.py implements).",
  fields: {
    vocab_size: { kind: "int", default: 30522, min: 1, shape: true, param: "optional", doc: "rows of the word embedding (a random init takes it from the vocabulary when absent)" },
    hidden_size: { kind: "int", default: 768, min: 1, shape: true, param: "required", doc: "width of every layer (a multiple of num_attention_heads)" },
    num_hidden_layers: { kind: "int", default: 12, min: 1, shape: true, param: "required", doc: "transformer layers" },
    num_attention_heads: { kind: "int", default: 12, min: 1, shape: true, param: "required", doc: "attention heads per layer" },
    intermediate_size: { kind: "int", default: 3072, min: 1, shape: true, param: "required", doc: "width of the feed-forward layer" },
    max_position_embeddings: { kind: "int", default: 512, min: 1, shape: true, hfDefault: true, param: "optional", doc: "longest sequence (rows of the position embedding)" },
    type_vocab_size: { kind: "int", default: 2, min: 1, shape: true, hfDefault: true, doc: "token types (title 0 / text 1)" },
    layer_norm_eps: { kind: "float", default: 1e-12, min: 0, doc: "LayerNorm epsilon" },
    hidden_dropout_prob: { kind: "float", default: 0.1, min: 0, max: 1, param: "optional", doc: "dropout on embeddings and layer outputs" },
    attention_probs_dropout_prob: { kind: "float", default: 0.1, min: 0, max: 1, param: "optional", doc: "dropout on attention probabilities" },
    initializer_range: { kind: "float", default: 0.02, min: 0, doc: "standard deviation of a random init's weights" },
    add_pooling_layer: { kind: "bool", default: false, doc: "a pooler, only so that plain BERT checkpoints load without leftovers (DPR's vector is the [CLS] state)" },
  },
  requires: { hidden_act: "gelu", position_embedding_type: "absolute" },
  multipleOf: [["hidden_size", "num_attention_heads"]],
  defaultFrom: {},
  hf: { model_type: "bert", hidden_act: "gelu", pad_token_id: 0, architectures: ["BertModel"], position_embedding_type: "absolute" },
} as const satisfies ModelConfigSpec;

export const T5 = {
  name: "T5Config",
  doc: "A T5 v1.0 encoder-decoder (Hugging Face T5Config's fields the compact T5 of qa/fid/t5_model.py implements).",
  fields: {
    vocab_size: { kind: "int", default: 32128, min: 1, shape: true, doc: "rows of the shared embedding (from the SentencePiece vocabulary)" },
    d_model: { kind: "int", default: 768, min: 1, shape: true, param: "required", doc: "width of every layer" },
    d_kv: { kind: "int", default: 64, min: 1, shape: true, param: "required", doc: "width of one attention head" },
    d_ff: { kind: "int", default: 3072, min: 1, shape: true, param: "required", doc: "width of the feed-forward layer" },
    num_layers: { kind: "int", default: 12, min: 1, shape: true, param: "required", doc: "encoder blocks" },
    num_decoder_layers: { kind: "int", default: 12, min: 1, param: "optional", doc: "decoder blocks (default: num_layers)" },
    num_heads: { kind: "int", default: 12, min: 1, shape: true, param: "required", doc: "attention heads per block" },
    relative_attention_num_buckets: { kind: "int", default: 32, min: 1, doc: "relative position buckets" },
    relative_attention_max_distance: { kind: "int", default: 128, min: 1, doc: "distance of the last logarithmic bucket" },
    dropout_rate: { kind: "float", default: 0.1, min: 0, max: 1, param: "optional", doc: "dropout everywhere" },
    layer_norm_epsilon: { kind: "float", default: 1e-6, min: 0, doc: "RMS norm epsilon" },
    initializer_factor: { kind: "float", default: 1.0, min: 0, doc: "scale of a random init (Mesh TensorFlow's)" },
    pad_token_id: { kind: "int", default: 0, min: 0, doc: "padding id" },
    eos_token_id: { kind: "int", default: 1, min: 0, doc: "end-of-sequence id" },
    decoder_start_token_id: { kind: "int", default: 0, min: 0, doc: "the decoder's first input" },
    tie_word_embeddings: { kind: "bool", default: true, doc: "the LM head is the shared embedding (scaled by d_model^-0.5)" },
  },
  requires: { feed_forward_proj: "relu" },
  multipleOf: [],
  defaultFrom: { num_decoder_layers: "num_layers" },
  hf: { model_type: "t5", feed_forward_proj: "relu", architectures: ["T5ForConditionalGeneration"] },
} as const satisfies ModelConfigSpec;

type Fields<S extends ModelConfigSpec> = S["fields"];
type ValueOf<F> = F extends BoolField ? boolean : number;

/** A full configuration (every field), typed from the source. */
export type ModelConfig<S extends ModelConfigSpec> = { -readonly [K in keyof Fields<S>]: ValueOf<Fields<S>[K]> };
export type BertConfig = Partial<ModelConfig<typeof BERT>>;
export type T5Config = Partial<ModelConfig<typeof T5>>;

/** The fields of a released config that fix the model's shape (a checkpoint's tensors follow them). */
export function shapeFields<S extends ModelConfigSpec>(spec: S): (keyof Fields<S> & string)[] {
  return Object.entries(spec.fields).filter(([, f]) => "shape" in f && f.shape === true).map(([k]) => k as keyof Fields<S> & string);
}

/**
 * A released config.json's shape, checked as the Python dataclass would refuse it: every shape
 * field a positive integer (Hugging Face's default where it has one), `multipleOf`, and the
 * fields the model implements with one value only. Returns the shape, or the first problem.
 */
export function releasedShape(spec: ModelConfigSpec, cfg: Readonly<Record<string, unknown>>): { shape: Record<string, number> } | { field: string; message: string } {
  const shape: Record<string, number> = {};
  for (const f of shapeFields(spec)) {
    const field = spec.fields[f]!;
    const v = cfg[f] ?? ("hfDefault" in field && field.hfDefault === true ? field.default : undefined);
    if (typeof v !== "number" || !Number.isInteger(v) || v < 1) return { field: f, message: `expected a positive integer, got ${JSON.stringify(v)}` };
    shape[f] = v;
  }
  for (const [a, b] of spec.multipleOf) {
    if (shape[a]! % shape[b]! !== 0) return { field: a, message: `${a} ${shape[a]} is not a multiple of ${b} ${shape[b]}` };
  }
  for (const [k, only] of Object.entries(spec.requires)) {
    if (cfg[k] !== undefined && cfg[k] !== only) return { field: k, message: `${k} ${JSON.stringify(cfg[k])} is not supported (only ${JSON.stringify(only)})` };
  }
  return { shape };
}

function zodOfField(f: ModelField): z.ZodType {
  if (f.kind === "bool") return z.boolean();
  if (f.kind === "int") return z.number().int().min(f.min);
  const n = z.number().min(f.min);
  return f.max === undefined ? n : n.max(f.max);
}

type ParamKeys<S extends ModelConfigSpec, P extends Param> = { [K in keyof Fields<S>]: Fields<S>[K] extends { readonly param: P } ? K : never }[keyof Fields<S>];

/** What a step's params may say of a model's configuration (the fields marked `param`, less `O`). */
export type ConfigParams<S extends ModelConfigSpec, O extends string = never> = { -readonly [K in Exclude<ParamKeys<S, "required">, O>]: ValueOf<Fields<S>[K]> } & {
  -readonly [K in Exclude<ParamKeys<S, "optional">, O>]?: ValueOf<Fields<S>[K]>;
};

/**
 * The zod schema of `init.<x>_config` in a step's params: the fields the source marks `param`
 * (less `omit`), required or optional as marked; unknown keys refused; `multipleOf` checked.
 */
export function modelConfigParams<S extends ModelConfigSpec, O extends string = never>(spec: S, omit: readonly O[] = []): z.ZodType<ConfigParams<S, O>> {
  const shape: Record<string, z.ZodType> = {};
  for (const [k, f] of Object.entries(spec.fields)) {
    if (f.param === undefined || (omit as readonly string[]).includes(k)) continue;
    shape[k] = f.param === "required" ? zodOfField(f) : zodOfField(f).optional();
  }
  const schema = z
    .object(shape)
    .strict()
    .superRefine((v: Record<string, unknown>, ctx) => {
      for (const [a, b] of spec.multipleOf) {
        const x = v[a];
        const y = v[b];
        if (typeof x === "number" && typeof y === "number" && x % y !== 0) ctx.addIssue({ code: "custom", path: [a], message: `${a} ${x} is not a multiple of ${b} ${y}` });
      }
    });
  return schema as unknown as z.ZodType<ConfigParams<S, O>>;
}

/** The mini benchmark's θ0 default: 2 layers, hidden 128, 2 heads, intermediate 512 (vocabulary from the tokens). */
export const TINY_BERT = Object.freeze({ hidden_size: 128, num_hidden_layers: 2, num_attention_heads: 2, intermediate_size: 512 } satisfies BertConfig);

/**
 * θ0 on real data: the locked DPR-NQ checkpoint (facebook/dpr-question_encoder-single-nq-base
 * and dpr-ctx_encoder-single-nq-base, Hugging Face DPR format) as a `dpr:model`, the kind
 * every dense step consumes.
 *
 * - `assemble-hf-dpr-checkpoint` (in-process) lays the four fetched lock files out as one
 *   HF DPR checkpoint directory (`hf:dpr-checkpoint`):
 *   `question_encoder/{pytorch_model.bin,config.json}`, `ctx_encoder/{pytorch_model.bin,config.json}`
 *   (hard links, copies across filesystems: `placeFile` of steps/data/assemble.ts), after
 *   checking that each config.json is an HF DPR config this project's BERT can load;
 * - `import-dpr-checkpoint` (container) runs the trainer in export-only mode (epochs 0,
 *   `--init-hf-dpr`): the weights are copied unchanged into the trainer's own output layout
 *   (safetensors, config, ONNX encoders with their parity fixtures, result.json with
 *   best_epoch 0). CPU is enough; the pinned training image is used under Dagger.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, dir } from "../../pipeline/engine/step.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { placeFile } from "../data/assemble.ts";
import { FETCHED_KIND } from "../data/fetch/steps.ts";
import { TRAINING_DEFAULTS } from "./contract.ts";
import { BERT, releasedShape, shapeFields } from "../pytrain/model-configs.ts";
import { trainerRuntime } from "./steps.ts";

export const HF_DPR_CHECKPOINT_KIND = "hf:dpr-checkpoint";

/** The `file` of the four datasets.lock entries of the DPR-NQ checkpoint (test/training/import-dpr.test.ts checks them against the lock). */
export const DPR_NQ_LOCK_FILES = Object.freeze({
  questionWeights: "facebook--dpr-question_encoder-single-nq-base--pytorch_model.bin",
  questionConfig: "facebook--dpr-question_encoder-single-nq-base--config.json",
  contextWeights: "facebook--dpr-ctx_encoder-single-nq-base--pytorch_model.bin",
  contextConfig: "facebook--dpr-ctx_encoder-single-nq-base--config.json",
});

/** The lock entries whose fetch steps feed the inputs of the same names. */
export const DPR_NQ_LOCK_ENTRIES = Object.freeze({
  questionWeights: "dpr-nq-question-encoder",
  questionConfig: "dpr-nq-question-encoder-config",
  contextWeights: "dpr-nq-context-encoder",
  contextConfig: "dpr-nq-context-encoder-config",
});

type Part = keyof typeof DPR_NQ_LOCK_FILES;

/** Where each input goes inside the checkpoint directory (what `--init-hf-dpr DIR` reads). */
export const HF_DPR_LAYOUT: Readonly<Record<Part, string>> = Object.freeze({
  questionWeights: "question_encoder/pytorch_model.bin",
  questionConfig: "question_encoder/config.json",
  contextWeights: "ctx_encoder/pytorch_model.bin",
  contextConfig: "ctx_encoder/config.json",
});

const PARTS = Object.keys(HF_DPR_LAYOUT) as Part[];

/** The BERT shape fields a DPR config carries and both encoders must share (steps/pytrain/model-configs.ts). */
const SHAPE_FIELDS = shapeFields(BERT);

export type DprShape = Readonly<Record<string, number>>;

/**
 * Checks an HF DPR config.json (already parsed) and returns its BERT shape. Pure.
 * Requires model_type "dpr", the shape fields as positive integers (max_position_embeddings
 * and type_vocab_size may be absent: 512 and 2), hidden_act "gelu" and
 * position_embedding_type "absolute" (when given), and no projection (projection_dim absent
 * or 0: the DPR-NQ encoders have none, and this project's encoder is the [CLS] vector).
 */
export function checkDprConfig(raw: unknown, file: string): DprShape {
  const fix = "use the config.json of an HF DPR encoder (e.g. facebook/dpr-question_encoder-single-nq-base)";
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new InputError("config.json must be a JSON object", { file, fix });
  const cfg = raw as Record<string, unknown>;
  if (cfg.model_type !== "dpr") throw new InputError(`model_type is ${JSON.stringify(cfg.model_type)}, expected "dpr"`, { file, field: "model_type", fix });
  const checked = releasedShape(BERT, cfg);
  if ("message" in checked) throw new InputError(checked.message, { file, field: checked.field, fix });
  if (cfg.projection_dim !== undefined && cfg.projection_dim !== 0) {
    throw new InputError(`projection_dim ${JSON.stringify(cfg.projection_dim)}: encoders with a projection layer are not supported`, { file, field: "projection_dim", fix: "use a DPR checkpoint with projection_dim 0 (the released DPR-NQ encoders)" });
  }
  return checked.shape;
}

/** The two encoders must have one BERT shape (the trainer reads the question encoder's config for both). */
export function checkSameShape(question: DprShape, context: DprShape, contextFile: string): void {
  for (const f of SHAPE_FIELDS) {
    if (question[f] !== context[f]) {
      throw new InputError(`${f} is ${context[f]} for the context encoder but ${question[f]} for the question encoder`, { file: contextFile, field: f, fix: "pair a question and a context encoder of the same DPR release" });
    }
  }
}

async function readConfig(path: string): Promise<DprShape> {
  const text = await readFile(path, "utf8");
  let raw: unknown;
  try {
    raw = JSON.parse(text) as unknown;
  } catch (e) {
    throw new InputError(`not valid JSON (${(e as Error).message})`, { file: path, fix: "fetch the entry again: the file is damaged or not a config.json" });
  }
  return checkDprConfig(raw, path);
}

async function requireFile(dirPath: string, name: string, part: Part): Promise<string> {
  const names = await readdir(dirPath).catch(() => [] as string[]);
  if (!names.includes(name)) {
    const have = names.sort().join(", ") || "nothing";
    throw new InputError(`the fetched directory has no '${name}' (it holds: ${have})`, {
      file: dirPath,
      field: part,
      fix: `wire lockedFiles("${DPR_NQ_LOCK_ENTRIES[part]}") to input '${part}', or set param '${part}' to the lock entry's 'file'`,
    });
  }
  return join(dirPath, name);
}

const fileName = z
  .string()
  .min(1)
  .refine((s) => !s.includes("/") && s !== "." && s !== "..", "a file name inside the fetched directory, without '/'");

export const assembleHfDprCheckpoint = defineStep({
  id: "assemble-hf-dpr-checkpoint",
  version: 1,
  source: import.meta.url,
  description: "Lay out the fetched DPR question/context encoder files as one HF DPR checkpoint directory.",
  params: z
    .object({
      questionWeights: fileName.default(DPR_NQ_LOCK_FILES.questionWeights),
      questionConfig: fileName.default(DPR_NQ_LOCK_FILES.questionConfig),
      contextWeights: fileName.default(DPR_NQ_LOCK_FILES.contextWeights),
      contextConfig: fileName.default(DPR_NQ_LOCK_FILES.contextConfig),
    })
    .strict(),
  inputs: { questionWeights: FETCHED_KIND, questionConfig: FETCHED_KIND, contextWeights: FETCHED_KIND, contextConfig: FETCHED_KIND },
  outputs: { checkpoint: dir(HF_DPR_CHECKPOINT_KIND, "checkpoint") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const src: Partial<Record<Part, string>> = {};
      for (const part of PARTS) src[part] = await requireFile(ctx.inputs[part], ctx.params[part], part);
      const q = await readConfig(src.questionConfig!);
      checkSameShape(q, await readConfig(src.contextConfig!), src.contextConfig!);
      let copied = 0;
      for (const [i, part] of PARTS.entries()) {
        if (await placeFile(src[part]!, join(ctx.outputs.checkpoint, HF_DPR_LAYOUT[part]))) copied++;
        ctx.progress(i + 1, PARTS.length);
      }
      ctx.log(`BERT ${q.num_hidden_layers}x${q.hidden_size} (heads ${q.num_attention_heads}, vocab ${q.vocab_size}); placed ${PARTS.length} files, ${copied} copied`);
    },
  },
});

/** Export-only trainer config: every key is a trainer config key (steps/training/README.md). */
const importParams = z
  .object({
    epochs: z.literal(0).default(0),
    eval_before_training: z.literal(false).default(false),
    /** `.bin` files are read with torch.load(weights_only=True) unless true (only for files you trust). */
    allow_pickle: z.boolean().default(false),
    /** Seeds only the ONNX parity fixtures (the weights are copied, not initialised). */
    seed: z.number().int().default(TRAINING_DEFAULTS.seed),
    onnx_opset: z.number().int().positive().default(TRAINING_DEFAULTS.onnx_opset),
    parity_check_transformers: z.boolean().default(TRAINING_DEFAULTS.parity_check_transformers),
  })
  .strict();

export const importDprCheckpoint = defineStep({
  id: "import-dpr-checkpoint",
  version: 1,
  source: import.meta.url,
  description: "An HF DPR checkpoint as a dpr:model (the trainer with epochs 0: safetensors, ONNX encoders, parity fixtures).",
  params: importParams,
  // The vocabulary the checkpoint was trained with: its sha256 is recorded in the model's
  // config.json, so encoding refuses tokens from any other vocabulary, even of the same size.
  inputs: { checkpoint: HF_DPR_CHECKPOINT_KIND, vocab: "wordpiece:vocab" },
  outputs: { model: dir("dpr:model", "model") },
  runtime: trainerRuntime(["--init-hf-dpr", "{in:checkpoint}", "--vocab", "{in:vocab}/vocab.txt"], { gpu: "none", trainingInputs: false }),
  // BERT-base: 27 s and 3.1 GB peak RSS on one thread of the 2-core reference machine (load, 2 ONNX exports).
  cost: 30,
});

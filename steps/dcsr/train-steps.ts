/**
 * DCSR training as container steps running steps/dcsr/python/train_dcsr.py (torch + numpy,
 * the DPR trainer's image and modules):
 * - `train-dcsr` starts from an earlier bi-encoder (θ0, for every variant and every DCSR x IHN
 *   iteration);
 * - `pretrain-dcsr` starts from a random tiny BERT (the mini NQ-style setting: DCSR beside θ0,
 *   which is DPR trained the same way on the same questions).
 * The params are the trainer's config (config-schema.ts) but the run-level keys.
 */
import { z } from "zod";
import { defineStep, dir, type ContainerRuntime } from "../../pipeline/engine/step.ts";
import { TRAINING_IMAGE } from "../training/steps.ts";
import { dcsrParamsShape } from "./config-schema.ts";

export const DCSR_TRAINER_SCRIPT = "steps/dcsr/python/train_dcsr.py";

const { threads: _threads, save_checkpoint: _save, export_onnx: _export, ...dcsrConfig } = dcsrParamsShape;

const bertConfig = z
  .object({
    vocab_size: z.number().int().positive().optional(),
    hidden_size: z.number().int().positive(),
    num_hidden_layers: z.number().int().positive(),
    num_attention_heads: z.number().int().positive(),
    intermediate_size: z.number().int().positive(),
    max_position_embeddings: z.number().int().positive().optional(),
    hidden_dropout_prob: z.number().min(0).max(1).optional(),
    attention_probs_dropout_prob: z.number().min(0).max(1).optional(),
  })
  .strict();

function runtime(extra: readonly string[], gpuRequired: boolean): ContainerRuntime {
  return {
    type: "container",
    image: TRAINING_IMAGE,
    argv: ["python3", `{src}/${DCSR_TRAINER_SCRIPT}`, "--config", "{params}", "--out", "{out:model}", "--inputs", "{in:examples}", "--passages", "{in:passages}", ...extra],
    pythonModules: ["torch", "numpy"],
    gpu: { count: 1, required: gpuRequired },
    // Mini-sized (512-962 s per training on a loaded 2-core machine); real: pipeline/definitions/resources.ts.
    resources: { cpus: 1, memoryGiB: 2, expectedMinutes: 20 },
  };
}

const outputs = { model: dir("dcsr:model", "model") };
const extraSources = ["steps/dcsr/python", "steps/training/dpr"];
/** Scheduling hint: a DCSR epoch costs about a DPR epoch with one hard negative. */
const cost = (p: { epochs: number }): number => 10 + 25 * p.epochs;

const defs = new Map<string, unknown>();
function memoised<T>(key: string, make: () => T): T {
  if (!defs.has(key)) defs.set(key, make());
  return defs.get(key) as T;
}

export function trainDcsrDef(gpuRequired = false) {
  return memoised(`train:${gpuRequired}`, () =>
    defineStep({
      id: "train-dcsr",
      version: 1,
      source: import.meta.url,
      extraSources,
      description: "Fine-tune a DCSR bi-encoder (sentence vectors at marker tokens, in-passage negatives) from an initial model.",
      params: z.object(dcsrConfig).strict(),
      inputs: { examples: "dcsr:examples", passages: "tokens:dcsr-passages", init: "dpr:model" },
      outputs,
      runtime: runtime(["--init-from", "{in:init}"], gpuRequired),
      cost,
    }),
  );
}

export function pretrainDcsrDef(gpuRequired = false) {
  return memoised(`pretrain:${gpuRequired}`, () =>
    defineStep({
      id: "pretrain-dcsr",
      version: 1,
      source: import.meta.url,
      extraSources,
      description: "Train a DCSR bi-encoder from a random BERT (vocabulary size from the vocab input).",
      params: z.object({ ...dcsrConfig, init: z.object({ kind: z.literal("random"), bert_config: bertConfig.optional() }).strict() }).strict(),
      inputs: { examples: "dcsr:examples", passages: "tokens:dcsr-passages", vocab: "wordpiece:vocab" },
      outputs,
      runtime: runtime(["--vocab", "{in:vocab}/vocab.txt"], gpuRequired),
      cost,
    }),
  );
}

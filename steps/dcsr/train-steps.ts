/**
 * DCSR training as container steps running the trainer dcsr.python.train_dcsr (torch + numpy,
 * the DPR trainer's image, encoders and the training package):
 * - `train-dcsr` starts from an earlier bi-encoder (θ0, for every variant and every DCSR x IHN
 *   iteration);
 * - `pretrain-dcsr` starts from a random tiny BERT (the mini NQ-style setting: DCSR beside θ0,
 *   which is DPR trained the same way on the same questions).
 * The params are the trainer's config (config-schema.ts) but the run-level keys.
 */
import { z } from "zod";
import { dir, type ContainerRuntime } from "../../pipeline/engine/step.ts";
import { defineStepWith } from "../../pipeline/engine/def-identity.ts";
import { bertConfigParams, TRAINING_IMAGE } from "../training/steps.ts";
import { pythonArgv } from "../pytrain/launch.ts";
import { dcsrParamsShape } from "./config-schema.ts";

export const DCSR_TRAINER_MODULE = "dcsr.python.train_dcsr";

/** The run-level keys never enter a key (steps/training/steps.ts says why). */
const { threads: _threads, world_size: _world, save_checkpoint: _save, export_onnx: _export, ...dcsrConfig } = dcsrParamsShape;

function runtime(extra: readonly string[], gpuRequired: boolean): ContainerRuntime {
  return {
    type: "container",
    image: TRAINING_IMAGE,
    argv: pythonArgv(DCSR_TRAINER_MODULE, ["--config", "{params}", "--out", "{out:model}", "--inputs", "{in:examples}", "--passages", "{in:passages}", ...extra]),
    pythonModules: ["torch", "numpy"],
    gpu: { count: 1, required: gpuRequired },
    // Mini-sized (512-962 s per training on a loaded 2-core machine); real: pipeline/definitions/resources.ts.
    resources: { cpus: 1, memoryGiB: 2, expectedMinutes: 20 },
  };
}

const outputs = { model: dir("dcsr:model", "model") };
/** Scheduling hint: a DCSR epoch costs about a DPR epoch with one hard negative. */
const cost = (p: { epochs: number }): number => 10 + 25 * p.epochs;


export function trainDcsrDef(gpuRequired = false) {
  return defineStepWith({ gpuRequired }, {
    id: "train-dcsr",
    version: 1,
    source: import.meta.url,
    description: "Fine-tune a DCSR bi-encoder (sentence vectors at marker tokens, in-passage negatives) from an initial model.",
    params: z.object(dcsrConfig).strict(),
    inputs: { examples: "dcsr:examples", passages: "tokens:dcsr-passages", init: "dpr:model" },
    outputs,
    runtime: runtime(["--init-from", "{in:init}"], gpuRequired),
    cost,
  });
}

export function pretrainDcsrDef(gpuRequired = false) {
  return defineStepWith({ gpuRequired }, {
    id: "pretrain-dcsr",
    version: 1,
    source: import.meta.url,
    description: "Train a DCSR bi-encoder from a random BERT (vocabulary size from the vocab input).",
    params: z.object({ ...dcsrConfig, init: z.object({ kind: z.literal("random"), bert_config: bertConfigParams.optional() }).strict() }).strict(),
    inputs: { examples: "dcsr:examples", passages: "tokens:dcsr-passages", vocab: "wordpiece:vocab" },
    outputs,
    runtime: runtime(["--vocab", "{in:vocab}/vocab.txt"], gpuRequired),
    cost,
  });
}

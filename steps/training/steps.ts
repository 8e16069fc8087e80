/**
 * DPR training as pipeline steps: `pretrain-dpr` and `train-dpr` are container steps running
 * the trainer (training.dpr.train) (torch + numpy only) in a pinned image under Dagger, or with
 * a host python3 that has torch under the local executor. `pretrain-dpr` starts from a random
 * tiny BERT (the mini benchmark's θ0); `train-dpr` starts from an earlier model (θ0 for every
 * IHN iteration). Their inputs come from `assemble-dpr-examples` (assemble-step.ts).
 */
import { z } from "zod";
import { defineStepWith } from "../../pipeline/engine/def-identity.ts";
import { dir, type ContainerRuntime } from "../../pipeline/engine/step.ts";
import { TRAINER_MODULE } from "./contract.ts";
import { trainerParamsShape } from "./config-schema.ts";
import { BERT, modelConfigParams } from "../pytrain/model-configs.ts";
import { pythonArgv } from "../pytrain/launch.ts";

/**
 * The trainer's config as step params (config-schema.ts): every key but the run-level ones,
 * which never enter a key: threads (the executor sets them), world_size (one process per GPU
 * the scheduler gives the step: the same loss at the same global batch), and whether to save
 * and export (a step always does both).
 */
const { threads: _threads, world_size: _world, save_checkpoint: _save, export_onnx: _export, ...trainerConfig } = trainerParamsShape;

/** `init.bert_config` of a random init (steps/pytrain/model-configs.ts). */
export const bertConfigParams = modelConfigParams(BERT);

/**
 * The training image for Dagger users: PyTorch 2.0.1 (CUDA 11.7, cuDNN 8 runtime; it ships
 * numpy), pinned by the digest recorded in two independent public repositories. The
 * program needs nothing else. Replace it with a newer one by digest if you like:
 * `docker buildx imagetools inspect pytorch/pytorch:<tag>`.
 */
export const TRAINING_IMAGE = "pytorch/pytorch:2.0.1-cuda11.7-cudnn8-runtime@sha256:82e0d379a5dedd6303c89eda57bcc434c40be11f249ddfadfd5673b84351e806";

const TRAINER_OUT = pythonArgv(TRAINER_MODULE, ["--config", "{params}", "--out", "{out:model}"]);
const TRAINER = [...TRAINER_OUT, "--inputs", "{in:examples}", "--passages", "{in:passages}"];

/**
 * The trainer as a container step.
 * - `gpu` "optional": a GPU when there is one; "required": planning fails without one (unless
 *   --allow-cpu); "none": export-only runs, which train nothing and compute on CPU anyway.
 * - Where it computes (CPU with pinned kernels, the host's kernels, a GPU model) is the step's
 *   numerics identity, which its executor puts in its key (pipeline/executors/numerics/).
 * - `trainingInputs` false drops `--inputs`/`--passages` (export-only runs, epochs 0).
 */
export function trainerRuntime(extraArgv: readonly string[], opts: { gpu: "optional" | "required" | "none"; trainingInputs?: boolean }): ContainerRuntime {
  const training = opts.gpu !== "none";
  return {
    type: "container",
    image: TRAINING_IMAGE,
    argv: [...(opts.trainingInputs === false ? TRAINER_OUT : TRAINER), ...extraArgv],
    pythonModules: ["torch", "numpy"],
    ...(training ? { gpu: { count: 1, required: opts.gpu === "required" } } : {}),
    // Mini-sized (a mini training took 43-209 s, the whole mini report 0.8 GB at its peak); the real
    // profile's values: pipeline/definitions/resources.ts.
    resources: { cpus: 1, memoryGiB: 2, expectedMinutes: 15 },
  };
}

const modelOutputs = { model: dir("dpr:model", "model") };
/** Scheduling hint: training dominates the dense graph and scales with its epochs. */
const trainingCost = (p: { epochs: number }): number => 10 + 20 * p.epochs;

/** θ0 for the mini benchmark: a random tiny BERT trained on standalone questions (the role of DPR-NQ). */
export function pretrainDprDef(gpuRequired = false) {
  return defineStepWith({ gpuRequired }, {
    id: "pretrain-dpr",
    version: 1,
    source: import.meta.url,
    description: "Train a DPR bi-encoder from a random BERT (vocabulary size from the vocab input).",
    params: z.object({ ...trainerConfig, init: z.object({ kind: z.literal("random"), bert_config: bertConfigParams.optional() }).strict() }).strict(),
    inputs: { examples: "dpr:examples", passages: "tokens:passages", vocab: "wordpiece:vocab" },
    outputs: modelOutputs,
    runtime: trainerRuntime(["--vocab", "{in:vocab}/vocab.txt"], { gpu: gpuRequired ? "required" : "optional" }),
    cost: trainingCost,
  });
}

/** A DPR bi-encoder trained from an earlier model (θ0): IBN, IHN iterations, BM25/CQR/model negatives. */
export function trainDprDef(gpuRequired = false) {
  return defineStepWith({ gpuRequired }, {
    id: "train-dpr",
    version: 1,
    source: import.meta.url,
    description: "Fine-tune a DPR bi-encoder from an initial model on conversational examples.",
    params: z.object(trainerConfig).strict(),
    inputs: { examples: "dpr:examples", passages: "tokens:passages", init: "dpr:model" },
    outputs: modelOutputs,
    runtime: trainerRuntime(["--init-from", "{in:init}"], { gpu: gpuRequired ? "required" : "optional" }),
    cost: trainingCost,
  });
}

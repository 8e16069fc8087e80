/**
 * A tiny DPR training as a pipeline step, for the executor tests that compare what two ways of
 * running it compute (numerics-pins, warm-python): the real trainer over fixed synthetic inputs
 * (their path is in its argv, hence in its key), a random 1-layer BERT, a few seconds per epoch.
 */
import { join } from "node:path";
import { z } from "zod";
import { defineStep, dir } from "../../pipeline/engine/step.ts";
import type { ContainerRuntime } from "../../pipeline/engine/step.ts";
import { trainingConfig, TRAINER_MODULE } from "../../steps/training/contract.ts";
import { pythonArgv } from "../../steps/pytrain/launch.ts";
import { TEST_BERT, writeSyntheticInputs } from "../training/python.ts";
import { tempDir } from "../engine/helpers.ts";

/** The step `train-tiny`; `gpu` as the real trainer declares it, or absent (a CPU-only step). */
export function tinyTrainingStep(gpu?: ContainerRuntime["gpu"]) {
  const inputs = join(tempDir("cspipe-tiny-train-"), "in");
  writeSyntheticInputs(inputs);
  return defineStep({
    id: "train-tiny",
    version: 1,
    source: import.meta.url,
    params: z.record(z.string(), z.unknown()),
    inputs: {},
    outputs: { model: dir("dpr:model", "model") },
    runtime: {
      type: "container",
      image: `x@sha256:${"c".repeat(64)}`,
      argv: pythonArgv(TRAINER_MODULE, ["--config", "{params}", "--inputs", inputs, "--out", "{out:model}"]),
      pythonModules: ["torch", "numpy"],
      ...(gpu !== undefined ? { gpu } : {}),
      resources: { cpus: 1 },
    },
  });
}

/** Its params: `epochs` epochs of batch 8 with one hard negative, seed 7, no ONNX export. */
export function tinyTrainingParams(epochs: number): Record<string, unknown> {
  return trainingConfig({ lr: 2e-3, epochs, batch_size: 8, n_hard_negatives: 1, seed: 7, export_onnx: false, parity_check_transformers: false, init: { kind: "random", bert_config: TEST_BERT } });
}

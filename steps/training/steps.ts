/**
 * DPR training as pipeline steps:
 * - `assemble-dpr-examples` (in-process) turns tokenized queries, the tokenized collection,
 *   the turns' gold passages and, when given, mined negatives and a dev collection into the
 *   trainer's input .npy files (steps/training/README.md);
 * - `pretrain-dpr` and `train-dpr` are container steps running the trainer (training.dpr.train)
 *   (torch + numpy only) in a pinned image under Dagger, or with a host python3 that has
 *   torch under the local executor. `pretrain-dpr` starts from a random tiny BERT (the mini
 *   benchmark's θ0); `train-dpr` starts from an earlier model (θ0 for every IHN iteration).
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { defineStepWith } from "../../pipeline/engine/def-identity.ts";
import { defineStep, dir, optional, type ContainerRuntime } from "../../pipeline/engine/step.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { canonicalJson } from "../../pipeline/engine/canonical.ts";
import { writeNpy } from "../lib/npy.ts";
import { readNegatives } from "../mining/steps.ts";
import { buildExamples } from "./examples.ts";
import { assembleParams, readGold, readLines, writeRows } from "./assemble-common.ts";
import { sameVocabulary, tokensVocab } from "../encoding/vocab-identity.ts";
import { TRAINER_MODULE } from "./contract.ts";
import { trainerParamsShape } from "./config-schema.ts";
import { BERT, modelConfigParams } from "../pytrain/model-configs.ts";
import { pythonArgv } from "../pytrain/launch.ts";

async function assemble(
  ctx: {
    params: z.output<typeof assembleParams>;
    inputs: { trainQueries: string; devQueries: string; passages: string; turns: string; negatives: string | undefined; devCollection: string | undefined };
    outputs: { examples: string };
    log(line: string): void;
  },
): Promise<void> {
  const { trainSplit, devSplit, k, devPassages, seed } = ctx.params;
  // Queries and passages must share a vocabulary; the trainer checks it again against its initial model.
  const vocabDigest = sameVocabulary([ctx.inputs.passages, ctx.inputs.trainQueries, ctx.inputs.devQueries].map(tokensVocab));
  const { trainGold, devGold } = await readGold(ctx.inputs.turns, trainSplit, devSplit);
  const pids = await readLines(join(ctx.inputs.passages, "pids.txt"));
  const rowOf = new Map(pids.map((p, i) => [p, i]));
  const trainQids = await readLines(join(ctx.inputs.trainQueries, "qids.txt"));
  const devQids = await readLines(join(ctx.inputs.devQueries, "qids.txt"));
  const negatives = ctx.inputs.negatives === undefined ? undefined : await readNegatives(ctx.inputs.negatives);
  const devCollection = ctx.inputs.devCollection === undefined ? undefined : await readLines(ctx.inputs.devCollection);
  const ex = buildExamples({ trainQids, devQids, trainGold, devGold, rowOf, passages: pids.length, k, devPassages, seed, ...(negatives ? { negatives } : {}), ...(devCollection ? { devCollection } : {}) });
  if (devCollection !== undefined && ex.counts["dev_collection_missing"] === devCollection.length) {
    throw new InputError(`none of the ${devCollection.length} released dev passages is in the collection`, { file: ctx.inputs.devCollection!, fix: "use the dev collection of the same release as the passages" });
  }
  if (ex.trainRows.length === 0) {
    throw new InputError(`no training turn has a gold passage in the collection`, { file: ctx.inputs.turns, field: "gold_passage_ids", fix: "check that the turns and passages come from the same dataset" });
  }
  if (ex.devRows.length === 0) throw new InputError(`no '${devSplit}' turn has a gold passage in the collection`, { file: ctx.inputs.turns, field: "split", fix: "pick a dev split with gold passages" });
  const out = ctx.outputs.examples;
  writeRows(join(ctx.inputs.trainQueries, "ids.npy"), ex.trainRows, join(out, "train_query_ids.npy"));
  writeNpy(join(out, "train_pos.npy"), { dtype: "int32", shape: [ex.pos.length], data: ex.pos });
  writeNpy(join(out, "train_gold.npy"), { dtype: "int32", shape: [ex.pos.length, ex.gold.cols], data: ex.gold.data });
  if (ex.neg) writeNpy(join(out, "train_neg.npy"), { dtype: "int32", shape: [ex.pos.length, ex.neg.cols], data: ex.neg.data });
  writeRows(join(ctx.inputs.devQueries, "ids.npy"), ex.devRows, join(out, "dev_query_ids.npy"));
  writeRows(join(ctx.inputs.passages, "ids.npy"), ex.devPassageRows, join(out, "dev_passage_ids.npy"));
  writeRows(join(ctx.inputs.passages, "type_ids.npy"), ex.devPassageRows, join(out, "dev_passage_type_ids.npy"));
  writeNpy(join(out, "dev_gold.npy"), { dtype: "int32", shape: [ex.devRows.length, ex.devGold.cols], data: ex.devGold.data });
  await writeFile(join(out, "meta.json"), canonicalJson({ counts: ex.counts, negatives: ex.neg !== null, k, devPassages, seed, ...(vocabDigest ? { vocabDigest } : {}) }, 2) + "\n");
  ctx.log(Object.entries(ex.counts).map(([key, v]) => `${key}=${v}`).join(" "));
}

/**
 * Examples for in-batch-negative training; with `negatives`, also the top-k mined negatives of
 * each example (train_neg.npy); with `devCollection`, a released (or BM25-hard) dev collection's
 * passage ids instead of a sampled one.
 */
export const assembleExamples = defineStep({
  id: "assemble-dpr-examples",
  version: 1,
  source: import.meta.url,
  description: "The DPR trainer's input files: training examples (positive, gold, mined negatives if given), dev queries and the dev collection (given, or sampled).",
  params: assembleParams,
  inputs: {
    trainQueries: "tokens:queries",
    devQueries: "tokens:queries",
    passages: "tokens:passages",
    turns: "parquet:turns",
    negatives: optional("parquet:negatives"),
    devCollection: optional("ids:passages"),
  },
  outputs: { examples: dir("dpr:examples", "examples") },
  runtime: { type: "in-process", run: assemble },
});

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

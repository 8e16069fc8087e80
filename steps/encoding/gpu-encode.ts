/**
 * Encoding in torch, as a program the executor starts: on GPUs for the real collections (QReCC's
 * 54M passages would take weeks per model through onnxruntime on CPU), and on the CPU for the
 * mini benchmark, where the executor's pinned kernels make the embeddings the same bytes on every
 * x86-64 CPU with AVX2 (onnxruntime's MLAS picks its GEMM kernel by the CPU and cannot be pinned:
 * pipeline/definitions/dense/retrieval.ts):
 * - `verify-onnx-parity` (in-process): a model's ONNX encoders against the parity fixtures the
 *   trainer's export wrote, in onnxruntime-node (onnx/parity.ts); every torch encode step of the
 *   model takes its report as an input, so no collection is encoded from a model whose export
 *   fails, and the ONNX files CPU users get are checked in every run. The report holds the
 *   verdict only (the measured differences, which depend on the CPU's kernels, go to the log), so
 *   the encode steps' keys are the same on every machine;
 * - `encode-passages-torch` (one step per shard) and `encode-queries-torch`: container steps
 *   running encoding.gpu.encode (torch; fp16/bf16 autocast on CUDA, float32 on CPU; batches
 *   sorted by length) with the same outputs as the ONNX steps `encode-passages` /
 *   `encode-queries` (steps/dense/steps.ts), so the index and search steps downstream are the
 *   same. Throughput goes to the log.
 */
import { writeFileSync } from "node:fs";
import { z } from "zod";
import { defineStep, dir, file, type ContainerRuntime } from "../../pipeline/engine/step.ts";
import { defineStepWith } from "../../pipeline/engine/def-identity.ts";
import { verifyOnnxParityOfModel, PARITY_ATOL, type ParityCheck } from "./onnx/parity.ts";
import { TRAINING_IMAGE } from "../training/steps.ts";
import { pythonArgv } from "../pytrain/launch.ts";

export const GPU_ENCODE_MODULE = "encoding.gpu.encode";

export const verifyOnnxParityStep = defineStep({
  id: "verify-onnx-parity",
  version: 1,
  source: import.meta.url,
  description: "A model's ONNX query and passage encoders against the trainer's parity fixtures (onnxruntime-node); fails above the tolerance.",
  params: z.object({ atol: z.number().positive().default(PARITY_ATOL) }).strict(),
  inputs: { model: "dpr:model" },
  outputs: { report: file("report:onnx-parity", "parity.json") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const checks: ParityCheck[] = [];
      for (const encoder of ["query_encoder", "passage_encoder"] as const) {
        const c = await verifyOnnxParityOfModel(ctx.inputs.model, encoder, { providers: "cpu", intraOpThreads: 1 }, ctx.params.atol);
        ctx.log(c.note);
        checks.push(c);
      }
      writeFileSync(ctx.outputs.report, JSON.stringify(parityReport(ctx.params.atol, checks), null, 2) + "\n");
    },
  },
});

/**
 * The report's content (pure): the tolerance and, per encoder, the rows checked and that they
 * passed (verifyOnnxParityOfModel throws otherwise). Not the measured difference: it depends on
 * the kernels onnxruntime picks for the CPU, and the report is an input of every torch encode step.
 */
export function parityReport(atol: number, checks: readonly ParityCheck[]): { atol: number; checks: { encoder: string; rows: number; passed: true }[] } {
  return { atol, checks: checks.map((c) => ({ encoder: c.encoder, rows: c.rows, passed: true as const })) };
}

const encodeParams = {
  /** Rows per batch, and padded tokens per batch (rows x the batch's longest row). */
  batchSize: z.number().int().positive().default(1024),
  maxTokens: z.number().int().positive().default(262_144),
  /** Autocast dtype on CUDA (float32 on CPU under --allow-cpu). */
  dtype: z.enum(["fp16", "bf16", "fp32"]).default("fp16"),
  /** Longest rows first (fewer padded tokens per batch; the first batch shows the peak memory). */
  sortByLength: z.boolean().default(true),
  /** The parity fixture on this device in float32: max abs diff to the export's torch output. */
  fixtureTolerance: z.number().positive().default(1e-3),
  /** ... and in `dtype`: every fixture row's cosine to float32 at least this. */
  minCosine: z.number().min(-1).max(1).default(0.999),
};

function encodeRuntime(role: "passages" | "queries", gpuRequired: boolean): ContainerRuntime {
  return {
    type: "container",
    image: TRAINING_IMAGE,
    argv: pythonArgv(GPU_ENCODE_MODULE, ["--role", role, "--params", "{params}", "--model", "{in:model}", "--tokens", "{in:tokens}", "--out", "{out:embeddings}"]),
    pythonModules: ["torch", "numpy"],
    gpu: { count: 1, required: gpuRequired },
    // Mini-sized (a mini collection of 16,000 passages encodes in seconds on one thread); the real
    // profile's values: pipeline/definitions/resources.ts, given by each real use.
    resources: { cpus: 1, memoryGiB: 2, expectedMinutes: 2 },
    // fp16 on a GPU and float32 on CPU (--allow-cpu) give different numbers, as for training.
  };
}


/** One shard of a collection through the passage encoder in torch (a GPU where the step gets one). */
export function encodePassagesTorchDef(gpuRequired: boolean) {
  return defineStepWith({ gpuRequired }, {
    id: "encode-passages-torch",
    version: 1,
    source: import.meta.url,
    description: "One shard of the passages through the DPR passage encoder in torch (GPU: fp16 by default; CPU: float32 under pinned kernels; length-sorted batches) -> float32 embeddings.",
    params: z
      .object({ shard: z.number().int().min(0), shards: z.number().int().min(1), ...encodeParams })
      .strict()
      .refine((p) => p.shard < p.shards, { message: "shard must be < shards", path: ["shard"] }),
    inputs: { model: "dpr:model", tokens: "tokens:passages", parity: "report:onnx-parity" },
    outputs: { embeddings: dir("embeddings:passages", "embeddings") },
    runtime: encodeRuntime("passages", gpuRequired),
    cost: 100,
  });
}

/** A query set through the query encoder in torch (a GPU where the step gets one). */
export function encodeQueriesTorchDef(gpuRequired: boolean) {
  return defineStepWith({ gpuRequired }, {
    id: "encode-queries-torch",
    version: 1,
    source: import.meta.url,
    description: "Query token ids through the DPR query encoder in torch (GPU or pinned CPU) -> float32 embeddings.",
    params: z.object(encodeParams).strict(),
    inputs: { model: "dpr:model", tokens: "tokens:queries", parity: "report:onnx-parity" },
    outputs: { embeddings: dir("embeddings:queries", "embeddings") },
    runtime: encodeRuntime("queries", gpuRequired),
    cost: 20,
  });
}


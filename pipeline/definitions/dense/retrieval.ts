/**
 * How a model's collection is indexed and searched, per setup (DenseSetup.retrieval): a
 * registry of paths with the same outputs, so models.ts does not branch.
 * - `pinned` (mini): `verify-onnx-parity` once per model, then `encode-passages` per shard and
 *   `encode-queries` through the torch encode program (encode-*-torch: float32, on the CPU under
 *   the executor's pinned kernels, or on a GPU where the step gets one, as the trainings), a
 *   flat-IP index per shard, and one `search-dense` over every shard. Same key, same bytes on
 *   every x86-64 CPU with AVX2, which onnxruntime in-process cannot give (the mini path used
 *   it until 2026-11-30: `encode-passages` / `encode-queries` of steps/dense/steps.ts, which
 *   `diagnose` still uses for a user's own ONNX files): its MLAS picks the GEMM kernel by the
 *   CPU (AVX-512F, else AVX2+FMA) and has no switch to pin it, so its embeddings differ in the
 *   last bits between such CPUs (its key records the kernel family), and a last bit that
 *   reorders two mined negatives makes another IHN model. Measured 2026-11-30: θ0's passage
 *   encoder in onnxruntime-node gave other bytes natively (AVX-512) than under qemu-user
 *   emulating a Haswell (AVX2), the torch program the same bytes under both; and the default
 *   run on an AVX-512 machine gave other IHN models and one other verdict than the README's run
 *   on an AVX2 one (README, "Same key, same bytes").
 * - `gpu-sharded` (the real collections): `verify-onnx-parity` once per model, then
 *   `encode-passages-gpu` per shard and `encode-queries-gpu` (torch on a GPU, fp16; each takes
 *   the parity report, so nothing is encoded from a model whose export fails), a flat-IP index
 *   per shard, `search-dense-shard` per shard (memory: one shard) and `merge-dense-hits`. A new
 *   query set reruns only its query encoding, the shard searches and the merge.
 * The step names of the `pinned` path are the ones the mini store was built with.
 */
import { use, type OutputRef } from "../../engine/step.ts";
import { buildFlatIpIndex, searchDense } from "../../../steps/dense/steps.ts";
import { mergeDenseHits, searchDenseShard } from "../../../steps/dense/shard-steps.ts";
import { encodePassagesTorchDef, encodeQueriesTorchDef, verifyOnnxParityStep } from "../../../steps/encoding/gpu-encode.ts";
import { REAL_RESOURCES } from "../resources.ts";

type Model = OutputRef<"dpr:model">;
/** A model's index shards, in shard order. */
type IndexShards = readonly OutputRef<"faiss:flat-ip">[];

export interface IndexRequest {
  /** Step-name suffix: `<dataset tag>.<model label>`. */
  readonly name: string;
  readonly model: Model;
  readonly passages: OutputRef<"tokens:passages">;
  readonly shards: number;
}

export interface SearchRequest {
  /** Step-name suffix: `<dataset tag>.<model label>.<form>.<split>`. */
  readonly name: string;
  readonly model: Model;
  readonly queries: OutputRef<"tokens:queries">;
  readonly index: IndexShards;
  readonly shards: number;
  readonly k: number;
  readonly tag: string;
}

export interface RetrievalPath {
  /** The index shards (0 .. n-1) of the model's passage embeddings. */
  index(r: IndexRequest): IndexShards;
  /** The top-k run of the model's query embeddings over those shards. */
  search(r: SearchRequest): OutputRef<"parquet:run">;
}

/** One search over every shard's index (the pinned path; the GPU path searches shard by shard). */
function searchAll(name: string, queries: OutputRef<"embeddings:queries">, index: IndexShards, k: number, tag: string): OutputRef<"parquet:run"> {
  return use(searchDense, { name: `search-dense.${name}`, params: { k, tag }, inputs: { queries, shards: index } }).out.run;
}

const flatIp = (name: string, shard: number, embeddings: OutputRef<"embeddings:passages">) =>
  use(buildFlatIpIndex, { name: `build-flat-ip-index.${name}.${shard}`, params: {}, inputs: { embeddings }, resources: REAL_RESOURCES["build-flat-ip-index"] }).out.index;

/**
 * The model's ONNX export checked (named after the step that made the model). Built at each use:
 * the engine merges the structurally identical copies into one step.
 */
const parityOf = (model: Model): OutputRef<"report:onnx-parity"> =>
  use(verifyOnnxParityStep, { name: `verify-onnx-parity.${model.step.name}`, params: {}, inputs: { model } }).out.report;

/**
 * float32 on a GPU too (the mini models are small; fp16 would only add a numerics difference), in
 * batches of 32 rows: on one CPU thread the program's GPU default of 1,024 rows encoded 4,000 mini-nq
 * passages at 100 passages/s, 32 rows at 568/s (16: 521, 64: 529, 128: 354; 2026-11-30, θ0, this
 * project's 2-core AMD EPYC under load 7).
 */
const PINNED_ENCODE = { dtype: "fp32", batchSize: 32 } as const;
/** The mini path's torch steps use a GPU where there is one and the CPU otherwise, as its trainings. */
const GPU_OPTIONAL = false;

const pinned: RetrievalPath = {
  index({ name, model, passages, shards }) {
    const parity = parityOf(model);
    return Array.from({ length: shards }, (_, shard) => {
      const emb = use(encodePassagesTorchDef(GPU_OPTIONAL), { name: `encode-passages.${name}.${shard}`, params: { shard, shards, ...PINNED_ENCODE }, inputs: { model, tokens: passages, parity } });
      return flatIp(name, shard, emb.out.embeddings);
    });
  },
  search({ name, model, queries, index, k, tag }) {
    const q = use(encodeQueriesTorchDef(GPU_OPTIONAL), { name: `encode-queries.${name}`, params: PINNED_ENCODE, inputs: { model, tokens: queries, parity: parityOf(model) } });
    return searchAll(name, q.out.embeddings, index, k, tag);
  },
};

/** GPU steps require a GPU (planning refuses without one unless --allow-cpu), as the real trainings do. */
const GPU_REQUIRED = true;

/** The real data's path: its steps carry the real profile's resources (../resources.ts). */
const gpuSharded: RetrievalPath = {
  index({ name, model, passages, shards }) {
    const parity = parityOf(model);
    return Array.from({ length: shards }, (_, shard) => {
      const emb = use(encodePassagesTorchDef(GPU_REQUIRED), { name: `encode-passages-gpu.${name}.${shard}`, params: { shard, shards }, inputs: { model, tokens: passages, parity }, resources: REAL_RESOURCES["encode-passages-torch"] });
      return flatIp(name, shard, emb.out.embeddings);
    });
  },
  search({ name, model, queries, index, k, tag }) {
    const q = use(encodeQueriesTorchDef(GPU_REQUIRED), { name: `encode-queries-gpu.${name}`, params: {}, inputs: { model, tokens: queries, parity: parityOf(model) }, resources: REAL_RESOURCES["encode-queries-torch"] }).out.embeddings;
    const hits = index.map((shard, s) => use(searchDenseShard, { name: `search-dense-shard.${name}.shard${s}`, params: { k }, inputs: { queries: q, index: shard }, resources: REAL_RESOURCES["search-dense-shard"] }).out.hits);
    return use(mergeDenseHits, { name: `merge-dense-hits.${name}`, params: { k, tag }, inputs: { queries: q, shards: hits }, resources: REAL_RESOURCES["merge-dense-hits"] }).out.run;
  },
};

export const RETRIEVAL_PATHS = { pinned, "gpu-sharded": gpuSharded } as const satisfies Record<string, RetrievalPath>;
export type RetrievalKind = keyof typeof RETRIEVAL_PATHS;

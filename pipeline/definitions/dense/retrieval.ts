/**
 * How a model's collection is indexed and searched, per setup (DenseSetup.retrieval): a
 * registry of two paths with the same outputs, so models.ts does not branch.
 * - `onnx` (mini, and anyone on CPU): `encode-passages` per shard in onnxruntime-node, a
 *   flat-IP index per shard, `encode-queries`, and one `search-dense` over every shard.
 * - `gpu-sharded` (the real collections): `verify-onnx-parity` once per model, then
 *   `encode-passages-gpu` per shard and `encode-queries-gpu` (torch on a GPU, fp16; each takes
 *   the parity report, so nothing is encoded from a model whose export fails), a flat-IP index
 *   per shard, `search-dense-shard` per shard (memory: one shard) and `merge-dense-hits`. A new
 *   query set reruns only its query encoding, the shard searches and the merge.
 * The step names of the `onnx` path are the ones the mini store was built with: keep them.
 */
import { use, type OutputRef } from "../../engine/step.ts";
import { buildFlatIpIndex, encodePassages, encodeQueries, searchDense } from "../../../steps/dense/steps.ts";
import { mergeDenseHits, searchDenseShard } from "../../../steps/dense/shard-steps.ts";
import { encodePassagesGpuDef, encodeQueriesGpuDef, verifyOnnxParityStep } from "../../../steps/encoding/gpu-encode.ts";
import { memo } from "../memo.ts";
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

const onnx: RetrievalPath = {
  index({ name, model, passages, shards }) {
    return Array.from({ length: shards }, (_, shard) => {
      const emb = use(encodePassages, { name: `encode-passages.${name}.${shard}`, params: { shard, shards }, inputs: { model, tokens: passages } });
      return use(buildFlatIpIndex, { name: `build-flat-ip-index.${name}.${shard}`, params: {}, inputs: { embeddings: emb.out.embeddings }, resources: REAL_RESOURCES["build-flat-ip-index"] }).out.index;
    });
  },
  search({ name, model, queries, index, k, tag }) {
    const q = use(encodeQueries, { name: `encode-queries.${name}`, params: {}, inputs: { model, tokens: queries } });
    return use(searchDense, { name: `search-dense.${name}`, params: { k, tag }, inputs: { queries: q.out.embeddings, shards: index } }).out.run;
  },
};

/** The model's ONNX export checked once (named after the step that made the model). */
const parityOf = (model: Model): OutputRef<"report:onnx-parity"> =>
  memo(["onnx-parity", model.step.name], () => use(verifyOnnxParityStep, { name: `verify-onnx-parity.${model.step.name}`, params: {}, inputs: { model } }).out.report);

/** GPU steps require a GPU (planning refuses without one unless --allow-cpu), as the real trainings do. */
const GPU_REQUIRED = true;

/** The real data's path: its steps carry the real profile's resources (../resources.ts). */
const gpuSharded: RetrievalPath = {
  index({ name, model, passages, shards }) {
    const parity = parityOf(model);
    return Array.from({ length: shards }, (_, shard) => {
      const emb = use(encodePassagesGpuDef(GPU_REQUIRED), { name: `encode-passages-gpu.${name}.${shard}`, params: { shard, shards }, inputs: { model, tokens: passages, parity }, resources: REAL_RESOURCES["encode-passages-gpu"] });
      return use(buildFlatIpIndex, { name: `build-flat-ip-index.${name}.${shard}`, params: {}, inputs: { embeddings: emb.out.embeddings }, resources: REAL_RESOURCES["build-flat-ip-index"] }).out.index;
    });
  },
  search({ name, model, queries, index, k, tag }) {
    const q = use(encodeQueriesGpuDef(GPU_REQUIRED), { name: `encode-queries-gpu.${name}`, params: {}, inputs: { model, tokens: queries, parity: parityOf(model) }, resources: REAL_RESOURCES["encode-queries-gpu"] }).out.embeddings;
    const hits = index.map((shard, s) => use(searchDenseShard, { name: `search-dense-shard.${name}.shard${s}`, params: { k }, inputs: { queries: q, index: shard }, resources: REAL_RESOURCES["search-dense-shard"] }).out.hits);
    return use(mergeDenseHits, { name: `merge-dense-hits.${name}`, params: { k, tag }, inputs: { queries: q, shards: hits }, resources: REAL_RESOURCES["merge-dense-hits"] }).out.run;
  },
};

export const RETRIEVAL_PATHS = { onnx, "gpu-sharded": gpuSharded } as const satisfies Record<string, RetrievalPath>;
export type RetrievalKind = keyof typeof RETRIEVAL_PATHS;

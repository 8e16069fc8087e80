/**
 * Search over a corpus split into index shards: one shard in memory at a time, per-shard
 * top-k, merged into the global top-k in (-score, passage id) order (thin adapter).
 */
import { InputError } from "../../pipeline/engine/errors.ts";
import type { BackendChoice, DenseBackend } from "./backend.ts";
import { loadFlatIP } from "./faiss-index.ts";
import type { FlatIPIndex } from "./faiss-index.ts";
import { mergeShardTopK } from "./merge.ts";
import type { Hit, PassageId, ShardResult } from "./merge.ts";

export interface ShardedSearchResult {
  /** Per query, at most k hits, best first. */
  readonly hits: Hit[][];
  readonly backend: DenseBackend;
  readonly reason: string;
}

export interface ShardedSearchOptions {
  readonly backend?: BackendChoice;
  readonly batchSize?: number;
  /** done/total counted in query-shard pairs. */
  readonly onProgress?: (done: number, total?: number) => void;
}

function checkIds(index: FlatIPIndex, ids: ArrayLike<PassageId>, name: string): void {
  if (ids.length !== index.ntotal) {
    throw new InputError(`shard has ${index.ntotal} vectors but ${ids.length} passage ids`, {
      file: name,
      field: "ids",
      fix: "pass the ids of exactly the passages encoded into this shard, in row order",
    });
  }
}

function searchOne(index: FlatIPIndex, ids: ArrayLike<PassageId>, queries: Float32Array, k: number, s: number, nShards: number, opts: ShardedSearchOptions): ShardResult {
  const nq = queries.length / index.dim;
  const topk = index.search(queries, k, {
    ...(opts.batchSize !== undefined ? { batchSize: opts.batchSize } : {}),
    ...(opts.onProgress !== undefined ? { onProgress: (d: number) => opts.onProgress?.(s * nq + d, nShards * nq) } : {}),
  });
  return { topk, ids };
}

/** Searches indexes already in memory. All shards must share one dimension. */
export function searchIndexes(
  shards: readonly { readonly index: FlatIPIndex; readonly ids: ArrayLike<PassageId> }[],
  queries: Float32Array,
  k: number,
  opts: ShardedSearchOptions = {},
): ShardedSearchResult {
  if (shards.length === 0) throw new InputError("no index shards to search", { field: "shards" });
  const first = shards[0]!.index;
  const parts = shards.map(({ index, ids }, s) => {
    if (index.dim !== first.dim) throw new InputError(`shard ${s} has dimension ${index.dim}, shard 0 has ${first.dim}`, { field: "shards" });
    checkIds(index, ids, `shard ${s}`);
    return searchOne(index, ids, queries, k, s, shards.length, opts);
  });
  return { hits: mergeShardTopK(parts, k), backend: first.backend, reason: first.reason };
}

/** Loads each index file in turn (only one shard in memory), searches it, merges. */
export function searchShardFiles(
  shards: readonly { readonly path: string; readonly ids: ArrayLike<PassageId> }[],
  queries: Float32Array,
  k: number,
  opts: ShardedSearchOptions = {},
): ShardedSearchResult {
  if (shards.length === 0) throw new InputError("no index shards to search", { field: "shards" });
  const parts: ShardResult[] = [];
  let backend: DenseBackend | undefined;
  let reason = "";
  let dim = -1;
  shards.forEach(({ path, ids }, s) => {
    const index = loadFlatIP(path, opts.backend !== undefined ? { backend: opts.backend } : {});
    if (dim >= 0 && index.dim !== dim) throw new InputError(`dimension ${index.dim} differs from the first shard's ${dim}`, { file: path });
    dim = index.dim;
    backend = index.backend;
    reason = index.reason;
    checkIds(index, ids, path);
    parts.push(searchOne(index, ids, queries, k, s, shards.length, opts));
  });
  return { hits: mergeShardTopK(parts, k), backend: backend!, reason };
}

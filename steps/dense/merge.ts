/**
 * Merging per-shard top-k lists into one global top-k (pure).
 *
 * Each shard is searched on its own (rows 0..n_s-1) and knows which passage id each row
 * holds. The merged list of every query is the k best hits over all shards in the global
 * order (-score, passage id ascending), so the result does not depend on how the corpus was
 * sharded, as long as each shard kept at least k hits per query.
 */
import { InputError } from "../../pipeline/engine/errors.ts";
import { assertK } from "./topk.ts";
import type { TopK } from "./topk.ts";

/** A passage id: all ids of one merge must be of one kind (numbers, or strings). */
export type PassageId = string | number;

export interface Hit {
  readonly id: PassageId;
  readonly score: number;
}

/** One shard's search result and its row -> passage id mapping (`ids[row]`). */
export interface ShardResult {
  readonly topk: TopK;
  readonly ids: ArrayLike<PassageId>;
}

/** Ascending id order: numbers numerically, strings by UTF-16 code units (locale-free). */
export function compareIds(a: PassageId, b: PassageId): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  throw new InputError(`cannot order passage ids of mixed types (${JSON.stringify(a)} vs ${JSON.stringify(b)})`, {
    field: "ids",
    fix: "give every shard ids of the same type (all strings or all numbers)",
  });
}

/** The global ranking order: higher score first, then smaller passage id. */
export function compareHits(a: Hit, b: Hit): number {
  return b.score - a.score || compareIds(a.id, b.id);
}

/** Row ranges of consecutive shards from their sizes: shard s holds global rows [start, end). */
export function shardRanges(sizes: readonly number[]): { start: number; end: number }[] {
  let start = 0;
  return sizes.map((n, s) => {
    if (!Number.isInteger(n) || n < 0) throw new InputError(`shard ${s} has invalid size ${n}`, { field: "sizes" });
    const r = { start, end: start + n };
    start += n;
    return r;
  });
}

/**
 * Per-query global top-k over all shards. Hits with row -1 (padding) are skipped, so a query
 * may get fewer than k hits when the whole corpus is smaller than k. Throws if one passage id
 * shows up in two shards' results for the same query (shards must partition the corpus).
 */
export function mergeShardTopK(shards: readonly ShardResult[], k: number): Hit[][] {
  assertK(k);
  if (shards.length === 0) return [];
  const nq = shards[0]!.topk.nq;
  shards.forEach((s, i) => {
    if (s.topk.nq !== nq) {
      throw new InputError(`shard ${i} answered ${s.topk.nq} queries, shard 0 answered ${nq}`, { field: "shards", fix: "search every shard with the same queries" });
    }
  });
  const out: Hit[][] = [];
  for (let q = 0; q < nq; q++) {
    const cand: Hit[] = [];
    for (let si = 0; si < shards.length; si++) {
      const { topk, ids } = shards[si]!;
      const base = q * topk.k;
      for (let j = 0; j < topk.k; j++) {
        const row = topk.rows[base + j]!;
        if (row < 0) continue;
        if (row >= ids.length) {
          throw new InputError(`shard ${si} returned row ${row} but maps only ${ids.length} rows to passage ids`, {
            field: "ids",
            fix: "pass the passage ids of exactly the rows indexed in that shard",
          });
        }
        cand.push({ id: ids[row]!, score: topk.scores[base + j]! });
      }
    }
    cand.sort(compareHits);
    if (shards.length > 1) {
      const seen = new Set<PassageId>();
      for (const h of cand) {
        if (seen.has(h.id)) {
          throw new InputError(`passage id ${JSON.stringify(h.id)} appears in more than one shard`, {
            field: "ids",
            fix: "shards must partition the passages: give each passage to exactly one shard",
          });
        }
        seen.add(h.id);
      }
    }
    out.push(cand.slice(0, k));
  }
  return out;
}

/** Hits of a single (unsharded) top-k, in global (-score, id) order. */
export function topKToHits(topk: TopK, ids: ArrayLike<PassageId>): Hit[][] {
  return mergeShardTopK([{ topk, ids }], topk.k);
}

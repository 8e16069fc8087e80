/**
 * Per-shard hit lists of a sharded dense search, and their merge one shard at a time (pure).
 *
 * A shard's list of a query holds its best k hits in the global order (-score, passage id)
 * (merge.ts `compareHits`). Since the shards partition the passages, the global top k is the
 * top k of the union of the per-shard top k lists, and taking the top k is associative, so
 * folding shard after shard into a running top k gives exactly `mergeShardTopK` over all
 * shards at once, while holding only the running lists and one shard's.
 */
import { InputError } from "../../pipeline/engine/errors.ts";
import { compareHits, type Hit } from "./merge.ts";
import { assertK } from "./topk.ts";

/** The top k of two lists, each in (-score, id) order; throws on an id present in both. */
export function mergeTwo(a: readonly Hit[], b: readonly Hit[], k: number, where: string): Hit[] {
  const out: Hit[] = [];
  let i = 0;
  let j = 0;
  while (out.length < k && (i < a.length || j < b.length)) {
    const take = j >= b.length || (i < a.length && compareHits(a[i]!, b[j]!) <= 0) ? a[i++]! : b[j++]!;
    out.push(take);
  }
  if (a.length > 0 && b.length > 0) {
    const seen = new Set(a.map((h) => h.id));
    const dup = b.find((h) => seen.has(h.id));
    if (dup !== undefined) {
      throw new InputError(`passage id ${JSON.stringify(dup.id)} appears in more than one shard (${where})`, {
        field: "shards",
        fix: "shards must partition the passages: give each passage to exactly one shard",
      });
    }
  }
  return out;
}

/** Folds one shard's lists (one per query, in query order) into the running top-k lists, in place. */
export function foldShard(running: Hit[][], shard: readonly (readonly Hit[])[], k: number, shardName: string): void {
  assertK(k);
  if (shard.length !== running.length) {
    throw new InputError(`${shardName} holds hits of ${shard.length} queries, the query set has ${running.length}`, {
      field: shardName,
      fix: "search every shard with the same query embeddings",
    });
  }
  for (let q = 0; q < running.length; q++) running[q] = mergeTwo(running[q]!, shard[q]!, k, `${shardName}, query row ${q}`);
}

/**
 * A shard's lists from its stored form: `scores` float32 [nq * k] and `pids` (nq * k lines),
 * row-major, each query's entries best first, padding as score -Infinity with an empty id.
 */
export function listsFromRows(scores: Float32Array, pids: readonly string[], nq: number, k: number, file: string): Hit[][] {
  if (scores.length !== nq * k || pids.length !== nq * k) {
    throw new InputError(`expected ${nq} queries x ${k} hits, found ${scores.length} scores and ${pids.length} passage ids`, { file, fix: "rerun search-dense-shard" });
  }
  const out: Hit[][] = [];
  for (let q = 0; q < nq; q++) {
    const list: Hit[] = [];
    for (let j = 0; j < k; j++) {
      const score = scores[q * k + j]!;
      const id = pids[q * k + j]!;
      if (score === -Infinity) continue;
      if (id === "" || Number.isNaN(score)) throw new InputError(`query row ${q}, hit ${j}: ${id === "" ? "empty passage id" : "score NaN"}`, { file, fix: "rerun search-dense-shard" });
      const prev = list.at(-1);
      if (prev !== undefined && compareHits(prev, { id, score }) > 0) throw new InputError(`query row ${q}: hits not in (-score, id) order at hit ${j}`, { file, fix: "rerun search-dense-shard" });
      list.push({ id, score });
    }
    out.push(list);
  }
  return out;
}

import { test } from "node:test";
import assert from "node:assert/strict";
import { compareIds, mergeShardTopK, shardRanges, topKToHits } from "../../steps/dense/merge.ts";
import type { TopK } from "../../steps/dense/topk.ts";
import { bruteForceSearch } from "../../steps/dense/brute-force.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { randomMatrix } from "./fixtures.ts";

function topk(k: number, entries: [row: number, score: number][][]): TopK {
  const nq = entries.length;
  const rows = new Int32Array(nq * k).fill(-1);
  const scores = new Float32Array(nq * k).fill(-Infinity);
  entries.forEach((list, q) =>
    list.forEach(([r, s], j) => {
      rows[q * k + j] = r;
      scores[q * k + j] = s;
    }),
  );
  return { nq, k, rows, scores };
}

test("merges shards in (-score, id) order; equal scores ordered by passage id, not by shard", () => {
  const a = { topk: topk(2, [[[0, 0.9], [1, 0.5]]]), ids: ["p7", "p2"] };
  const b = { topk: topk(2, [[[1, 0.5], [0, 0.4]]]), ids: ["p1", "p3"] }; // row 1 = p3 (0.5), row 0 = p1 (0.4)
  const hits = mergeShardTopK([b, a], 3);
  assert.deepEqual(hits, [
    [
      { id: "p7", score: Math.fround(0.9) },
      { id: "p2", score: 0.5 },
      { id: "p3", score: 0.5 },
    ],
  ]);
  assert.deepEqual(hits[0]!.map((h) => h.id), ["p7", "p2", "p3"]);
});

test("numeric ids compare numerically, strings by code units", () => {
  assert.ok(compareIds(9, 10) < 0);
  assert.ok(compareIds("10", "9") < 0);
  assert.ok(compareIds("B", "a") < 0);
  assert.throws(() => compareIds(1, "1"), InputError);
});

test("padding rows are skipped; fewer than k hits when the corpus is small", () => {
  const hits = mergeShardTopK([{ topk: topk(3, [[[0, 1], [-1, -Infinity], [-1, -Infinity]]]), ids: [42] }], 3);
  assert.deepEqual(hits, [[{ id: 42, score: 1 }]]);
});

test("a passage in two shards and an out-of-range row are input errors", () => {
  const t = topk(1, [[[0, 1]]]);
  assert.throws(() => mergeShardTopK([{ topk: t, ids: ["x"] }, { topk: t, ids: ["x"] }], 2), /appears in more than one shard/);
  assert.throws(() => mergeShardTopK([{ topk: topk(1, [[[3, 1]]]), ids: ["x"] }], 1), /returned row 3 but maps only 1 rows/);
  assert.throws(() => mergeShardTopK([{ topk: t, ids: ["x"] }, { topk: topk(1, [[[0, 1]], [[0, 1]]]), ids: ["y"] }], 1), /answered 2 queries/);
});

test("shardRanges gives consecutive row ranges", () => {
  assert.deepEqual(shardRanges([3, 0, 2]), [
    { start: 0, end: 3 },
    { start: 3, end: 3 },
    { start: 3, end: 5 },
  ]);
  assert.throws(() => shardRanges([1, -1]), /shard 1 has invalid size -1/);
});

test("sharded brute-force search merged equals the unsharded search", () => {
  const dim = 16;
  const n = 250;
  const corpus = randomMatrix(n, dim, 11);
  const queries = randomMatrix(9, dim, 12);
  const ids = Array.from({ length: n }, (_, i) => 1000 + i);
  const whole = topKToHits(bruteForceSearch(corpus, queries, dim, 20), ids);
  const parts = shardRanges([100, 1, 149]).map(({ start, end }) => ({
    topk: bruteForceSearch(corpus.subarray(start * dim, end * dim), queries, dim, 20),
    ids: ids.slice(start, end),
  }));
  assert.deepEqual(mergeShardTopK(parts, 20), whole);
  assert.equal(whole.length, 9);
  assert.equal(whole[0]!.length, 20);
});

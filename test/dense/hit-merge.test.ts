/** The shard-by-shard fold of per-shard top-k lists (steps/dense/hit-merge.ts), on hand-made lists. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { foldShard, listsFromRows, mergeTwo } from "../../steps/dense/hit-merge.ts";
import { mergeShardTopK, topKToHits, type Hit } from "../../steps/dense/merge.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { rng } from "./fixtures.ts";

const h = (id: string, score: number): Hit => ({ id, score });

test("mergeTwo keeps the top k in (-score, id) order; equal scores go to the smaller id whichever list holds it", () => {
  const a = [h("p2", 3), h("p5", 1)];
  const b = [h("p1", 3), h("p3", 2), h("p4", 1)];
  assert.deepEqual(mergeTwo(a, b, 4, "t"), [h("p1", 3), h("p2", 3), h("p3", 2), h("p4", 1)]);
  assert.deepEqual(mergeTwo(a, [], 1, "t"), [h("p2", 3)]);
  assert.deepEqual(mergeTwo([], [], 3, "t"), []);
});

test("an id in two shards is an error naming the shard and query", () => {
  assert.throws(() => mergeTwo([h("p1", 2)], [h("p9", 3), h("p1", 1)], 5, "shard1, query row 4"), (e: unknown) => e instanceof InputError && /"p1" appears in more than one shard \(shard1, query row 4\)/.test(e.message));
});

test("listsFromRows: padding (-Infinity, empty id) is skipped; empty ids, NaN and misordered hits are refused", () => {
  const scores = Float32Array.from([5, 4, -Infinity, 2, -Infinity, -Infinity]);
  assert.deepEqual(listsFromRows(scores, ["a", "b", "", "c", "", ""], 2, 3, "f"), [[h("a", 5), h("b", 4)], [h("c", 2)]]);
  assert.throws(() => listsFromRows(scores, ["a", "", "", "c", "", ""], 2, 3, "f"), /query row 0, hit 1: empty passage id/);
  assert.throws(() => listsFromRows(Float32Array.from([4, 5, 1]), ["a", "b", "c"], 1, 3, "f"), /not in \(-score, id\) order at hit 1/);
  assert.throws(() => listsFromRows(Float32Array.from([4, 4]), ["b", "a"], 1, 2, "f"), /not in \(-score, id\) order/);
  assert.throws(() => listsFromRows(scores, ["a"], 2, 3, "f"), /expected 2 queries x 3 hits, found 6 scores and 1 passage ids/);
});

test("folding shard after shard equals merging all shards at once (random shards with ties)", () => {
  const r = rng(11);
  const nq = 7;
  const k = 4;
  const shards = [0, 1, 2].map((s) => {
    const n = s === 2 ? 2 : 9; // the last shard holds fewer rows than k
    const depth = 6;
    const ids = Array.from({ length: n }, (_, i) => `d${s}-${i}`);
    const scores = new Float32Array(nq * depth).fill(-Infinity);
    const rows = new Int32Array(nq * depth).fill(-1);
    for (let q = 0; q < nq; q++) {
      const picked = Array.from({ length: n }, (_, i) => ({ row: i, score: Math.round(r() * 4) })).sort((x, y) => y.score - x.score || x.row - y.row).slice(0, depth);
      picked.forEach((p, j) => ((scores[q * depth + j] = p.score), (rows[q * depth + j] = p.row)));
    }
    return { topk: { nq, k: depth, scores, rows }, ids };
  });
  const once = mergeShardTopK(shards, k);
  const running: Hit[][] = Array.from({ length: nq }, () => []);
  shards.forEach((s, i) => foldShard(running, topKToHits(s.topk, s.ids).map((l) => l.slice(0, k)), k, `shard${i}`));
  assert.deepEqual(running, once);
  assert.throws(() => foldShard(running, [[]], k, "shard9"), /shard9 holds hits of 1 queries, the query set has 7/);
});

// steps/dense/rescore.ts: search-dense's exact rescoring, read by row instead of by query, must
// give exactly what the brute force gives over each query's candidates (rows and score bits),
// whichever way the rows are grouped into reads.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../../pipeline/engine/errors.ts";
import { bruteForceSearch } from "../../steps/dense/brute-force.ts";
import { writeFlatIPFile } from "../../steps/dense/faiss-index.ts";
import { dotF32, rescoreFromIndexFile } from "../../steps/dense/rescore.ts";
import { emptyTopK, type TopK } from "../../steps/dense/topk.ts";
import { tempDir } from "../engine/helpers.ts";
import { randomMatrix, rng } from "./fixtures.ts";

const dir = tempDir("cspipe-rescore-");

/** The rescoring as search-dense did it before rescore.ts: per query, brute force over its candidate rows. */
function perQueryReference(topk: TopK, corpus: Float32Array, queries: Float32Array, dim: number): TopK {
  const out = emptyTopK(topk.nq, topk.k);
  for (let q = 0; q < topk.nq; q++) {
    const rows = [...topk.rows.subarray(q * topk.k, (q + 1) * topk.k)].filter((r) => r >= 0).sort((a, b) => a - b);
    if (rows.length === 0) continue;
    const cand = new Float32Array(rows.length * dim);
    rows.forEach((r, i) => cand.set(corpus.subarray(r * dim, (r + 1) * dim), i * dim));
    const exact = bruteForceSearch(cand, queries.subarray(q * dim, (q + 1) * dim), dim, rows.length);
    for (let j = 0; j < rows.length; j++) {
      out.rows[q * topk.k + j] = rows[exact.rows[j]!]!;
      out.scores[q * topk.k + j] = exact.scores[j]!;
    }
  }
  return out;
}

/** Candidates as a backend returns them: k rows per query in no particular order, padded with -1. */
function candidates(nq: number, k: number, n: number, seed: number): TopK {
  const next = rng(seed);
  const t = emptyTopK(nq, k);
  for (let q = 0; q < nq; q++) {
    const m = q === 1 ? 0 : q === 2 ? Math.min(3, n) : Math.min(k, n); // query 1: none; query 2: padded
    const picked = new Set<number>();
    while (picked.size < m) picked.add(Math.floor(next() * n));
    [...picked].forEach((r, j) => (t.rows[q * k + j] = r));
  }
  return t;
}

test("dotF32 is the brute force's dot product, bit for bit (dims that are and are not multiples of 4)", () => {
  for (const dim of [1, 7, 16, 13, 768]) {
    const c = randomMatrix(40, dim, dim);
    const q = randomMatrix(1, dim, dim + 1);
    const bf = bruteForceSearch(c, q, dim, 40);
    for (let j = 0; j < 40; j++) assert.equal(dotF32(c, bf.rows[j]! * dim, q, 0, dim), bf.scores[j], `dim ${dim}, row ${bf.rows[j]}`);
  }
});

test("rescoring from the index file equals the per-query brute force, for every grouping of reads", () => {
  const dim = 13;
  const n = 500;
  const corpus = randomMatrix(n, dim, 7);
  // exact ties: rows 10, 20 and 30 hold the same vector, so equal scores must come out by row
  corpus.copyWithin(20 * dim, 10 * dim, 11 * dim);
  corpus.copyWithin(30 * dim, 10 * dim, 11 * dim);
  const file = join(dir, "index.faiss");
  writeFlatIPFile(file, corpus, dim);
  const queries = randomMatrix(9, dim, 8);
  const topk = candidates(9, 40, n, 9);
  for (const q of [0, 3]) [30, 10, 20].forEach((r, j) => (topk.rows[q * 40 + j] = r)); // the tied rows, out of order
  const want = perQueryReference(topk, corpus, queries, dim);
  for (const opts of [{}, { gapRows: 1, chunkBytes: 1 }, { gapRows: 1000, chunkBytes: 5 * dim * 4 }, { gapRows: 1000 }]) {
    const got = rescoreFromIndexFile(topk, queries, dim, file, opts);
    assert.deepEqual([...got.rows], [...want.rows], JSON.stringify(opts));
    assert.deepEqual([...got.scores], [...want.scores], JSON.stringify(opts));
  }
  const q0 = [...want.rows.subarray(0, 40)];
  assert.ok(q0.indexOf(10) < q0.indexOf(20) && q0.indexOf(20) < q0.indexOf(30), "ties by row");
  assert.deepEqual([...want.rows.subarray(40, 80)], new Array(40).fill(-1), "a query without candidates stays empty");
  assert.deepEqual([...want.rows.subarray(83, 120)], new Array(37).fill(-1), "padding stays padding");
});

test("a candidate past the end of the index, a dimension mismatch and a truncated file are errors naming the file", () => {
  const dim = 4;
  const file = join(dir, "small.faiss");
  writeFlatIPFile(file, randomMatrix(5, dim, 1), dim);
  const q = randomMatrix(1, dim, 2);
  const topk = emptyTopK(1, 2);
  topk.rows.set([1, 5]);
  assert.throws(() => rescoreFromIndexFile(topk, q, dim, file), (e: unknown) => e instanceof InputError && /candidate row 5 is past the end of the index \(5 vectors\)/.test(e.message) && e.message.includes(file));
  topk.rows.set([1, 2]);
  assert.throws(() => rescoreFromIndexFile(topk, randomMatrix(1, 3, 2), 3, file), (e: unknown) => e instanceof InputError && /index dimension 4, queries 3/.test(e.message));
  const truncated = join(dir, "truncated.faiss");
  const full = readFileSync(file);
  writeFileSync(truncated, full.subarray(0, full.length - 8));
  topk.rows.set([0, 4]);
  assert.throws(() => rescoreFromIndexFile(topk, q, dim, truncated), (e: unknown) => e instanceof InputError && e.message.includes(truncated));
});

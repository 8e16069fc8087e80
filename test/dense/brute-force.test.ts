import { test } from "node:test";
import assert from "node:assert/strict";
import { bruteForceSearch } from "../../steps/dense/brute-force.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { randomMatrix } from "./fixtures.ts";

// rows: r0 [1,0], r1 [0,1], r2 [.5,.5], r3 [1,0] (same vector as r0)
const corpus = new Float32Array([1, 0, 0, 1, 0.5, 0.5, 1, 0]);
// q0 [1, .1]: r0 1, r1 .1, r2 .55, r3 1     q1 [-1, 2]: r0 -1, r1 2, r2 .5, r3 -1
const queries = new Float32Array([1, 0.1, -1, 2]);

test("exact top-k with hand-computed scores; ties broken by row ascending", () => {
  const r = bruteForceSearch(corpus, queries, 2, 3);
  assert.equal(r.nq, 2);
  assert.equal(r.k, 3);
  assert.deepEqual([...r.rows], [0, 3, 2, 1, 2, 0]);
  assert.deepEqual([...r.scores], [1, 1, Math.fround(0.5 + 0.5 * Math.fround(0.1)), 2, 0.5, -1]);
});

test("k larger than the corpus pads with row -1 and -Infinity", () => {
  const r = bruteForceSearch(corpus, queries.subarray(0, 2), 2, 6);
  assert.deepEqual([...r.rows], [0, 3, 2, 1, -1, -1]);
  assert.deepEqual([...r.scores].slice(4), [-Infinity, -Infinity]);
});

test("query blocking does not change the result", () => {
  const c = randomMatrix(300, 24, 1);
  const q = randomMatrix(37, 24, 2);
  const a = bruteForceSearch(c, q, 24, 10, { queryBlock: 1 });
  const b = bruteForceSearch(c, q, 24, 10, { queryBlock: 16 });
  const d = bruteForceSearch(c, q, 24, 10, { queryBlock: 64 });
  assert.deepEqual(a, b);
  assert.deepEqual(a, d);
});

test("matches a naive sort of all scores", () => {
  const dim = 7; // not a multiple of the 4-way unrolling
  const c = randomMatrix(120, dim, 3);
  const q = randomMatrix(5, dim, 4);
  const r = bruteForceSearch(c, q, dim, 8);
  for (let qi = 0; qi < 5; qi++) {
    const all = Array.from({ length: 120 }, (_, row) => {
      let s = 0;
      for (let d = 0; d < dim; d++) s += c[row * dim + d]! * q[qi * dim + d]!;
      return { row, s: Math.fround(s) };
    }).sort((x, y) => y.s - x.s || x.row - y.row);
    assert.deepEqual([...r.rows.subarray(qi * 8, qi * 8 + 8)], all.slice(0, 8).map((x) => x.row));
  }
});

test("progress is reported per query block", () => {
  const seen: [number, number | undefined][] = [];
  bruteForceSearch(randomMatrix(10, 4, 5), randomMatrix(5, 4, 6), 4, 2, { queryBlock: 2, onProgress: (d, t) => seen.push([d, t]) });
  assert.deepEqual(seen, [[2, 5], [4, 5], [5, 5]]);
});

test("bad input is rejected before searching", () => {
  assert.throws(() => bruteForceSearch(new Float32Array([1, NaN, 0, 1]), queries, 2, 1), (e: unknown) => e instanceof InputError && /non-finite value NaN at row 0, column 1/.test(e.message));
  assert.throws(() => bruteForceSearch(corpus, new Float32Array([1, 2, 3]), 2, 1), /not a whole number of 2-d vectors/);
  assert.throws(() => bruteForceSearch(corpus, queries, 0, 1), /dimension must be a positive integer/);
  assert.throws(() => bruteForceSearch(corpus, queries, 2, 0), /k must be a positive integer/);
});

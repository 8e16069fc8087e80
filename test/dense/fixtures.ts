/** Deterministic random matrices and result comparison for the dense-search tests. */
import assert from "node:assert/strict";
import type { TopK } from "../../steps/dense/topk.ts";
import { mulberry32 } from "../../steps/lib/prng.ts";

/** Deterministic PRNG for fixtures (the project's one mulberry32). */
export const rng = mulberry32;


/** Uniform [-1, 1) float32 matrix [n, dim]. */
export function randomMatrix(n: number, dim: number, seed: number): Float32Array {
  const r = rng(seed);
  const out = new Float32Array(n * dim);
  for (let i = 0; i < out.length; i++) out[i] = r() * 2 - 1;
  return out;
}

/**
 * faiss (float32 BLAS) vs brute force (float64 sums rounded to float32): scores agree within
 * `tol`; ids agree exactly wherever the score is more than `tol` away from its neighbours and
 * from the k-th score (a near-tie may legitimately swap, or swap across the cut-off).
 */
export function assertSameTopK(actual: TopK, expected: TopK, tol = 1e-4): void {
  assert.equal(actual.nq, expected.nq);
  assert.equal(actual.k, expected.k);
  const k = expected.k;
  for (let q = 0; q < expected.nq; q++) {
    for (let j = 0; j < k; j++) {
      const i = q * k + j;
      const s = expected.scores[i]!;
      if (s === -Infinity) {
        assert.equal(actual.rows[i], -1, `query ${q} rank ${j}: padding`);
        continue;
      }
      assert.ok(Math.abs(actual.scores[i]! - s) <= tol, `query ${q} rank ${j}: score ${actual.scores[i]} vs ${s}`);
      const prev = j > 0 ? expected.scores[i - 1]! : Infinity;
      const next = j + 1 < k ? expected.scores[i + 1]! : -Infinity;
      if (prev - s > tol && s - next > tol) assert.equal(actual.rows[i], expected.rows[i], `query ${q} rank ${j}: row`);
    }
  }
}

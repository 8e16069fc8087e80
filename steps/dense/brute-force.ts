/**
 * Exact inner-product top-k in TypeScript (pure). The reference for the faiss backend in
 * tests and the fallback when faiss-node is not built.
 *
 * Blocked: a block of queries is scored against each corpus row while that row is hot in
 * cache; dot products accumulate in float64 and are rounded to float32 (faiss uses float32 BLAS, so scores can differ
 * from faiss in the last float32 ulp; compare with a tolerance, see test/dense/).
 * Ties are broken by row ascending, so the result order is (-score, row).
 */
import { assertK, emptyTopK, rowCount, validateMatrix } from "./topk.ts";
import type { TopK } from "./topk.ts";

export interface BruteForceOptions {
  /** Queries scored together per pass over the corpus (default 16). */
  readonly queryBlock?: number;
  readonly onProgress?: (done: number, total?: number) => void;
  /** Skip the NaN scan (callers that already validated). */
  readonly trusted?: boolean;
}

/** Bounded min-heap of (score, row) keeping the k best by (-score, row). */
class TopKHeap {
  readonly scores: Float64Array;
  readonly rows: Int32Array;
  size = 0;
  constructor(readonly k: number) {
    this.scores = new Float64Array(k);
    this.rows = new Int32Array(k);
  }
  /** Worst kept score, or -Infinity while not full. */
  threshold(): number {
    return this.size < this.k ? -Infinity : this.scores[0]!;
  }
  /** `a` is worse than `b` in (-score, row) order. */
  private worse(sa: number, ra: number, sb: number, rb: number): boolean {
    return sa < sb || (sa === sb && ra > rb);
  }
  push(score: number, row: number): void {
    const s = this.scores;
    const r = this.rows;
    if (this.size < this.k) {
      let i = this.size++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!this.worse(score, row, s[p]!, r[p]!)) break;
        s[i] = s[p]!;
        r[i] = r[p]!;
        i = p;
      }
      s[i] = score;
      r[i] = row;
      return;
    }
    if (!this.worse(s[0]!, r[0]!, score, row)) return;
    let i = 0;
    const n = this.size;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      let c = l;
      if (l + 1 < n && this.worse(s[l + 1]!, r[l + 1]!, s[l]!, r[l]!)) c = l + 1;
      if (!this.worse(s[c]!, r[c]!, score, row)) break;
      s[i] = s[c]!;
      r[i] = r[c]!;
      i = c;
    }
    s[i] = score;
    r[i] = row;
  }
  /** Writes the kept entries best-first into out[offset ..]. */
  drain(outScores: Float32Array, outRows: Int32Array, offset: number): void {
    const order = Array.from({ length: this.size }, (_, i) => i);
    order.sort((a, b) => this.scores[b]! - this.scores[a]! || this.rows[a]! - this.rows[b]!);
    for (let j = 0; j < order.length; j++) {
      outScores[offset + j] = this.scores[order[j]!]!;
      outRows[offset + j] = this.rows[order[j]!]!;
    }
    this.size = 0;
  }
}

/**
 * Exact top-k by inner product of each query row against each corpus row.
 * `corpus` is [n, dim] and `queries` [nq, dim], both row-major float32.
 */
/** The exact float32 dot product: four float64 lanes, summed, then rounded to float32 (rescore.ts uses it too). */
export function dotF32(a: Float32Array, aOff: number, b: Float32Array, bOff: number, dim: number): number {
  const dim4 = dim - (dim % 4);
  let a0 = 0;
  let a1 = 0;
  let a2 = 0;
  let a3 = 0;
  let d = 0;
  for (; d < dim4; d += 4) {
    a0 += a[aOff + d]! * b[bOff + d]!;
    a1 += a[aOff + d + 1]! * b[bOff + d + 1]!;
    a2 += a[aOff + d + 2]! * b[bOff + d + 2]!;
    a3 += a[aOff + d + 3]! * b[bOff + d + 3]!;
  }
  for (; d < dim; d++) a0 += a[aOff + d]! * b[bOff + d]!;
  return Math.fround(a0 + a1 + a2 + a3);
}

export function bruteForceSearch(corpus: Float32Array, queries: Float32Array, dim: number, k: number, opts: BruteForceOptions = {}): TopK {
  assertK(k);
  const n = opts.trusted === true ? rowCount(corpus, dim, { field: "corpus" }) : validateMatrix(corpus, dim, { field: "corpus" });
  const nq = opts.trusted === true ? rowCount(queries, dim, { field: "queries" }) : validateMatrix(queries, dim, { field: "queries" });
  const out = emptyTopK(nq, k);
  const qb = Math.max(1, Math.floor(opts.queryBlock ?? 16));
  const heaps = Array.from({ length: Math.min(qb, nq) }, () => new TopKHeap(Math.min(k, Math.max(n, 1))));
  const dots = new Float64Array(qb);

  for (let q0 = 0; q0 < nq; q0 += qb) {
    const q1 = Math.min(nq, q0 + qb);
    const m = q1 - q0;
    for (let row = 0; row < n; row++) {
      const base = row * dim;
      for (let j = 0; j < m; j++) {
        const qbase = (q0 + j) * dim;
        // Rounded to float32 so the (-score, row) order holds for the stored scores too.
        dots[j] = dotF32(corpus, base, queries, qbase, dim);
      }
      for (let j = 0; j < m; j++) {
        const h = heaps[j]!;
        // Rows arrive in ascending order, so an equal score never beats a kept one.
        if (dots[j]! > h.threshold()) h.push(dots[j]!, row);
      }
    }
    for (let j = 0; j < m; j++) heaps[j]!.drain(out.scores, out.rows, (q0 + j) * k);
    opts.onProgress?.(q1, nq);
  }
  return out;
}

/**
 * When the order of a document's clause scores does not change its total (pure).
 *
 * The exhaustive scorer sums a document's float32 clause scores in double, in clause order, and
 * rounds the sum to float. A pruned scorer adds them in whatever order its candidates meet the
 * clauses. Both give the same double, bit for bit, whenever every partial sum is exactly
 * representable: then no addition rounds and any order gives the exact sum.
 *
 * A sufficient condition, checked once per query: every nonzero clause score is at least a known
 * s_min > 0, so every score is an integer multiple of u = the unit in the last place of the
 * smallest float32 >= s_min (a float32 x >= s_min is a multiple of ulp(x) >= u, and every ulp is a
 * power of two); every partial sum is then a multiple of u no larger than W = the sum of the
 * clause weights (a clause score w - w/y with y >= 1 is at most w), and a multiple of u up to
 * 2^53 u is a double. So W <= 2^53 u is enough.
 *
 * s_min per clause: the score is non-decreasing in tf and in cache[norm], and cache is
 * non-increasing in the norm byte (the premise of the block bounds, ./blocks.ts), so the smallest
 * score any posting can get is at tf = 1 and the largest norm byte of the collection. A clause
 * whose smallest score is 0 (w / y rounds to w) fails the check: its tiny nonzero scores at tf > 1
 * are not bounded below.
 */
const f = Math.fround;

/** The largest norm byte of any document (an upper bound of every matching document's norm). */
export function maxNormByte(norms: Uint8Array): number {
  let max = 0;
  for (let i = 0; i < norms.length; i++) if (norms[i]! > max) max = norms[i]!;
  return max;
}

/** A lower bound of the unit in the last place of float32 values >= x > 0 (a power of two). */
export function float32UlpFloor(x: number): number {
  // one binade lower than x's own exponent: safe against Math.log2 rounding up near powers of two
  const e = Math.floor(Math.log2(x)) - 24;
  return 2 ** Math.max(e, -149);
}

/**
 * True when summing any subset of the clauses' float32 scores in double, in any order, gives the
 * same (exact) result. `minNormInverse` is cache[maxNormByte]: the smallest norm factor of any
 * matching document.
 */
export function sumsAreOrderFree(weights: ArrayLike<number>, m: number, minNormInverse: number): boolean {
  let total = 0;
  let unit = Infinity;
  const y = f(1 + f(minNormInverse));
  for (let i = 0; i < m; i++) {
    const w = weights[i]!;
    if (!(w >= 0) || !Number.isFinite(w)) return false;
    if (w === 0) continue; // every score of the clause is 0: it adds nothing
    const smin = f(w - f(w / y));
    if (!(smin > 0)) return false;
    unit = Math.min(unit, float32UlpFloor(smin));
    total += w;
  }
  // total is rounded up by the factor 2: a slack far beyond the double rounding of a few additions
  return total === 0 || 2 * total <= 2 ** 53 * unit;
}

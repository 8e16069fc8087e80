/**
 * Paired significance tests between two runs' per-query values, and Holm's correction. Pure.
 *
 * - Paired t-test (two-sided): d_i = b_i - a_i, t = mean(d) / (sd(d) / sqrt(n)), sd with n - 1,
 *   p from Student's t with n - 1 degrees of freedom (special-functions.ts). n < 2: no test (p NaN).
 *   All differences equal: p = 1 when they are 0, else 0 (the t statistic is infinite).
 * - Randomization test (two-sided, Fisher's sign flip, as Smucker et al. 2007 recommend for IR):
 *   under H0 each d_i is as likely to be -d_i; p = share of sign assignments whose |mean| reaches
 *   the observed |mean| (a relative tolerance of 1e-9 absorbs float summation order). With
 *   2^n <= trials every assignment is enumerated and p is exact; otherwise `trials` random
 *   assignments drawn from `seed` give p = (hits + 1) / (trials + 1) (never 0; Phipson & Smyth 2010).
 * - Holm's step-down correction over a family of p-values: sort ascending, adjusted p_(i) =
 *   max_{j <= i} min(1, (m - j + 1) p_(j)); NaN p-values (no test) are left out of m.
 * - Percentile bootstrap confidence interval for a statistic of resampled indices (diagnose's shares).
 */
import { mulberry32 } from "../lib/prng.ts";
import { studentTTwoSided } from "./special-functions.ts";

export interface TTestResult {
  readonly n: number;
  readonly meanDiff: number;
  readonly t: number;
  readonly df: number;
  readonly p: number;
}

function differences(a: ArrayLike<number>, b: ArrayLike<number>): Float64Array {
  if (a.length !== b.length) throw new RangeError(`paired samples differ in length (${a.length} vs ${b.length})`);
  const d = new Float64Array(a.length);
  for (let i = 0; i < a.length; i++) d[i] = b[i]! - a[i]!;
  return d;
}

function mean(xs: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i]!;
  return xs.length === 0 ? Number.NaN : s / xs.length;
}

/** Paired two-sided t-test of b against a. */
export function pairedTTest(a: ArrayLike<number>, b: ArrayLike<number>): TTestResult {
  const d = differences(a, b);
  const n = d.length;
  const m = mean(d);
  if (n < 2) return { n, meanDiff: m, t: Number.NaN, df: n - 1, p: Number.NaN };
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (d[i]! - m) * (d[i]! - m);
  const sd = Math.sqrt(ss / (n - 1));
  if (sd === 0 || sd <= Math.abs(m) * 1e-12) {
    return { n, meanDiff: m, t: m === 0 ? 0 : Math.sign(m) * Number.POSITIVE_INFINITY, df: n - 1, p: m === 0 ? 1 : 0 };
  }
  const t = m / (sd / Math.sqrt(n));
  return { n, meanDiff: m, t, df: n - 1, p: studentTTwoSided(t, n - 1) };
}

export interface RandomizationOptions {
  /** Random sign assignments when 2^n exceeds it (default 10,000). */
  readonly trials?: number;
  readonly seed?: number;
}

export interface RandomizationResult {
  readonly n: number;
  readonly meanDiff: number;
  readonly p: number;
  /** true when every sign assignment was enumerated. */
  readonly exact: boolean;
  /** Assignments evaluated (2^n when exact). */
  readonly trials: number;
}

/** Paired two-sided randomization (sign-flip) test of b against a. */
export function pairedRandomizationTest(a: ArrayLike<number>, b: ArrayLike<number>, options: RandomizationOptions = {}): RandomizationResult {
  const d = differences(a, b);
  const n = d.length;
  const trials = options.trials ?? 10_000;
  if (!Number.isInteger(trials) || trials < 1) throw new RangeError(`trials must be a positive integer, got ${trials}`);
  let total = 0;
  for (let i = 0; i < n; i++) total += d[i]!;
  const observed = Math.abs(total);
  const meanDiff = n === 0 ? Number.NaN : total / n;
  if (n === 0) return { n, meanDiff, p: Number.NaN, exact: true, trials: 0 };
  const threshold = observed - 1e-9 * Math.max(1, observed);
  if (n <= 30 && 2 ** n <= trials) {
    // Gray-code walk over all 2^n assignments: each step flips one sign.
    const assignments = 2 ** n;
    let sum = total;
    let hits = 0;
    const sign = new Int8Array(n).fill(1);
    for (let k = 0; k < assignments; k++) {
      if (k > 0) {
        const bit = 31 - Math.clz32(k & -k);
        sign[bit] = -sign[bit]! as 1 | -1;
        sum += 2 * sign[bit]! * d[bit]!;
      }
      if (Math.abs(sum) >= threshold) hits++;
    }
    return { n, meanDiff, p: hits / assignments, exact: true, trials: assignments };
  }
  const rand = mulberry32(options.seed ?? 42);
  let hits = 0;
  for (let k = 0; k < trials; k++) {
    // One 32-bit draw gives the signs of 32 pairs.
    let sum = 0;
    let bits = 0;
    for (let i = 0; i < n; i++) {
      if ((i & 31) === 0) bits = (rand() * 4294967296) >>> 0;
      sum += (bits >>> (i & 31)) & 1 ? -d[i]! : d[i]!;
    }
    if (Math.abs(sum) >= threshold) hits++;
  }
  return { n, meanDiff, p: (hits + 1) / (trials + 1), exact: false, trials };
}

/** Holm-adjusted p-values, in the input order (NaN stays NaN and is not counted in m). */
export function holm(pValues: readonly number[]): number[] {
  const idx = pValues.map((p, i) => ({ p, i })).filter((x) => !Number.isNaN(x.p));
  idx.sort((x, y) => x.p - y.p || x.i - y.i);
  const m = idx.length;
  const out = pValues.map(() => Number.NaN);
  let running = 0;
  idx.forEach(({ p, i }, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    out[i] = running;
  });
  return out;
}

export interface BootstrapOptions {
  readonly samples?: number;
  readonly seed?: number;
  /** Confidence level, e.g. 0.95. */
  readonly level?: number;
}

/**
 * Percentile bootstrap CI of `statistic(indices)` over `n` items resampled with replacement.
 * Non-finite replicate values (e.g. a ratio with a zero denominator) are dropped; the count kept is
 * returned. Quantiles use the (samples - 1) * q order statistic, linearly interpolated.
 */
export function bootstrapInterval(
  n: number,
  statistic: (indices: Uint32Array) => number,
  options: BootstrapOptions = {},
): { low: number; high: number; samples: number; kept: number } {
  const samples = options.samples ?? 1000;
  const level = options.level ?? 0.95;
  const rand = mulberry32(options.seed ?? 42);
  const values: number[] = [];
  const idx = new Uint32Array(n);
  for (let s = 0; s < samples; s++) {
    for (let i = 0; i < n; i++) idx[i] = Math.floor(rand() * n);
    const v = statistic(idx);
    if (Number.isFinite(v)) values.push(v);
  }
  values.sort((x, y) => x - y);
  const q = (p: number): number => {
    if (values.length === 0) return Number.NaN;
    const pos = (values.length - 1) * p;
    const lo = Math.floor(pos);
    const hi = Math.ceil(pos);
    return values[lo]! + (values[hi]! - values[lo]!) * (pos - lo);
  };
  const tail = (1 - level) / 2;
  return { low: q(tail), high: q(1 - tail), samples, kept: values.length };
}

/**
 * How many seeds a claim needs for its verdict to survive a perturbation that should not matter.
 * Two runs of the same claim (e.g. the default run and the run under other BLAS kernels) each
 * draw n per-seed values; if the noise of the two runs is independent and normal with the
 * claim's mean and sd, how often do they reach the same verdict under the rule of claims.ts
 * (verdictOf), and how often is a run's verdict conclusive? Simulated, seeded, pure.
 * Independence is the pessimistic case: runs that share seeds correlate, and agree more often.
 * A "rise" (claims.ts everyStep) is simulated step by step: each step's gain per seed drawn on its
 * own, the whole gain their sum per seed, and the every-step rule over the verdicts. Its steps are
 * drawn independently, which the real ones are not (steps i-1 -> i and i -> i+1 share iteration
 * i's model, so they correlate negatively): an approximation.
 */
import { mulberry32 } from "../lib/prng.ts";
import { riseVerdict, verdictOf, mean, sampleSd, type ClaimSpec, type Verdict } from "./claims.ts";

export interface ClaimNoise {
  readonly mean: number;
  readonly sd: number;
  readonly threshold: number;
  readonly direction: ClaimSpec["direction"];
}

export interface Agreement {
  readonly n: number;
  /** P(two runs reach the same verdict). */
  readonly agree: number;
  /** P(one run's verdict is "holds" or "does not hold"). */
  readonly conclusive: number;
}

/** Standard normal draws from a uniform source (Box-Muller; 1 - u keeps the log finite). */
function normals(uniform: () => number): () => number {
  return () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
}

/** A claim's noise: one statistic, or a rise's steps (each with the claim's threshold and direction). */
export type Noise = ClaimNoise | { readonly steps: readonly ClaimNoise[] };

export function agreementAt(noise: Noise, n: number, trials: number, seed: number): Agreement {
  if (!Number.isInteger(n) || n < 2) throw new Error(`seed count ${n}: at least 2 seeds are needed for a spread`);
  const z = normals(mulberry32(seed));
  const draw = (c: ClaimNoise): number[] => Array.from({ length: n }, () => c.mean + c.sd * z());
  const judge = (xs: readonly number[], c: ClaimNoise): Verdict => verdictOf(mean(xs)!, sampleSd(xs), n, c.threshold, c.direction);
  const verdict = (): Verdict => {
    if (!("steps" in noise)) return judge(draw(noise), noise);
    const steps = noise.steps.map(draw);
    const whole = steps[0]!.map((_, i) => steps.reduce((s, xs) => s + xs[i]!, 0));
    return riseVerdict(judge(whole, noise.steps[0]!), steps.map((xs, i) => judge(xs, noise.steps[i]!)));
  };
  let agree = 0;
  let conclusive = 0;
  for (let i = 0; i < trials; i++) {
    const [a, b] = [verdict(), verdict()];
    if (a === b) agree++;
    if (a !== "inconclusive") conclusive++;
  }
  return { n, agree: agree / trials, conclusive: conclusive / trials };
}

/** One claim's noise from several runs' per-seed values: the runs' means averaged, their variances pooled. */
export function pooledNoise(runs: readonly (readonly number[])[], threshold: number, direction: ClaimSpec["direction"]): ClaimNoise {
  const usable = runs.filter((xs) => xs.length >= 2);
  if (usable.length === 0) throw new Error("no run has two or more seeds: a spread cannot be estimated");
  const m = usable.reduce((s, xs) => s + mean(xs)!, 0) / usable.length;
  const v = usable.reduce((s, xs) => s + sampleSd(xs)! ** 2, 0) / usable.length;
  return { mean: m, sd: Math.sqrt(v), threshold, direction };
}

/** The fewest seeds in [from, max] whose agreement reaches `target` (null if none does), with every n's figures. */
export function seedsFor(noise: Noise, target: number, from: number, max: number, trials: number, seed: number): { readonly fewest: number | null; readonly table: readonly Agreement[] } {
  const table = Array.from({ length: max - from + 1 }, (_, i) => agreementAt(noise, from + i, trials, seed + i));
  return { fewest: table.find((a) => a.agree >= target)?.n ?? null, table };
}

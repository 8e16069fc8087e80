/**
 * Comparing several runs evaluated on the same qrels: per group (all queries, then each label
 * group), per metric, each run's mean with N, and paired significance tests between runs with
 * Holm's correction. Pure: per-query rows in, numbers out.
 *
 * - Pairs: every run against the baseline ("baseline", default the first run), or every pair of
 *   runs ("all"). A test pairs the queries both runs evaluated (qid intersection; with
 *   `--missing zero` that is every evaluated query of either run).
 * - Holm's family: the comparisons of one metric, in one group, under one test (m = number of
 *   pairs). Significance is the Holm-adjusted p below `alpha`.
 */
import { InputError } from "../../pipeline/engine/errors.ts";
import type { PerQueryRow } from "./evaluate.ts";
import { holm, pairedRandomizationTest, pairedTTest } from "./significance.ts";

export type SignificanceTest = "t-test" | "randomization";
export const SIGNIFICANCE_TESTS: readonly SignificanceTest[] = ["t-test", "randomization"];

export interface CompareOptions {
  /** Index of the baseline run. */
  readonly baseline: number;
  readonly pairs: "baseline" | "all";
  readonly tests: readonly SignificanceTest[];
  /** Randomization test: random sign assignments (exact enumeration when 2^n is not larger). */
  readonly trials: number;
  readonly seed: number;
  readonly alpha: number;
}

export interface RunRows {
  readonly label: string;
  readonly perQuery: readonly PerQueryRow[];
}

/** A set of queries to compare on: "all", or one label group such as "questionType=first". */
export interface QueryGroup {
  readonly name: string;
  /** null = every evaluated query. */
  readonly qids: ReadonlySet<string> | null;
}

export interface TestOutcome {
  readonly p: number;
  /** Holm-adjusted p over the family (see top). */
  readonly pHolm: number;
  readonly significant: boolean;
}

export interface Comparison {
  readonly group: string;
  readonly metric: string;
  /** Labels of the two runs: the difference is b - a. */
  readonly a: string;
  readonly b: string;
  /** Paired queries. */
  readonly n: number;
  readonly meanA: number;
  readonly meanB: number;
  readonly diff: number;
  readonly tests: Partial<Record<SignificanceTest, TestOutcome & Record<string, unknown>>>;
}

function pairsOf(n: number, options: CompareOptions): [number, number][] {
  if (options.baseline < 0 || options.baseline >= n) throw new InputError(`baseline run ${options.baseline + 1} does not exist (${n} runs)`, { field: "--baseline", fix: "name one of the runs given with --run" });
  const out: [number, number][] = [];
  if (options.pairs === "baseline") {
    for (let i = 0; i < n; i++) if (i !== options.baseline) out.push([options.baseline, i]);
  } else {
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) out.push([i, j]);
  }
  return out;
}

/** Paired per-query values of one metric for two runs, over the qids both evaluated (within the group), in qid order. */
function paired(a: readonly PerQueryRow[], b: readonly PerQueryRow[], metric: string, group: QueryGroup): { x: Float64Array; y: Float64Array } {
  const byQid = new Map(b.map((r) => [r.qid, r]));
  const xs: number[] = [];
  const ys: number[] = [];
  for (const r of a) {
    if (group.qids !== null && !group.qids.has(r.qid)) continue;
    const other = byQid.get(r.qid);
    if (other === undefined) continue;
    xs.push(r.metrics[metric]!);
    ys.push(other.metrics[metric]!);
  }
  return { x: Float64Array.from(xs), y: Float64Array.from(ys) };
}

function mean(xs: Float64Array): number {
  let s = 0;
  for (const v of xs) s += v;
  return xs.length === 0 ? Number.NaN : s / xs.length;
}

/** Every comparison, in (group, metric, pair) order, with Holm-adjusted p-values. */
export function compareRuns(runs: readonly RunRows[], metrics: readonly string[], groups: readonly QueryGroup[], options: CompareOptions): Comparison[] {
  if (runs.length < 2) return [];
  if (!(options.alpha > 0 && options.alpha < 1)) throw new InputError(`alpha ${options.alpha} is not in (0, 1)`, { field: "--alpha", fix: "use e.g. 0.05" });
  const pairs = pairsOf(runs.length, options);
  const out: Comparison[] = [];
  for (const group of groups) {
    for (const metric of metrics) {
      const raw = pairs.map(([i, j]) => {
        const { x, y } = paired(runs[i]!.perQuery, runs[j]!.perQuery, metric, group);
        const results: Partial<Record<SignificanceTest, Record<string, number | boolean>>> = {};
        if (options.tests.includes("t-test")) {
          const t = pairedTTest(x, y);
          results["t-test"] = { p: t.p, t: t.t, df: t.df };
        }
        if (options.tests.includes("randomization")) {
          const r = pairedRandomizationTest(x, y, { trials: options.trials, seed: options.seed });
          results.randomization = { p: r.p, exact: r.exact, trials: r.trials };
        }
        return { i, j, n: x.length, meanA: mean(x), meanB: mean(y), results };
      });
      const adjusted: Partial<Record<SignificanceTest, number[]>> = {};
      for (const test of options.tests) adjusted[test] = holm(raw.map((r) => r.results[test]!.p as number));
      raw.forEach((r, k) => {
        const tests: Partial<Record<SignificanceTest, TestOutcome & Record<string, unknown>>> = {};
        for (const test of options.tests) {
          const pHolm = adjusted[test]![k]!;
          const p = r.results[test]!.p as number;
          tests[test] = { ...r.results[test]!, p, pHolm, significant: !Number.isNaN(pHolm) && pHolm < options.alpha };
        }
        out.push({ group: group.name, metric, a: runs[r.i]!.label, b: runs[r.j]!.label, n: r.n, meanA: r.meanA, meanB: r.meanB, diff: r.meanB - r.meanA, tests });
      });
    }
  }
  return out;
}

/**
 * Short, distinct labels for run files: the base name without extension; where two collide, the
 * shortest trailing path that tells them apart.
 */
export function runLabels(paths: readonly string[]): string[] {
  const parts = paths.map((p) => p.split(/[\\/]/).filter((s) => s !== ""));
  const strip = (name: string) => name.replace(/\.(trec|txt|run|json|tsv)$/i, "") || name;
  const labels = parts.map((p) => strip(p[p.length - 1] ?? ""));
  for (let depth = 2; new Set(labels).size < labels.length; depth++) {
    let changed = false;
    const counts = new Map<string, number>();
    for (const l of labels) counts.set(l, (counts.get(l) ?? 0) + 1);
    labels.forEach((l, i) => {
      if (counts.get(l)! < 2) return;
      const p = parts[i]!;
      if (depth <= p.length) {
        labels[i] = [...p.slice(p.length - depth, p.length - 1), strip(p[p.length - 1]!)].join("/");
        changed = true;
      }
    });
    if (!changed) {
      // Same path given twice: number them.
      labels.forEach((l, i) => (labels[i] = `${l}#${i + 1}`));
      break;
    }
  }
  return labels;
}

/**
 * Shortcut exposure of a conversational dataset, from per-turn metrics of retrieval over three query
 * forms (the paper's analysis, Figure 2(a) and early Table 1): q_t, X_t \ {q_t} and X_t.
 *
 * Per question-type group (all turns with gold, then first / switch / no-switch):
 *  - mean recall@k, success@k and MRR of each form;
 *  - kept share: recall@k(X_t \ q_t) / recall@k(X_t), the share of the whole input's recall that a
 *    retriever keeps without reading the current question (ratio of the group means);
 *  - solved without q_t: success@k(X_t \ q_t), the share of turns whose gold the history alone
 *    ranks in the top k;
 * each with a percentile bootstrap interval over the group's turns (seeded, resampled with
 * replacement, the same resample for numerator and denominator). Pure: rows in, numbers out.
 */
import { bootstrapInterval } from "../eval/significance.ts";
import type { DiagnosisType } from "./conversations.ts";

/** The query forms of the diagnosis, in the order they are shown. */
export const DIAGNOSIS_FORMS = ["q_t", "history_without_q", "history"] as const;
export type DiagnosisForm = (typeof DIAGNOSIS_FORMS)[number];
export const FORM_LABELS: Readonly<Record<DiagnosisForm, string>> = { q_t: "q_t", history_without_q: "X_t \\ q_t", history: "X_t" };

export const GROUP_ORDER = ["all", "first", "switch", "no-switch"] as const;
export type GroupName = (typeof GROUP_ORDER)[number];

export interface TurnMetrics {
  readonly qid: string;
  readonly type: DiagnosisType | null;
  /** Per form, metric name -> value (recall@k, success@k, mrr). */
  readonly forms: Readonly<Record<DiagnosisForm, Readonly<Record<string, number>>>>;
  /** The same for a dense model over X_t \ q_t and X_t, when one was given. */
  readonly dense?: Readonly<Record<DenseForm, Readonly<Record<string, number>>>>;
}

export const DENSE_FORMS = ["history_without_q", "history"] as const;
export type DenseForm = (typeof DENSE_FORMS)[number];

export interface Interval {
  readonly value: number;
  readonly low: number;
  readonly high: number;
}

export interface GroupDiagnosis {
  readonly group: GroupName;
  readonly n: number;
  /** Per form, metric -> group mean. */
  readonly means: Record<DiagnosisForm, Record<string, number>>;
  /** Per cutoff k ("10"): recall@k(X\q) / recall@k(X). */
  readonly keptShare: Record<string, Interval>;
  /** Per cutoff k: success@k(X\q). */
  readonly solvedWithoutQ: Record<string, Interval>;
  /** The dense model's means and kept share, when every turn has dense metrics. */
  readonly dense?: { readonly means: Record<DenseForm, Record<string, number>>; readonly keptShare: Record<string, Interval>; readonly solvedWithoutQ: Record<string, Interval> };
}

export interface DiagnosisOptions {
  readonly cutoffs: readonly number[];
  readonly samples: number;
  readonly seed: number;
  /** Confidence level, e.g. 0.95. */
  readonly level: number;
}

export function diagnosisMetrics(cutoffs: readonly number[]): string[] {
  return ["mrr", ...cutoffs.map((k) => `recall@${k}`), ...cutoffs.map((k) => `success@${k}`)];
}

function sumAt(rows: readonly TurnMetrics[], idx: ArrayLike<number> | null, form: DiagnosisForm, metric: string): number {
  let s = 0;
  const n = idx === null ? rows.length : idx.length;
  for (let i = 0; i < n; i++) s += rows[idx === null ? i : idx[i]!]!.forms[form][metric]!;
  return s;
}

function groupOf(rows: readonly TurnMetrics[], group: GroupName, metrics: readonly string[], options: DiagnosisOptions): GroupDiagnosis {
  const n = rows.length;
  const means: Record<DiagnosisForm, Record<string, number>> = { q_t: {}, history_without_q: {}, history: {} };
  for (const form of DIAGNOSIS_FORMS) {
    for (const m of metrics) means[form][m] = n === 0 ? Number.NaN : sumAt(rows, null, form, m) / n;
  }
  const keptShare: Record<string, Interval> = {};
  const solvedWithoutQ: Record<string, Interval> = {};
  for (const k of options.cutoffs) {
    const r = `recall@${k}`;
    const s = `success@${k}`;
    const ratio = (idx: ArrayLike<number> | null) => sumAt(rows, idx, "history_without_q", r) / sumAt(rows, idx, "history", r);
    const share = (idx: ArrayLike<number> | null) => sumAt(rows, idx, "history_without_q", s) / (idx === null ? rows.length : idx.length);
    const boot = { samples: options.samples, seed: options.seed, level: options.level };
    const ci1 = bootstrapInterval(n, ratio, boot);
    const ci2 = bootstrapInterval(n, share, boot);
    keptShare[String(k)] = { value: n === 0 ? Number.NaN : ratio(null), low: ci1.low, high: ci1.high };
    solvedWithoutQ[String(k)] = { value: n === 0 ? Number.NaN : share(null), low: ci2.low, high: ci2.high };
  }
  const dense = rows.length > 0 && rows.every((r) => r.dense !== undefined) ? denseOf(rows, metrics, options) : undefined;
  return dense === undefined ? { group, n, means, keptShare, solvedWithoutQ } : { group, n, means, keptShare, solvedWithoutQ, dense };
}

function denseSum(rows: readonly TurnMetrics[], idx: ArrayLike<number> | null, form: DenseForm, metric: string): number {
  let s = 0;
  const n = idx === null ? rows.length : idx.length;
  for (let i = 0; i < n; i++) s += rows[idx === null ? i : idx[i]!]!.dense![form][metric]!;
  return s;
}

function denseOf(rows: readonly TurnMetrics[], metrics: readonly string[], options: DiagnosisOptions): NonNullable<GroupDiagnosis["dense"]> {
  const n = rows.length;
  const means: Record<DenseForm, Record<string, number>> = { history_without_q: {}, history: {} };
  for (const form of DENSE_FORMS) for (const m of metrics) means[form][m] = denseSum(rows, null, form, m) / n;
  const keptShare: Record<string, Interval> = {};
  const solvedWithoutQ: Record<string, Interval> = {};
  const boot = { samples: options.samples, seed: options.seed, level: options.level };
  for (const k of options.cutoffs) {
    const ratio = (idx: ArrayLike<number> | null) => denseSum(rows, idx, "history_without_q", `recall@${k}`) / denseSum(rows, idx, "history", `recall@${k}`);
    const share = (idx: ArrayLike<number> | null) => denseSum(rows, idx, "history_without_q", `success@${k}`) / (idx === null ? n : idx.length);
    const c1 = bootstrapInterval(n, ratio, boot);
    const c2 = bootstrapInterval(n, share, boot);
    keptShare[String(k)] = { value: ratio(null), low: c1.low, high: c1.high };
    solvedWithoutQ[String(k)] = { value: share(null), low: c2.low, high: c2.high };
  }
  return { means, keptShare, solvedWithoutQ };
}

/** The diagnosis of every group with at least one turn ("all" always). */
export function diagnose(rows: readonly TurnMetrics[], options: DiagnosisOptions): GroupDiagnosis[] {
  const metrics = diagnosisMetrics(options.cutoffs);
  const out: GroupDiagnosis[] = [groupOf(rows, "all", metrics, options)];
  for (const g of GROUP_ORDER.slice(1)) {
    const members = rows.filter((r) => r.type === g);
    if (members.length > 0) out.push(groupOf(members, g, metrics, options));
  }
  return out;
}

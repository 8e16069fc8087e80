/**
 * The paper's claims as checks over evaluation results: each claim names the numbers it
 * reads (one evaluation, or one per training seed), a statistic computed per seed (a ratio,
 * a gain, a difference of gains, a rise over iterations), and the threshold the paper's words
 * imply. The verdict asks whether the seeds place the mean on one side of the threshold with
 * 95% confidence: with n seeds, sample sd s and m = t(0.95, n-1) * s / sqrt(n) (the half-width
 * of a one-sided 95% t-interval of the mean; 1.69 s for 3 seeds, 0.95 s for 5),
 *   holds            mean - m >= threshold   (for "at most": mean + m <= threshold)
 *   does not hold    mean + m <  threshold   (for "at most": mean - m >  threshold)
 *   inconclusive     otherwise: the seeds do not settle which side the claim is on.
 * A "rise" over several steps must hold at every step on its own (see everyStep).
 * Units: a claim may train several models from one θ0 (replicates that differ only in the order of
 * their examples). Its `units` name the θ0 seed of each paired value; the values of one unit are
 * averaged first, and the rule runs over the units, so n counts θ0s and θ0's own variance is never
 * left out of the spread (a test over every replicate would treat fine-tunings that share a θ0 as
 * independent). Without `units` each value is its own unit.
 * "Above" is "at least" made strict (a claim that one thing beats another: a tie does not hold):
 *   holds if mean - m > threshold, does not hold if mean + m <= threshold.
 * Why not mean ± sd (the rule before 2026-11-28): for 3 seeds it is a one-sided t-test at
 * p = 0.11, and a "holds" by it (IHN > IBN on QReCC, +7.2 ± 1.0) became +1.3 ± 3.4 when the
 * same run was computed with other BLAS kernels. With one value (BM25, or a single seed) there
 * is no spread: m is 0 and the verdict compares the value itself.
 * A gain claim may name a ceiling for each side (Table 5: the oracle extractive reader on each
 * retriever's passages): the finding then says whether the difference is measurable at that
 * ceiling (see ceilingOf).
 * Pure: the step (steps.ts) reads the metrics files and writes findings.json / findings.md.
 */
import { z } from "zod";
import { groupRefSchema, pickMetric } from "../report/metric-value.ts";
import type { MetricsFile } from "../eval/steps.ts";

/** Numbers of one quantity: an input per seed (or one), a metric, optionally a breakdown group. */
export const operandSchema = z.object({ inputs: z.array(z.string().min(1)).min(1), metric: z.string().min(1), group: groupRefSchema.optional() }).strict();
export type Operand = z.infer<typeof operandSchema>;

const gainSchema = z.object({ better: operandSchema, worse: operandSchema }).strict();

export const ruleSchema = z.discriminatedUnion("kind", [
  /** num / den per seed. */
  z.object({ kind: z.literal("ratio"), num: operandSchema, den: operandSchema }).strict(),
  /** better - worse per seed (x100 for recall: percentage points). */
  z.object({ kind: z.literal("gain"), better: operandSchema, worse: operandSchema }).strict(),
  /** (gain a) - (gain b) per seed. */
  z.object({ kind: z.literal("gain-difference"), a: gainSchema, b: gainSchema }).strict(),
  /** last - first per seed, and every step's mean gain must be >= 0 for "holds". */
  z.object({ kind: z.literal("rise"), steps: z.array(operandSchema).min(2) }).strict(),
]);
export type Rule = z.infer<typeof ruleSchema>;

/** Which side of its threshold a claim's statistic must lie on (see the module comment). */
export const directionSchema = z.enum(["at-least", "at-most", "above"]);

export const claimSpecSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/),
    title: z.string().min(1),
    /** What the paper reports, in words and numbers. */
    paper: z.string().min(1),
    /** What is computed, in words. */
    measure: z.string().min(1),
    rule: ruleSchema,
    /** The statistic must be at least (at most, strictly above) this. */
    threshold: z.number(),
    direction: directionSchema,
    unit: z.enum(["ratio", "points", "fraction"]),
    /** A gain claim's ceilings: the most each side could reach (paired by seed with the rule's operands), and what they are in words. */
    ceiling: z.object({ better: operandSchema, worse: operandSchema, label: z.string().min(1) }).strict().optional(),
    /** The unit (θ0 seed) of each paired value, in the operands' order: one unit's values are averaged before the rule (see the module comment). */
    units: z.array(z.number().int()).min(1).optional(),
  })
  .strict()
  .refine((c) => c.ceiling === undefined || c.rule.kind === "gain", { message: "only a gain claim can have a ceiling", path: ["ceiling"] })
  .refine((c) => c.units === undefined || c.ceiling === undefined, { message: "a claim over units cannot have a ceiling", path: ["units"] });
export type ClaimSpec = z.infer<typeof claimSpecSchema>;

export type Verdict = "holds" | "does-not-hold" | "inconclusive";

export interface Evidence {
  readonly label: string;
  readonly stepKey: string;
  readonly stepId: string;
}

export interface Finding {
  readonly id: string;
  readonly title: string;
  readonly paper: string;
  readonly measure: string;
  readonly value: number | null;
  readonly sd: number | null;
  /** How many values the rule ran over: seeds, or units (θ0s) where the claim has `units`. */
  readonly seeds: number;
  /** One value per seed (per unit: the mean of its replicates). */
  readonly perSeed: readonly number[];
  /** A claim over units: each unit's θ0 seed and its replicates' values (perSeed holds their means). */
  readonly units?: readonly { readonly seed: number; readonly values: readonly number[] }[];
  /** A rise's gain per step (step i: iteration i+1 over i), one value per seed each, so the every-step rule can be recomputed and simulated (seed-power.ts). */
  readonly steps?: readonly (readonly number[])[];
  readonly unit: ClaimSpec["unit"];
  readonly threshold: string;
  /** The rule in numbers (what `threshold` says in words), so a reader can recompute the verdict from `perSeed`. */
  readonly decision: { readonly rule: Rule["kind"]; readonly threshold: number; readonly direction: ClaimSpec["direction"] };
  readonly verdict: Verdict | "not-measured";
  readonly note?: string;
  readonly ceiling?: CeilingCheck;
  readonly evidence: readonly Evidence[];
}

/**
 * Whether a gain is measurable at its ceiling. `gap`: the better side's ceiling minus the worse
 * side's (mean over seeds); `share`: the share of their ceilings the two sides reach (their sum
 * over the ceilings' sum, mean over seeds); `expected`: the gain if each side turned the same
 * share of its ceiling into its score (share x gap, mean over seeds); `resolvable`: the smallest
 * mean gain the seeds' spread can tell from zero (the rule's t-margin; null with one value:
 * no spread to compare with). Measurable when |expected| > resolvable.
 */
export interface CeilingCheck {
  readonly label: string;
  readonly gap: number;
  readonly share: number;
  readonly expected: number;
  readonly resolvable: number | null;
  readonly measurable: boolean | null;
  readonly text: string;
}

export interface FindingsFile {
  readonly schema: "cspipe.findings/1";
  readonly data: string;
  readonly claims: readonly Finding[];
}

/** Reads a number out of an evaluation (undefined when the group has no turns). */
export type Lookup = (input: string, metric: string, group: Operand["group"]) => number | undefined;

export function lookupIn(files: ReadonlyMap<string, MetricsFile>): Lookup {
  return (input, metric, group) => {
    const m = files.get(input);
    if (m === undefined) throw new Error(`no metrics input '${input}'`);
    return pickMetric(m, metric, group)?.value;
  };
}

/** Per-seed values of an operand (undefined entries where a group is empty). */
function values(op: Operand, look: Lookup): (number | undefined)[] {
  return op.inputs.map((i) => look(i, op.metric, op.group));
}

/** Pairs two per-seed lists by position; a single value is used for every seed of the other side. */
function paired(a: readonly (number | undefined)[], b: readonly (number | undefined)[], f: (x: number, y: number) => number): (number | undefined)[] {
  const n = Math.max(a.length, b.length);
  if (a.length !== b.length && a.length !== 1 && b.length !== 1) throw new Error(`cannot pair ${a.length} values with ${b.length}`);
  return Array.from({ length: n }, (_, i) => {
    const x = a[a.length === 1 ? 0 : i];
    const y = b[b.length === 1 ? 0 : i];
    return x === undefined || y === undefined ? undefined : f(x, y);
  });
}

const scale = (spec: ClaimSpec): number => (spec.unit === "points" ? 100 : 1);

/** The statistic per seed, and (for "rise") each step's gain per seed (step i: operand i+1 minus operand i). */
function statistic(spec: ClaimSpec, look: Lookup): { perSeed: (number | undefined)[]; steps: (number | undefined)[][] } {
  const r = spec.rule;
  const k = scale(spec);
  switch (r.kind) {
    case "ratio":
      return { perSeed: paired(values(r.num, look), values(r.den, look), (x, y) => (y === 0 ? Number.NaN : x / y)), steps: [] };
    case "gain":
      return { perSeed: paired(values(r.better, look), values(r.worse, look), (x, y) => (x - y) * k), steps: [] };
    case "gain-difference": {
      const ga = paired(values(r.a.better, look), values(r.a.worse, look), (x, y) => x - y);
      const gb = paired(values(r.b.better, look), values(r.b.worse, look), (x, y) => x - y);
      return { perSeed: paired(ga, gb, (x, y) => (x - y) * k), steps: [] };
    }
    case "rise": {
      const series = r.steps.map((s) => values(s, look));
      const steps = series.slice(1).map((v, i) => paired(v, series[i]!, (x, y) => (x - y) * k));
      return { perSeed: paired(series[series.length - 1]!, series[0]!, (x, y) => (x - y) * k), steps };
    }
  }
}

/** Positions grouped by unit, in order of first appearance (every position its own unit without `units`). */
function unitGroups(n: number, units: readonly number[] | undefined): { seed: number | null; at: number[] }[] {
  if (units === undefined) return Array.from({ length: n }, (_, i) => ({ seed: null, at: [i] }));
  if (units.length !== n) throw new Error(`the claim names ${units.length} units for ${n} values`);
  const groups = new Map<number, number[]>();
  units.forEach((u, i) => groups.set(u, [...(groups.get(u) ?? []), i]));
  return [...groups].map(([seed, at]) => ({ seed, at }));
}

/** Each unit's mean over its values that are defined and finite (undefined when none is). */
function perUnit(xs: readonly (number | undefined)[], groups: readonly { at: readonly number[] }[]): (number | undefined)[] {
  return groups.map((g) => mean(finite(g.at.map((i) => xs[i]))) ?? undefined);
}

const finite = (xs: readonly (number | undefined)[]): number[] => xs.filter((x): x is number => x !== undefined && Number.isFinite(x));

export function mean(xs: readonly number[]): number | null {
  return xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** Sample standard deviation (n - 1); null for fewer than two values. */
export function sampleSd(xs: readonly number[]): number | null {
  const m = mean(xs);
  if (m === null || xs.length < 2) return null;
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
}

/** t(0.95, df): the one-sided 95% quantile of Student's t, df 1..30 (then the normal's 1.645). */
const T95 = [6.314, 2.92, 2.353, 2.132, 2.015, 1.943, 1.895, 1.86, 1.833, 1.812, 1.796, 1.782, 1.771, 1.761, 1.753, 1.746, 1.74, 1.734, 1.729, 1.725, 1.721, 1.717, 1.714, 1.711, 1.708, 1.706, 1.703, 1.701, 1.699, 1.697];

/** Half-width of the one-sided 95% t-interval of a mean of `n` values with sample sd `sd` (0 without a spread). */
export function margin95(sd: number | null, n: number): number {
  if (sd === null || n < 2) return 0;
  return (T95[n - 2] ?? 1.645) * sd / Math.sqrt(n);
}

/** The verdict for mean `mean` of `n` values with sample sd `sd` (see the module comment). */
export function verdictOf(m: number, sd: number | null, n: number, threshold: number, direction: ClaimSpec["direction"]): Verdict {
  const t = margin95(sd, n);
  if (direction === "at-least") return m - t >= threshold ? "holds" : m + t < threshold ? "does-not-hold" : "inconclusive";
  if (direction === "above") return m - t > threshold ? "holds" : m + t <= threshold ? "does-not-hold" : "inconclusive";
  return m + t <= threshold ? "holds" : m - t > threshold ? "does-not-hold" : "inconclusive";
}

const fmt = (x: number, unit: ClaimSpec["unit"]): string => (unit === "points" ? `${x.toFixed(1)} points` : x.toFixed(unit === "ratio" ? 2 : 3));

const THRESHOLD_SIGN: Readonly<Record<ClaimSpec["direction"], string>> = { "at-least": ">=", "at-most": "<=", above: ">" };

/**
 * A rise "at every step" is several claims at once (an intersection): it holds only if each
 * step's gain, paired by seed, holds on its own under the same rule and threshold, and the
 * overall gain holds; it does not hold if the overall gain or any step's gain does not hold.
 * Otherwise it is inconclusive, naming the first step the seeds do not settle. (Until 2026-11-29 a
 * step only needed a non-negative mean, so the verdict of a saturated step of +1 ± 3 points
 * followed the sign of its noise: "holds" under one CPU's kernels, "inconclusive" under another's.)
 */
function everyStep(spec: ClaimSpec, overall: Verdict, steps: readonly (readonly number[])[]): { verdict: Verdict; note?: string } {
  const judged = steps.map((xs, i) => {
    const m = mean(xs);
    const sd = sampleSd(xs);
    const num = (x: number): string => fmt(x, spec.unit).replace(/ points$/, "");
    const value = m === null ? "no value" : `${m >= 0 ? "+" : ""}${num(m)}${sd === null ? "" : ` ± ${num(sd)}`}${spec.unit === "points" ? " points" : ""}`;
    const text = `step ${i + 1} -> ${i + 2}: ${value}`;
    return { verdict: m === null ? ("inconclusive" as const) : verdictOf(m, sd, xs.length, spec.threshold, spec.direction), text };
  });
  const verdict = riseVerdict(overall, judged.map((j) => j.verdict));
  const falls = judged.find((j) => j.verdict === "does-not-hold");
  const open = judged.find((j) => j.verdict !== "holds");
  const note = falls !== undefined ? `${falls.text} does not hold` : verdict === "inconclusive" && open !== undefined ? `${open.text} is not settled (every step must hold on its own)` : undefined;
  return { verdict, ...(note === undefined ? {} : { note }) };
}

/** The every-step rule on verdicts (see everyStep): any step or the whole failing fails it; any step unsettled leaves it open. */
export function riseVerdict(overall: Verdict, steps: readonly Verdict[]): Verdict {
  if (overall === "does-not-hold" || steps.includes("does-not-hold")) return "does-not-hold";
  return steps.every((v) => v === "holds") ? overall : "inconclusive";
}

/** The ceiling check of a gain claim with a ceiling (see CeilingCheck); null when a seed lacks a value. */
function ceilingOf(spec: ClaimSpec, look: Lookup, gainSd: number | null, n: number): CeilingCheck | null {
  const c = spec.ceiling;
  if (c === undefined || spec.rule.kind !== "gain") return null;
  const [b, w, cb, cw] = [spec.rule.better, spec.rule.worse, c.better, c.worse].map((op) => values(op, look));
  const k = scale(spec);
  const gaps = paired(cb!, cw!, (x, y) => (x - y) * k);
  const shares = paired(paired(b!, w!, (x, y) => x + y), paired(cb!, cw!, (x, y) => x + y), (x, y) => (y === 0 ? Number.NaN : x / y));
  const expected = paired(shares, gaps, (s, g) => s * g);
  const ok = (xs: readonly (number | undefined)[]): xs is number[] => xs.every((x) => x !== undefined && Number.isFinite(x));
  if (!ok(gaps) || !ok(shares) || !ok(expected)) return null;
  const [gap, share, exp] = [mean(gaps)!, mean(shares)!, mean(expected)!];
  const resolvable = n < 2 || gainSd === null ? null : margin95(gainSd, n);
  const measurable = resolvable === null ? null : Math.abs(exp) > resolvable;
  const num = (x: number): string => fmt(x, spec.unit);
  const signed = (x: number): string => `${x >= 0 ? "+" : ""}${num(x)}`;
  const verdict = measurable === null ? "no spread over seeds to compare it with" : `${measurable ? "above" : "below"} the ${num(resolvable!)} that ${n} seeds resolve: ${measurable ? "" : "not "}measurable at this ceiling`;
  const text = `ceiling (${c.label}): the better side's ${signed(gap)} over the other's; the two reach ${(100 * share).toFixed(1)}% of their ceilings, so a gain in that proportion would be ${signed(exp)}, ${verdict}`;
  return { label: c.label, gap, share, expected: exp, resolvable, measurable, text };
}

/** One claim checked against the numbers; `evidence` lists the evaluations it read. */
export function checkClaim(spec: ClaimSpec, look: Lookup, evidence: readonly Evidence[]): Finding {
  const raw = statistic(spec, look);
  const groups = unitGroups(raw.perSeed.length, spec.units);
  const perSeed = perUnit(raw.perSeed, groups);
  const steps = raw.steps.map((xs) => perUnit(xs, groups));
  const units = spec.units === undefined ? undefined : groups.map((g) => ({ seed: g.seed!, values: finite(g.at.map((i) => raw.perSeed[i])) }));
  const defined = finite(perSeed);
  const threshold = `${THRESHOLD_SIGN[spec.direction]} ${fmt(spec.threshold, spec.unit)} (mean ${spec.direction === "at-most" ? "+" : "-"} t-margin over ${spec.units === undefined ? "seeds" : "θ0s"})`;
  const decision = { rule: spec.rule.kind, threshold: spec.threshold, direction: spec.direction };
  const base = { id: spec.id, title: spec.title, paper: spec.paper, measure: spec.measure, unit: spec.unit, threshold, decision, evidence };
  if (defined.length === 0) return { ...base, value: null, sd: null, seeds: 0, perSeed: [], verdict: "not-measured", note: "no turns of the groups this claim reads" };
  const m = mean(defined)!;
  const sd = sampleSd(defined);
  let verdict = verdictOf(m, sd, defined.length, spec.threshold, spec.direction);
  let note: string | undefined;
  const stepValues = steps.map(finite);
  if (steps.length > 1) ({ verdict, note } = everyStep(spec, verdict, stepValues));
  if (defined.length < perSeed.length) note = `${perSeed.length - defined.length} seed(s) without a value`;
  const ceiling = ceilingOf(spec, look, sd, defined.length);
  return { ...base, value: m, sd, seeds: defined.length, perSeed: defined, ...(units === undefined ? {} : { units }), ...(steps.length > 1 ? { steps: stepValues } : {}), verdict, ...(note === undefined ? {} : { note }), ...(ceiling === null ? {} : { ceiling }) };
}

/** Every input a claim reads (for the step's wiring and the evidence list). */
export function inputsOf(spec: Pick<ClaimSpec, "rule" | "ceiling">): string[] {
  const rule = spec.rule;
  const ops: Operand[] =
    rule.kind === "ratio" ? [rule.num, rule.den]
    : rule.kind === "gain" ? [rule.better, rule.worse]
    : rule.kind === "gain-difference" ? [rule.a.better, rule.a.worse, rule.b.better, rule.b.worse]
    : rule.steps;
  const ceiling = spec.ceiling === undefined ? [] : [spec.ceiling.better, spec.ceiling.worse];
  return [...new Set([...ops, ...ceiling].flatMap((o) => o.inputs))];
}

/** "3 seeds", or for a claim over units "10 θ0s × 3 fine-tunings" (the largest count, where a unit lacks values). */
export function seedCount(c: { readonly seeds: number; readonly units?: Finding["units"] | undefined }): string {
  if (c.units === undefined) return `${c.seeds} seed${c.seeds === 1 ? "" : "s"}`;
  const most = Math.max(0, ...c.units.map((u) => u.values.length));
  return `${c.seeds} θ0${c.seeds === 1 ? "" : "s"} × ${most} fine-tuning${most === 1 ? "" : "s"}, averaged per θ0`;
}

export function findingsMarkdown(f: FindingsFile): string {
  const lines = [`# Findings (${f.data} data)`, "", "Each of the paper's claims checked against this run's numbers: mean ± sd over training seeds; the verdict uses the spread (see steps/findings/claims.ts).", ""];
  lines.push("| claim | paper | measured | threshold | verdict |", "|---|---|---|---|---|");
  for (const c of f.claims) {
    const value = c.value === null ? "-" : `${fmt(c.value, c.unit)}${c.sd === null ? "" : ` ± ${fmt(c.sd, c.unit).replace(" points", "")}`} (${seedCount(c)})`;
    const notes = [c.note, c.ceiling?.text].filter((x) => x !== undefined);
    lines.push(`| ${c.title} | ${c.paper} | ${value}: ${c.measure} | ${c.threshold} | ${c.verdict}${notes.length === 0 ? "" : ` (${notes.join("; ")})`} |`);
  }
  return `${lines.join("\n")}\n`;
}

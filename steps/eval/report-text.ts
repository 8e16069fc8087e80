/**
 * Plain-text tables of the `evaluate` command: one run (groups as rows, metrics as columns, as
 * before) or several runs (one block per group, runs as rows, significance marks beside the values),
 * and the per-query TSV. Pure: values in, text out. Numbers print like trec_eval ("%.4f").
 */
import type { Breakdown, BreakdownGroup } from "./breakdown.ts";
import type { Comparison, SignificanceTest } from "./compare.ts";
import type { Aggregate, PerQueryRow } from "./evaluate.ts";
import { formatFixed } from "./format.ts";

export interface RunReport {
  readonly label: string;
  readonly file: string;
  readonly aggregate: Aggregate;
  readonly byQuestionType: Breakdown;
  readonly byDomain: Breakdown;
}

export const TEST_MARKS: Readonly<Record<SignificanceTest, string>> = { "t-test": "*", randomization: "†" };

/** Rows as aligned text columns: the first `leftColumns` left-aligned, the others (numbers) right-aligned. */
export function table(rows: readonly string[][], leftColumns = 1): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows.map((r) => r.map((cell, i) => (i < leftColumns ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ").trimEnd());
}

export function countsLine(a: Aggregate): string {
  const c = a.counts;
  return (
    `${c.evaluated} queries evaluated of ${c.qrelsQueries} in the qrels; ` +
    `${c.noGold} without gold (${a.noGold === "normalized" ? "skipped" : "scored 0"}), ` +
    `${c.missingFromRun} missing from the run (${a.missing === "zero" ? "scored 0" : "skipped"}), ` +
    `${c.ignoredNotInQrels} run queries not in the qrels (ignored); ties: ${a.tieRule}`
  );
}

/** Label groups of a run, as (row name, group) pairs: "questionType=first", "domain=nq", ... */
export function labelGroups(r: RunReport): { name: string; group: BreakdownGroup }[] {
  const out: { name: string; group: BreakdownGroup }[] = [];
  for (const [dim, b] of [["questionType", r.byQuestionType], ["domain", r.byDomain]] as const) for (const g of b.groups) out.push({ name: `${dim}=${g.group}`, group: g });
  return out;
}

function unlabelledNotes(r: RunReport): string[] {
  const notes: string[] = [];
  // A dimension the labels file does not cover at all (TopiOCQA files have no domains) gets no note.
  for (const [dim, b] of [["questionType", r.byQuestionType], ["domain", r.byDomain]] as const) if (b.unlabelled > 0 && b.groups.length > 0) notes.push(`${b.unlabelled} evaluated queries carry no ${dim} label`);
  return notes;
}

/** One run: a line for all evaluated queries, then (with labels) one per group, each with N. */
export function formatSingleRun(r: RunReport, header: string, withBreakdowns: boolean, notes: readonly string[]): string {
  const names = Object.keys(r.aggregate.metrics);
  const rows: string[][] = [["group", "N", ...names]];
  const add = (label: string, n: number, metrics: Record<string, number>): void => void rows.push([label, String(n), ...names.map((m) => formatFixed(metrics[m] ?? Number.NaN, 4))]);
  add("all", r.aggregate.n, r.aggregate.metrics);
  if (withBreakdowns) for (const { name, group } of labelGroups(r)) add(name, group.n, group.metrics);
  const tail = [...(withBreakdowns ? unlabelledNotes(r) : []), ...notes];
  return [header, countsLine(r.aggregate), "", ...table(rows), ...(tail.length > 0 ? ["", ...tail] : [])].join("\n") + "\n";
}

export interface ComparisonSettings {
  readonly baseline: string;
  readonly pairs: "baseline" | "all";
  readonly tests: readonly SignificanceTest[];
  readonly trials: number;
  readonly seed: number;
  readonly alpha: number;
}

function formatP(p: number): string {
  if (Number.isNaN(p)) return "n/a";
  return p < 0.0001 ? "<0.0001" : formatFixed(p, 4);
}

/**
 * Several runs: a header naming them, each run's counts, then per group a block with one row per
 * run. Against the baseline (pairs "baseline") a value carries the mark of every test that found it
 * significantly different; then the list of comparisons with differences and adjusted p-values.
 */
export function formatComparison(runs: readonly RunReport[], header: readonly string[], comparisons: readonly Comparison[], settings: ComparisonSettings, withBreakdowns: boolean, notes: readonly string[]): string {
  const names = Object.keys(runs[0]!.aggregate.metrics);
  const lines: string[] = [...header];
  for (const r of runs) lines.push(`${r.label}: ${countsLine(r.aggregate)}`);
  const groupNames = ["all", ...(withBreakdowns ? labelGroups(runs[0]!).map((g) => g.name) : [])];
  for (const r of runs.slice(1)) for (const g of labelGroups(r)) if (withBreakdowns && !groupNames.includes(g.name)) groupNames.push(g.name);
  const marks = (group: string, metric: string, run: string): string => {
    if (settings.pairs !== "baseline" || run === settings.baseline) return "";
    const c = comparisons.find((x) => x.group === group && x.metric === metric && x.b === run && x.a === settings.baseline);
    if (c === undefined) return "";
    const found = settings.tests.map((t) => (c.tests[t]?.significant ? TEST_MARKS[t] : "")).join("");
    // The direction first: a run significantly below the baseline must not read like one above it.
    return found === "" ? "" : `${c.diff > 0 ? "+" : "-"}${found}`;
  };
  for (const group of groupNames) {
    const cells = runs.map((r) => {
      const g = group === "all" ? { n: r.aggregate.n, metrics: r.aggregate.metrics } : labelGroups(r).find((x) => x.name === group)?.group;
      return { label: r.label, n: g?.n ?? 0, metrics: g?.metrics ?? {} };
    });
    const ns = [...new Set(cells.map((c) => c.n))];
    lines.push("", `${group} (N=${ns.join("/")})`);
    const rows: string[][] = [["run", ...names]];
    for (const c of cells) {
      const mark = (m: string) => marks(group, m, c.label);
      rows.push([c.label + (c.label === settings.baseline && settings.pairs === "baseline" ? " (baseline)" : ""), ...names.map((m) => `${c.metrics[m] === undefined ? "-" : formatFixed(c.metrics[m], 4)}${mark(m).padEnd(settings.tests.length + 1)}`)]);
    }
    lines.push(...table(rows));
  }
  const testText = settings.tests
    .map((t) => (t === "t-test" ? `${TEST_MARKS[t]} paired t-test` : `${TEST_MARKS[t]} randomization test (sign flips: exact when 2^N <= ${settings.trials}, else ${settings.trials} seeded draws, seed ${settings.seed})`))
    .join(", ");
  lines.push(
    "",
    `Significance (two-sided, Holm-corrected over the ${settings.pairs === "baseline" ? "comparisons with the baseline" : "pairs of runs"} per metric and group, alpha ${settings.alpha}): ${testText}${settings.pairs === "baseline" ? "; + marks a value significantly above the baseline's, - below" : ""}`,
  );
  const rows: string[][] = [["group", "metric", "run", "vs", "N", "diff", ...settings.tests.map((t) => `p ${t} (Holm)`)]];
  for (const c of comparisons) {
    if (!withBreakdowns && c.group !== "all") continue;
    const sign = c.diff > 0 ? "+" : "";
    rows.push([
      c.group,
      c.metric,
      c.b,
      c.a,
      String(c.n),
      Number.isNaN(c.diff) ? "n/a" : `${sign}${formatFixed(c.diff, 4)}`,
      ...settings.tests.map((t) => {
        const o = c.tests[t];
        return o === undefined ? "" : `${formatP(o.p)} (${formatP(o.pHolm)})${o.significant ? TEST_MARKS[t] : " "}`;
      }),
    ]);
  }
  lines.push(...table(rows, 4));
  const tail = [...(withBreakdowns ? runs.flatMap((r) => unlabelledNotes(r).map((n) => `${r.label}: ${n}`)) : []), ...notes];
  if (tail.length > 0) lines.push("", ...tail);
  return lines.join("\n") + "\n";
}

/** Per-query values as TSV: qid, n_gold, then `<run>:<metric>` columns (runs in order); qids in the first run's order, then others. */
export function formatPerQuery(runs: readonly { label: string; perQuery: readonly PerQueryRow[] }[], metrics: readonly string[]): string {
  const qids: string[] = [];
  const seen = new Set<string>();
  const byRun = runs.map((r) => new Map(r.perQuery.map((row) => [row.qid, row])));
  for (const r of runs) {
    for (const row of r.perQuery) {
      if (seen.has(row.qid)) continue;
      seen.add(row.qid);
      qids.push(row.qid);
    }
  }
  const header = ["qid", "n_gold", ...runs.flatMap((r) => metrics.map((m) => (runs.length === 1 ? m : `${r.label}:${m}`)))];
  const lines = [header.join("\t")];
  for (const qid of qids) {
    const nGold = byRun.map((m) => m.get(qid)?.nGold).find((n) => n !== undefined) ?? 0;
    const cell = (m: ReadonlyMap<string, PerQueryRow>, name: string): string => {
      const v = m.get(qid)?.metrics[name];
      return v === undefined ? "" : formatFixed(v, 4);
    };
    lines.push([qid, String(nGold), ...byRun.flatMap((m) => metrics.map((name) => cell(m, name)))].join("\t"));
  }
  return lines.join("\n") + "\n";
}

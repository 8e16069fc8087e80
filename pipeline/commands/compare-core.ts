/**
 * `compare`'s pure core: the runs the store remembers (their records: targets, data source,
 * `--set` overrides, start time) against the metrics of their evaluations, as rows of one
 * table, in the terminal and as CSV. No I/O: the adapter (compare.ts) reads the records and the
 * evaluations' cached outputs.
 */
import type { RunRecord } from "../engine/store.ts";
import { overridesText } from "../definitions/overrides.ts";

/** One evaluation a run resolved: its step and key, and its metrics when the entry is still in the store. */
export interface RunEvaluation {
  readonly step: string;
  readonly key: string;
  /** null: the entry was removed (gc) or damaged. */
  readonly metrics: { readonly n: number; readonly values: Readonly<Record<string, number>> } | null;
}

export interface RunInput {
  /** The record's file name (its id), e.g. `2026-11-24T06-01-02-123Z-4242.json`. */
  readonly file: string;
  readonly record: RunRecord;
  readonly evaluations: readonly RunEvaluation[];
}

export interface CompareRow {
  /** When the run started (older records: when it ended). */
  readonly time: string;
  readonly run: string;
  readonly targets: string;
  readonly data: string;
  /** The `--set` overrides as `path=value`, sorted; empty: the code's values. */
  readonly overrides: readonly string[];
  readonly evaluation: string;
  readonly key: string;
  readonly n: number;
  /** Per selected metric; null where the evaluation did not compute it. */
  readonly metrics: readonly (number | null)[];
}

export interface Comparison {
  readonly metrics: readonly string[];
  readonly rows: readonly CompareRow[];
  /** Runs with evaluations whose entries are gone from the store: how many of how many. */
  readonly gone: readonly { readonly run: string; readonly time: string; readonly targets: string; readonly gone: number; readonly of: number }[];
}

export interface CompareOptions {
  readonly metrics: readonly string[];
  /** Keep evaluations whose step name contains one of these (`*` matches anything); empty: all. */
  readonly evals?: readonly string[];
  /** Every run's rows; by default a row whose evaluation, key and overrides a newer run repeats is shown once (the newest). */
  readonly all?: boolean;
  /**
   * One row per model over its seeds: evaluations whose step names differ only in a `.s<seed>.`
   * segment (or a replicate's `.s<seed>.r<n>.`: another fine-tuning from the seed's θ0) become
   * `...s*...` with each metric's mean over the models (N: the summed query count; a metric
   * missing from one model is missing from the mean).
   */
  readonly meanSeeds?: boolean;
}

const SEED = /\.s\d+(?:\.r\d+)?(?=\.|$)/;

/** "3 seeds", or "30 models" where replicates of a seed (a `.r<n>` in the seed segment) are among them. */
const countLabel = (members: readonly RunEvaluation[]): string => (members.some((m) => SEED.exec(m.step)?.[0].includes(".r")) ? `${members.length} models` : `${members.length} seeds`);

/** A run's evaluations with seeds merged into their mean (see `meanSeeds`), in name order. */
export function meanOverSeeds(evals: readonly RunEvaluation[]): RunEvaluation[] {
  const groups = new Map<string, RunEvaluation[]>();
  for (const e of evals) {
    const name = e.step.replace(SEED, ".s*");
    groups.set(name, [...(groups.get(name) ?? []), e]);
  }
  const out: RunEvaluation[] = [];
  for (const [step, members] of [...groups].sort(([a], [b]) => cmp(a, b))) {
    if (members.length === 1 && step === members[0]!.step) {
      out.push(members[0]!);
      continue;
    }
    const key = members.map((m) => m.key).sort().join("+");
    const present = members.filter((m) => m.metrics !== null);
    // A seed that gc removed makes the mean incomplete: the group counts as gone.
    if (present.length < members.length) {
      out.push({ step: `${step} (${countLabel(members)})`, key, metrics: null });
      continue;
    }
    const names = Object.keys(present[0]!.metrics!.values).filter((m) => present.every((p) => typeof p.metrics!.values[m] === "number"));
    const values: Record<string, number> = {};
    for (const m of names) values[m] = present.reduce((a, p) => a + p.metrics!.values[m]!, 0) / present.length;
    out.push({ step: `${step} (${countLabel(members)})`, key, metrics: { n: present.reduce((a, p) => a + p.metrics!.n, 0), values } });
  }
  return out;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** `*` matches any run of characters; otherwise a substring. */
export function matchesPattern(name: string, pattern: string): boolean {
  if (!pattern.includes("*")) return name.includes(pattern);
  const re = new RegExp(pattern.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*"));
  return re.test(name);
}

/** Rows sorted by evaluation, then run start time, so the same evaluation of different runs sits together. */
export function buildComparison(runs: readonly RunInput[], options: CompareOptions): Comparison {
  const rows: CompareRow[] = [];
  const gone: Comparison["gone"][number][] = [];
  const wanted = (step: string) => (options.evals ?? []).length === 0 || options.evals!.some((p) => matchesPattern(step, p));
  for (const r of runs) {
    const selected = r.evaluations.filter((e) => wanted(e.step));
    const evals = options.meanSeeds ? meanOverSeeds(selected) : selected;
    const time = r.record.started ?? r.record.time;
    const targets = r.record.targets.join(",");
    const missing = evals.filter((e) => e.metrics === null).length;
    if (missing > 0) gone.push({ run: r.file, time, targets, gone: missing, of: evals.length });
    for (const e of evals) {
      if (e.metrics === null) continue;
      rows.push({
        time,
        run: r.file,
        targets,
        data: r.record.about?.data ?? "?",
        overrides: overridesText(r.record.about?.overrides),
        evaluation: e.step,
        key: e.key,
        n: e.metrics.n,
        metrics: options.metrics.map((m) => e.metrics!.values[m] ?? null),
      });
    }
  }
  rows.sort((a, b) => cmp(a.evaluation, b.evaluation) || cmp(a.time, b.time) || cmp(a.run, b.run));
  let kept = rows;
  if (!options.all) {
    // The same evaluation entry under the same overrides in several runs (a rerun, another target sharing it): the newest run's row.
    const newest = new Map<string, CompareRow>();
    for (const row of rows) newest.set(`${row.evaluation}\u0000${row.key}\u0000${row.data}\u0000${row.overrides.join(" ")}`, row);
    const keep = new Set(newest.values());
    kept = rows.filter((r) => keep.has(r)).map((r) => r);
  }
  return { metrics: options.metrics, rows: kept, gone: gone.sort((a, b) => cmp(a.time, b.time) || cmp(a.run, b.run)) };
}

const fmt = (v: number | null): string => (v === null ? "-" : v.toFixed(4));
const shortTime = (iso: string): string => iso.replace("T", " ").slice(0, 19);

/** The comparison as an aligned text table, then a note per run whose evaluations gc removed. */
export function comparisonText(c: Comparison): string {
  const head = ["started", "targets", "data", "overrides", "evaluation", "N", ...c.metrics];
  const body = c.rows.map((r) => [shortTime(r.time), r.targets, r.data, r.overrides.length ? r.overrides.join(" ") : "-", r.evaluation, String(r.n), ...r.metrics.map(fmt)]);
  const numeric = (i: number) => i >= 5;
  const width = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (numeric(i) ? cell.padStart(width[i]!) : cell.padEnd(width[i]!)))
      .join("  ")
      .trimEnd();
  const out = c.rows.length > 0 ? [line(head), ...body.map(line)] : ["no evaluations of the selected runs are in the store"];
  for (const g of c.gone) out.push(`note: run ${g.run} (${shortTime(g.time)}, ${g.targets}): ${g.gone} of ${g.of} evaluations were removed from the store (gc); not shown`);
  return out.join("\n") + "\n";
}

const csvCell = (s: string): string => (/[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

/** RFC 4180 CSV: one row per evaluation of a run; full precision, ISO times, overrides space-separated. */
export function comparisonCsv(c: Comparison): string {
  const head = ["started", "run", "targets", "data", "overrides", "evaluation", "key", "n", ...c.metrics];
  const rows = c.rows.map((r) => [r.time, r.run, r.targets, r.data, r.overrides.join(" "), r.evaluation, r.key, String(r.n), ...r.metrics.map((m) => (m === null ? "" : String(m)))]);
  return [head, ...rows].map((cells) => cells.map(csvCell).join(",")).join("\r\n") + "\r\n";
}

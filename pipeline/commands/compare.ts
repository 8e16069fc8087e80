/**
 * `compare [<target or run record> ...]`: params against metrics for the runs the store
 * remembers, like `dvc exp show`. A run record (`<store>/runs/*.json`) names the run's targets,
 * data source, `--set` overrides and start time, and the key every step resolved to; the metrics
 * are read from the cached outputs of its evaluations (steps with a `json:metrics` output), by key.
 * Only evaluations still in the store are shown; runs that lost some to gc are named below the table.
 *
 *   compare                                  every run the store remembers
 *   compare table2 2026-11-24T06-01-02...    runs of a target, or one record (file name, a prefix, or a path)
 *   --metric mrr,recall@10 (repeatable)      the metrics' columns (default: mrr, recall@10, recall@100)
 *   --eval <pattern> (repeatable)            evaluations whose step name contains it (`*` = anything)
 *   --all                                    also the rows a newer run repeats (same entry, same overrides)
 *   --mean-seeds                             one row per model: the mean over its seeds' evaluations
 *   --csv <file>                             write the table as CSV too; --json prints it as JSON
 */
import type { Command } from "commander";
import { readFile, writeFile } from "node:fs/promises";
import { basename } from "node:path";
import type { Entry, RunRecord, Store } from "../engine/store.ts";
import type { Project } from "../session.ts";
import { repeatable } from "./repeatable.ts";
import { buildComparison, comparisonCsv, comparisonText, type RunEvaluation, type RunInput } from "./compare-core.ts";

export const DEFAULT_COMPARE_METRICS: readonly string[] = ["mrr", "recall@10", "recall@100"];

interface MetricsJson {
  readonly aggregate?: { readonly n?: number; readonly metrics?: Readonly<Record<string, number>> };
}

/**
 * The evaluations of each run: the steps whose entries have a `json:metrics` output, with their
 * aggregate metrics, and the steps of those ids whose entries are gone (null metrics). Which step
 * ids evaluate is learnt from the entries still there (any run's), plus `evaluate-run`.
 */
async function evaluationsOf(store: Store, runs: readonly { record: RunRecord }[]): Promise<RunEvaluation[][]> {
  const evaluating = new Set(["evaluate-run"]);
  const found = new Map<string, { output: string; entry: Entry } | null>(); // key -> its metrics output, null: none or no entry
  for (const r of runs) {
    for (const { stepId, key } of Object.values(r.record.steps)) {
      if (found.has(key)) continue;
      const entry = await store.lookup(stepId, key);
      const output = entry === undefined ? undefined : Object.keys(entry.manifest.outputs).find((o) => entry.manifest.outputs[o]!.kind === "json:metrics");
      if (output !== undefined) evaluating.add(stepId);
      found.set(key, entry !== undefined && output !== undefined ? { output, entry } : null);
    }
  }
  const metrics = new Map<string, RunEvaluation["metrics"]>();
  const read = async (key: string): Promise<RunEvaluation["metrics"]> => {
    if (metrics.has(key)) return metrics.get(key)!;
    const at = found.get(key);
    let value: RunEvaluation["metrics"] = null;
    if (at) {
      try {
        const agg = (JSON.parse(await readFile(store.outputPath(at.entry, at.output), "utf8")) as MetricsJson).aggregate;
        if (agg?.metrics !== undefined) value = { n: agg.n ?? 0, values: agg.metrics };
      } catch {
        value = null; // unreadable: shown as gone ('doctor' names the damage)
      }
    }
    metrics.set(key, value);
    return value;
  };
  const out: RunEvaluation[][] = [];
  for (const r of runs) {
    const evals: RunEvaluation[] = [];
    for (const name of Object.keys(r.record.steps).sort()) {
      const { stepId, key } = r.record.steps[name]!;
      if (evaluating.has(stepId)) evals.push({ step: name, key, metrics: await read(key) });
    }
    out.push(evals);
  }
  return out;
}

/** The run records a selection names: targets (runs that built them) or records (file name, prefix or path); none: every run. */
export function selectRuns<R extends { file: string; record: { targets: readonly string[] } }>(records: readonly R[], selectors: readonly string[]): { runs: R[]; unmatched: string[] } {
  if (selectors.length === 0) return { runs: [...records], unmatched: [] };
  const unmatched: string[] = [];
  const picked = new Set<R>();
  for (const sel of selectors) {
    const name = basename(sel);
    const hits = records.filter((r) => r.record.targets.includes(sel) || basename(r.file) === name || basename(r.file).startsWith(name));
    if (hits.length === 0) unmatched.push(sel);
    for (const h of hits) picked.add(h);
  }
  return { runs: records.filter((r) => picked.has(r)), unmatched };
}

export interface CompareCommandIO {
  readonly project: () => Promise<Project>;
  readonly out: (text: string) => void;
  readonly err: (line: string) => void;
  readonly setExitCode: (code: number) => void;
}

interface CompareFlags {
  metric: string[];
  eval: string[];
  all: boolean;
  meanSeeds: boolean;
  csv?: string;
  json: boolean;
}

export function registerCompareCommand(program: Command, io: CompareCommandIO): void {
  const list = (v: string, prev: string[]) => [...prev, ...v.split(",").map((s) => s.trim()).filter((s) => s !== "")];
  program
    .command("compare")
    .description("params (--set overrides) against metrics for the runs the store remembers, like 'dvc exp show'")
    .argument("[runs...]", "targets (runs that built them) or run records (file name or prefix in <store>/runs/); default: every run")
    .option("--metric <names>", `metric columns, comma-separated or repeated (default: ${DEFAULT_COMPARE_METRICS.join(",")})`, list, [] as string[])
    .option("--eval <pattern>", "only evaluations whose step name contains this ('*' = anything; repeatable)", repeatable, [] as string[])
    .option("--all", "also rows a newer run repeats (the same evaluation entry with the same overrides)", false)
    .option("--mean-seeds", "one row per model: the mean of its seeds' evaluations (step names differing only in .s<seed>.)", false)
    .option("--csv <file>", "also write the table as CSV")
    .option("--json", "print the comparison as JSON", false)
    .action(async (selectors: string[], flags: CompareFlags) => {
      const p = await io.project();
      const records = (await p.store.runRecords()).map((r) => ({ file: basename(r.file), record: r.record }));
      const { runs, unmatched } = selectRuns(records, selectors);
      if (unmatched.length > 0) {
        const targets = [...new Set(records.flatMap((r) => r.record.targets))].sort();
        io.err(`error: no run record matches ${unmatched.map((u) => `'${u}'`).join(", ")} in ${p.store.root}/runs. Fix: name a target a run built (${targets.join(", ") || "none yet"}) or a record file`);
        io.setExitCode(2);
        return;
      }
      const evaluations = await evaluationsOf(p.store, runs);
      const inputs: RunInput[] = runs.map((r, i) => ({ ...r, evaluations: evaluations[i]! }));
      const metrics = flags.metric.length > 0 ? flags.metric : DEFAULT_COMPARE_METRICS;
      const c = buildComparison(inputs.filter((r) => r.evaluations.length > 0), { metrics, evals: flags.eval, all: flags.all, meanSeeds: flags.meanSeeds });
      // A metric no evaluation computed is most likely a typo: say which names there are.
      const known = [...new Set(inputs.flatMap((r) => r.evaluations.flatMap((e) => Object.keys(e.metrics?.values ?? {}))))].sort();
      metrics.forEach((m, i) => {
        if (c.rows.length > 0 && c.rows.every((r) => r.metrics[i] === null)) io.err(`warning: no selected evaluation has the metric '${m}'; they have: ${known.join(", ")}`);
      });
      if (flags.csv !== undefined) await writeFile(flags.csv, comparisonCsv(c));
      io.out(flags.json ? JSON.stringify({ schema: "cspipe.compare/1", ...c }) + "\n" : comparisonText(c));
    });
}

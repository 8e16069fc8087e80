/**
 * `evaluate`: score any run against any qrels, outside the pipeline.
 *
 *   evaluate --run <file> --qrels <file> [--labels <file>] [--metrics mrr,recall@10,...]
 *            [--no-gold normalized|raw] [--missing zero|skip] [--split <name>] [--json] [--out <dir>]
 *
 * Runs are TREC run files or JSON `{qid: {pid: score}}`, qrels TREC qrels or JSON
 * `{qid: {pid: rel}}` (both sniffed). `--labels` takes the authors' question-type file
 * (`{"first": [qids], "switch": [...], "no-switch": [...], "trec"/"quac"/"nq": [...]}`) and
 * adds breakdowns by question type and domain, each group with its N. Semantics are the
 * evaluation step's (trec_eval ranking; steps/eval/README.md). `--out` writes
 * `metrics.json` and `per-query.parquet` in the step's format.
 * Exit codes: 0 ok, 2 bad usage or bad input (the message names file, line/field and fix).
 * Heavy modules are imported inside the action so other commands do not load them.
 */
import { Option, type Command } from "commander";
import type { MetricsFile } from "../../steps/eval/steps.ts";
import type { Breakdown } from "../../steps/eval/breakdown.ts";
import type { PerQueryRow } from "../../steps/eval/evaluate.ts";

export interface EvaluateCommandIO {
  readonly stdout: { write(chunk: string): unknown };
  readonly stderr: { write(chunk: string): unknown };
}

interface EvaluateFlags {
  run: string;
  qrels: string;
  labels?: string;
  metrics: string;
  gold: "normalized" | "raw";
  missing: "zero" | "skip";
  split: string;
  json: boolean;
  out?: string;
}

export const DEFAULT_METRICS = "mrr,recall@5,recall@10,recall@20,recall@100";


/** What the command computed: the step's metrics.json plus the files it read. */
export interface EvaluateReport extends MetricsFile {
  readonly files: { readonly run: string; readonly qrels: string; readonly labels: string | null };
}

function pad(text: string, width: number, left: boolean): string {
  return left ? text.padEnd(width) : text.padStart(width);
}

/**
 * The plain-text table: one line for all evaluated queries, then (with labels) one per
 * question type and per domain, each with N; metric values with 4 decimals. Pure.
 */
export function formatEvaluation(report: EvaluateReport, withBreakdowns: boolean): string {
  const { aggregate } = report;
  const names = Object.keys(aggregate.metrics);
  const c = aggregate.counts;
  const lines: string[] = [
    `run ${report.files.run}, qrels ${report.files.qrels}${report.files.labels === null ? "" : `, labels ${report.files.labels}`}`,
    `${c.evaluated} queries evaluated of ${c.qrelsQueries} in the qrels; ` +
      `${c.noGold} without gold (${aggregate.noGold === "normalized" ? "skipped" : "scored 0"}), ` +
      `${c.missingFromRun} missing from the run (${aggregate.missing === "zero" ? "scored 0" : "skipped"}), ` +
      `${c.ignoredNotInQrels} run queries not in the qrels (ignored); ties: ${aggregate.tieRule}`,
    "",
  ];
  const rows: string[][] = [["group", "N", ...names]];
  const add = (label: string, n: number, metrics: Record<string, number>): void => {
    rows.push([label, String(n), ...names.map((m) => (metrics[m] ?? Number.NaN).toFixed(4))]);
  };
  add("all", aggregate.n, aggregate.metrics);
  const notes: string[] = [];
  if (withBreakdowns) {
    const dims: readonly [string, Breakdown][] = [
      ["questionType", report.byQuestionType],
      ["domain", report.byDomain],
    ];
    for (const [dim, b] of dims) {
      for (const g of b.groups) add(`${dim}=${g.group}`, g.n, g.metrics);
      if (b.unlabelled > 0) notes.push(`${b.unlabelled} evaluated queries carry no ${dim} label`);
    }
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const r of rows) lines.push(r.map((cell, i) => pad(cell, widths[i]!, i === 0)).join("  ").trimEnd());
  if (notes.length > 0) lines.push("", ...notes);
  return lines.join("\n") + "\n";
}

export function registerEvaluateCommand(program: Command, io: EvaluateCommandIO, setExitCode: (code: number) => void): void {
  const out = (text: string): void => void io.stdout.write(text);
  const err = (line: string): void => void io.stderr.write(`${line}\n`);
  program
    .command("evaluate")
    .description("score a run (TREC or JSON) against qrels (TREC or JSON), optionally broken down by the authors' question-type labels")
    .requiredOption("--run <file>", "run file: TREC lines 'qid Q0 docid rank score tag' or JSON {qid: {pid: score}}")
    .requiredOption("--qrels <file>", "qrels file: TREC lines 'qid 0 docid rel' or JSON {qid: {pid: rel}} (QReCC's {\"\": 1} = no gold)")
    .option("--labels <file>", "question-type labels, JSON {first|switch|no-switch|trec|quac|nq: [qids]}")
    .option("--metrics <list>", "comma-separated metrics (mrr, recall@k, success@k, map[@k])", DEFAULT_METRICS)
    .addOption(new Option("--no-gold <mode>", "turns without gold: skip them (normalized, the paper's numbers) or score them 0 (raw)").choices(["normalized", "raw"]).default("normalized"))
    .addOption(new Option("--missing <mode>", "gold turns absent from the run: score 0 (trec_eval -c) or skip").choices(["zero", "skip"]).default("zero"))
    .option("--split <name>", "split name recorded in metrics.json", "all")
    .option("--json", "print metrics.json (plus the files read) instead of the table", false)
    .option("--out <dir>", "also write metrics.json and per-query.parquet (the evaluation step's format) into this directory")
    .action(async (flags: EvaluateFlags) => {
      try {
        const { report, perQuery } = await evaluateFiles(flags);
        if (flags.out !== undefined) await writeOutputs(flags.out, report, perQuery);
        out(flags.json ? JSON.stringify(report, null, 2) + "\n" : formatEvaluation(report, flags.labels !== undefined));
      } catch (e) {
        const { InputError } = await import("../engine/errors.ts");
        if (!(e instanceof InputError)) throw e;
        err(`error: ${e.message}`);
        setExitCode(2);
      }
    });
}

async function evaluateFiles(flags: EvaluateFlags): Promise<{ report: EvaluateReport; perQuery: PerQueryRow[] }> {
  const { resolve } = await import("node:path");
  const { readRun } = await import("../../steps/eval/json-run.ts");
  const { readQrels } = await import("../../steps/eval/qrels.ts");
  const { readJsonFile } = await import("../../steps/eval/line-reader.ts");
  const { evaluateRun } = await import("../../steps/eval/evaluate.ts");
  const { breakdown, parseLabelsFile } = await import("../../steps/eval/breakdown.ts");
  const { DOMAIN_ORDER, QUESTION_TYPE_ORDER } = await import("../../steps/eval/outputs.ts");
  const { InputError } = await import("../engine/errors.ts");
  const runPath = resolve(flags.run);
  const qrelsPath = resolve(flags.qrels);
  const metrics = flags.metrics.split(",").map((m) => m.trim()).filter((m) => m !== "");
  if (metrics.length === 0) throw new InputError("no metrics given", { field: "--metrics", fix: "pass e.g. --metrics mrr,recall@10" });
  const labelsPath = flags.labels === undefined ? undefined : resolve(flags.labels);
  const labels = labelsPath === undefined ? new Map() : parseLabelsFile(await readJsonFile(labelsPath), labelsPath);
  const run = await readRun(runPath);
  const qrels = await readQrels(qrelsPath);
  const ev = evaluateRun(run, qrels, { metrics, noGold: flags.gold, missing: flags.missing });
  const report: EvaluateReport = {
    split: flags.split,
    aggregate: ev.aggregate,
    byQuestionType: breakdown(ev.perQuery, labels, { by: "questionType", order: QUESTION_TYPE_ORDER }),
    byDomain: breakdown(ev.perQuery, labels, { by: "domain", order: DOMAIN_ORDER }),
    files: { run: runPath, qrels: qrelsPath, labels: labelsPath ?? null },
  };
  return { report, perQuery: ev.perQuery };
}

/** metrics.json (canonical JSON, the step's fields) and per-query.parquet (the step's schema). */
async function writeOutputs(dir: string, report: EvaluateReport, rows: readonly PerQueryRow[]): Promise<void> {
  const { mkdir, writeFile } = await import("node:fs/promises");
  const { join } = await import("node:path");
  const { canonicalJson } = await import("../engine/canonical.ts");
  const { writePerQuery } = await import("../../steps/eval/outputs.ts");
  await mkdir(dir, { recursive: true });
  const metricsFile: MetricsFile = { split: report.split, aggregate: report.aggregate, byQuestionType: report.byQuestionType, byDomain: report.byDomain };
  await writeFile(join(dir, "metrics.json"), canonicalJson(metricsFile, 2) + "\n");
  await writePerQuery(join(dir, "per-query.parquet"), rows);
}

/**
 * `evaluate`: score one or several runs against any qrels, outside the pipeline.
 *
 *   evaluate --run <file> [--run <file> ...] --qrels <file> [--labels <file>] [--metrics mrr,ndcg@10,...]
 *            [--baseline <run>] [--pairs baseline|all] [--tests t-test,randomization] [--trials N]
 *            [--seed N] [--alpha A] [--per-query [file]] [--no-gold normalized|raw] [--missing zero|skip]
 *            [--ties trec_eval|trec_eval-10|docid-ascending|run-order] [--qid-mapping conv-turn|none]
 *            [--split <name>] [--json] [--out <dir>]
 *
 * Runs are TREC run files or JSON `{qid: {pid: score}}`, qrels TREC qrels or JSON
 * `{qid: {pid: rel}}` (both sniffed). `--labels` takes a question-type file: the authors' QReCC keys
 * (first / switch / no-switch, trec / quac / nq) or TopiOCQA's 1st / tc / ts (mapped to first /
 * no-switch / switch), as {label: [qids]} or {qid: label}; it adds breakdowns by question type and
 * domain, each group with its N. qids `<conv>-<turn>` (TopiOCQA's TREC files) are read as cspipe's
 * `<conv>_<turn>` in every file (`--qid-mapping none` turns that off); the output says what was
 * rewritten. Metric semantics are trec_eval's (steps/eval/README.md).
 * Several runs: one table per group with every run, paired t-test and randomization test against
 * the baseline (or between all pairs), Holm-corrected, marked in the table. `--out` writes
 * metrics.json and per-query.parquet (one run), or one directory per run plus comparison.json.
 * Exit codes: 0 ok, 2 bad usage or bad input (the message names file, line/field and fix).
 * Heavy modules are imported inside the action so other commands do not load them.
 */
import { InvalidArgumentError, Option, type Command } from "commander";
import { InputError } from "../engine/errors.ts";
import type { MetricsFile } from "../../steps/eval/steps.ts";
import type { PerQueryRow } from "../../steps/eval/evaluate.ts";
import type { Comparison, SignificanceTest } from "../../steps/eval/compare.ts";
import type { TieRule } from "../../steps/eval/ranking.ts";
import type { QidMapping } from "../../steps/eval/qids.ts";
import type { RunReport } from "../../steps/eval/report-text.ts";
import type * as ReportTextModule from "../../steps/eval/report-text.ts";
import type { readQrels as ReadQrels } from "../../steps/eval/qrels.ts";
import { repeatable } from "./repeatable.ts";

export interface EvaluateCommandIO {
  readonly stdout: { write(chunk: string): unknown };
  readonly stderr: { write(chunk: string): unknown };
}

interface EvaluateFlags {
  run: string[];
  qrels: string;
  labels?: string;
  metrics: string;
  gold: "normalized" | "raw";
  missing: "zero" | "skip";
  ties: TieRule;
  qidMapping: QidMapping;
  baseline?: string;
  pairs: "baseline" | "all";
  tests: string;
  trials: number;
  seed: number;
  alpha: number;
  /** true: the per-query TSV alone on stdout; a path: the TSV into that file, the table on stdout. */
  perQuery: boolean | string;
  split: string;
  json: boolean;
  out?: string;
}

export const DEFAULT_METRICS = "mrr,recall@5,recall@10,recall@20,recall@100";

/** What the command computed for one run: the step's metrics.json plus the files it read. */
export interface EvaluateReport extends MetricsFile {
  readonly files: { readonly run: string; readonly qrels: string; readonly labels: string | null };
  /** What was rewritten on input (qid mapping, label keys); empty when nothing was. */
  readonly notes: readonly string[];
}

/** Several runs: each run's report, the comparisons and the settings of the tests. */
export interface ComparisonReport {
  readonly runs: readonly (EvaluateReport & { readonly label: string })[];
  readonly comparisons: readonly Comparison[];
  readonly settings: { readonly baseline: string; readonly pairs: "baseline" | "all"; readonly tests: readonly SignificanceTest[]; readonly trials: number; readonly seed: number; readonly alpha: number };
}

function intArg(min: number): (v: string) => number {
  return (v) => {
    const n = Number(v);
    if (!Number.isSafeInteger(n) || n < min) throw new InvalidArgumentError(`must be an integer >= ${min}`);
    return n;
  };
}
function alphaArg(v: string): number {
  const n = Number(v);
  if (!(n > 0 && n < 1)) throw new InvalidArgumentError("must be a number between 0 and 1");
  return n;
}

export function registerEvaluateCommand(program: Command, io: EvaluateCommandIO, setExitCode: (code: number) => void): void {
  const out = (text: string): void => void io.stdout.write(text);
  const err = (line: string): void => void io.stderr.write(`${line}\n`);
  program
    .command("evaluate")
    .description("score runs (TREC or JSON) against qrels (TREC or JSON) with trec_eval's rules; several runs give one comparison table with paired significance tests")
    .requiredOption("--run <file>", "run file: TREC lines 'qid Q0 docid rank score tag' or JSON {qid: {pid: score}}; repeat for a comparison", repeatable)
    .requiredOption("--qrels <file>", "qrels file: TREC lines 'qid 0 docid rel' or JSON {qid: {pid: rel}} (QReCC's {\"\": 1} = no gold)")
    .option("--labels <file>", "question-type labels: {first|switch|no-switch|trec|quac|nq: [qids]} or TopiOCQA's {1st|tc|ts: [qids]} (or {qid: label})")
    .option("--metrics <list>", "comma-separated metrics: mrr[@k], recall@k, success@k, p@k, map[@k], ndcg[@k] (trec_eval names like P.10, ndcg_cut.10 work too)", DEFAULT_METRICS)
    .option("--baseline <run>", "run the others are tested against: its label, file or 1-based position (default: the first --run)")
    .addOption(new Option("--pairs <which>", "test every run against the baseline, or every pair of runs").choices(["baseline", "all"]).default("baseline"))
    .option("--tests <list>", "significance tests: t-test, randomization (comma-separated; 'none' for no test)", "t-test,randomization")
    .option("--trials <n>", "randomization test: random sign assignments when 2^N exceeds this (else exact)", intArg(1), 10_000)
    .option("--seed <n>", "randomization test seed", intArg(0), 42)
    .option("--alpha <a>", "significance level after Holm's correction", alphaArg, 0.05)
    .option("--per-query [file]", "every query's values as TSV (qid, n_gold, one column per run and metric): alone on stdout instead of the table, or written to <file> beside it", false)
    .addOption(new Option("--no-gold <mode>", "turns without gold: skip them (normalized, the paper's numbers) or score them 0 (raw, trec_eval -c)").choices(["normalized", "raw"]).default("normalized"))
    .addOption(new Option("--missing <mode>", "gold turns absent from a run: score 0 (trec_eval -c) or skip").choices(["zero", "skip"]).default("zero"))
    .addOption(new Option("--ties <rule>", "order of tied scores: trec_eval 9 (float32 scores, docid descending), trec_eval-10 (double scores), docid-ascending, run-order").choices(["trec_eval", "trec_eval-10", "docid-ascending", "run-order"]).default("trec_eval"))
    .addOption(new Option("--qid-mapping <mapping>", "read qids '<conv>-<turn>' as '<conv>_<turn>' in every file (conv-turn), or take qids as written (none)").choices(["conv-turn", "none"]).default("conv-turn"))
    .option("--split <name>", "split name recorded in metrics.json", "all")
    .option("--json", "print the report as JSON instead of the table", false)
    .option("--out <dir>", "also write metrics.json and per-query.parquet (one run), or <dir>/<run>/... and comparison.json (several runs)")
    .action(async (flags: EvaluateFlags) => {
      try {
        await evaluateCommand(flags, out);
      } catch (e) {
              if (!(e instanceof InputError)) throw e;
        err(`error: ${e.message}`);
        setExitCode(2);
      }
    });
}

async function evaluateCommand(flags: EvaluateFlags, out: (text: string) => void): Promise<void> {
  const { resolve } = await import("node:path");
  const { runLabels, SIGNIFICANCE_TESTS } = await import("../../steps/eval/compare.ts");
  const text = await import("../../steps/eval/report-text.ts");
  await checkEvaluatePaths(flags);
  const { metrics, tests } = parseMetricsAndTests(flags, SIGNIFICANCE_TESTS);
  const runPaths = flags.run.map((r) => resolve(r));
  const labels = runLabels(runPaths);
  // Shared by every report: notes added later (the per-query file) appear in each.
  const notes: string[] = [];
  const inputs = await readQrelsAndLabels(flags, notes);
  const { reports, perQuery } = await scoreRuns(flags, { runPaths, labels, metrics, inputs, notes });
  const metricNames = Object.keys(reports[0]!.aggregate.metrics);
  const perQueryTsv = text.formatPerQuery(reports.map((r, i) => ({ label: r.label, perQuery: perQuery[i]! })), metricNames);
  if (typeof flags.perQuery === "string") {
    const { writeFile } = await import("node:fs/promises");
    await writeFile(resolve(flags.perQuery), perQueryTsv);
    notes.push(`per-query values: ${resolve(flags.perQuery)}`);
  }
  // stdout holds one format: the table, or (--per-query without a file) the TSV alone.
  const show = (table: string) => out(flags.perQuery === true ? perQueryTsv : table);
  const scored: Scored = { flags, inputs, notes, reports, perQuery, metricNames, out, show };
  if (reports.length === 1) await showSingleRun(scored, text);
  else await showComparison(scored, runPaths, labels, tests, text);
}

type LabelMap = Map<string, { questionType?: string; domain?: string }>;
type LabelledReport = EvaluateReport & { label: string };
type ReportText = typeof ReportTextModule;

/** The input files exist and the output paths can be written, else an InputError naming the option. */
async function checkEvaluatePaths(flags: EvaluateFlags): Promise<void> {
  const { resolve } = await import("node:path");
  const { checkInputFile } = await import("../../steps/lib/text.ts");
  for (const r of flags.run) checkInputFile(resolve(r), "--run");
  checkInputFile(resolve(flags.qrels), "--qrels");
  if (flags.labels !== undefined) checkInputFile(resolve(flags.labels), "--labels");
  const { checkOutputDir, checkOutputFile } = await import("./paths.ts");
  if (flags.out !== undefined) checkOutputDir(resolve(flags.out), "--out");
  if (typeof flags.perQuery === "string") checkOutputFile(resolve(flags.perQuery), "--per-query");
}

/** `--metrics` and `--tests` as lists (tests deduplicated; `none`: no test). */
function parseMetricsAndTests(flags: EvaluateFlags, known: readonly string[]): { metrics: string[]; tests: string[] } {
  const metrics = flags.metrics.split(",").map((m) => m.trim()).filter((m) => m !== "");
  if (metrics.length === 0) throw new InputError("no metrics given", { field: "--metrics", fix: "pass e.g. --metrics mrr,recall@10" });
  const tests = flags.tests.trim() === "none" ? [] : [...new Set(flags.tests.split(",").map((t) => t.trim()).filter((t) => t !== ""))];
  for (const t of tests) if (!known.includes(t)) throw new InputError(`unknown significance test '${t}'`, { field: "--tests", fix: `use ${known.join(", ")} or none` });
  return { metrics, tests };
}

/** The qrels and labels, read with their qids mapped, and the mapping for the runs; each rewrite adds a note. */
interface QrelsAndLabels {
  readonly qrelsPath: string;
  readonly qrels: Awaited<ReturnType<typeof ReadQrels>>;
  readonly labelsPath: string | undefined;
  readonly labelMap: LabelMap;
  readonly mapped: <V>(map: ReadonlyMap<string, V>, file: string, what: string) => Map<string, V>;
}

async function readQrelsAndLabels(flags: EvaluateFlags, notes: string[]): Promise<QrelsAndLabels> {
  const { resolve } = await import("node:path");
  const { readQrels } = await import("../../steps/eval/qrels.ts");
  const { readJsonFile } = await import("../../steps/eval/line-reader.ts");
  const { parseLabels } = await import("../../steps/eval/breakdown.ts");
  const { normalizeKeys } = await import("../../steps/eval/qids.ts");
  const mapped = <V>(map: ReadonlyMap<string, V>, file: string, what: string): Map<string, V> => {
    const r = normalizeKeys(map, flags.qidMapping, file);
    if (r.rewritten > 0) notes.push(`qids: ${r.rewritten} of ${map.size} in the ${what} (${file}) read as <conv>_<turn> from <conv>-<turn> (--qid-mapping none keeps them)`);
    return r.map;
  };
  const qrelsPath = resolve(flags.qrels);
  const qrels = mapped(await readQrels(qrelsPath), qrelsPath, "qrels");
  const labelsPath = flags.labels === undefined ? undefined : resolve(flags.labels);
  let labelMap: LabelMap = new Map();
  if (labelsPath !== undefined) {
    const parsed = parseLabels(await readJsonFile(labelsPath), labelsPath);
    const renamed = Object.entries(parsed.renamed);
    if (renamed.length > 0) notes.push(`labels: TopiOCQA keys read as ${renamed.map(([k, v]) => `${k} -> ${v}`).join(", ")}`);
    labelMap = mapped(parsed.labels, labelsPath, "labels");
  }
  return { qrelsPath, qrels, labelsPath, labelMap, mapped };
}

interface RunsToScore {
  readonly runPaths: readonly string[];
  readonly labels: readonly string[];
  readonly metrics: readonly string[];
  readonly inputs: QrelsAndLabels;
  readonly notes: string[];
}

/** Each run read (qids mapped), refused when unscorable, evaluated, and broken down by question type and domain. */
async function scoreRuns(flags: EvaluateFlags, r: RunsToScore): Promise<{ reports: LabelledReport[]; perQuery: PerQueryRow[][] }> {
  const { readRun } = await import("../../steps/eval/json-run.ts");
  const { evaluateRun } = await import("../../steps/eval/evaluate.ts");
  const { breakdown } = await import("../../steps/eval/breakdown.ts");
  const { DOMAIN_ORDER, QUESTION_TYPE_ORDER } = await import("../../steps/eval/outputs.ts");
  const { qrels, qrelsPath, labelMap, labelsPath } = r.inputs;
  const reports: LabelledReport[] = [];
  const perQuery: PerQueryRow[][] = [];
  for (let i = 0; i < r.runPaths.length; i++) {
    const run = r.inputs.mapped(await readRun(r.runPaths[i]!), r.runPaths[i]!, `run ${r.labels[i]}`);
    refuseUnscorable(run, qrels, r.runPaths[i]!, qrelsPath);
    const ev = evaluateRun(run, qrels, { metrics: r.metrics, noGold: flags.gold, missing: flags.missing, tieRule: flags.ties });
    perQuery.push(ev.perQuery);
    reports.push({
      label: r.labels[i]!,
      split: flags.split,
      aggregate: ev.aggregate,
      byQuestionType: breakdown(ev.perQuery, labelMap, { by: "questionType", order: QUESTION_TYPE_ORDER }),
      byDomain: breakdown(ev.perQuery, labelMap, { by: "domain", order: DOMAIN_ORDER }),
      files: { run: r.runPaths[i]!, qrels: qrelsPath, labels: labelsPath ?? null },
      notes: r.notes,
    });
  }
  return { reports, perQuery };
}

/** The scored runs and where their report goes. */
interface Scored {
  readonly flags: EvaluateFlags;
  readonly inputs: QrelsAndLabels;
  readonly notes: readonly string[];
  readonly reports: LabelledReport[];
  readonly perQuery: PerQueryRow[][];
  readonly metricNames: string[];
  readonly out: (text: string) => void;
  /** A table on stdout, or the per-query TSV instead (--per-query without a file). */
  readonly show: (table: string) => void;
}

const asRunReport = (r: LabelledReport): RunReport => ({ label: r.label, file: r.files.run, aggregate: r.aggregate, byQuestionType: r.byQuestionType, byDomain: r.byDomain });

const filesLine = (q: QrelsAndLabels): string => `qrels ${q.qrelsPath}${q.labelsPath === undefined ? "" : `, labels ${q.labelsPath}`}`;

/** One run: its metrics.json fields as JSON or its table; --out writes its files. */
async function showSingleRun(s: Scored, text: ReportText): Promise<void> {
  const report = s.reports[0]!;
  if (s.flags.out !== undefined) await writeRunOutputs(s.flags.out, report, s.perQuery[0]!);
  const { label: _label, ...single } = report;
  const header = `run ${report.files.run}, ${filesLine(s.inputs)}`;
  if (s.flags.json) s.out(JSON.stringify(single, null, 2) + "\n");
  else s.show(text.formatSingleRun(asRunReport(report), header, s.inputs.labelsPath !== undefined, s.notes));
}

/** Several runs: paired tests against the baseline (or between all pairs) over every label group, as JSON or a table; --out writes their files. */
async function showComparison(s: Scored, runPaths: readonly string[], labels: readonly string[], tests: readonly string[], text: ReportText): Promise<void> {
  const { compareRuns } = await import("../../steps/eval/compare.ts");
  const { flags, reports, perQuery } = s;
  const baseline = baselineIndex(flags.baseline, runPaths, labels);
  if (baseline < 0) throw new InputError(`--baseline '${flags.baseline}' names no run`, { field: "--baseline", fix: `use one of ${labels.join(", ")} or a position 1..${labels.length}` });
  const withBreakdowns = s.inputs.labelsPath !== undefined;
  const groups = [{ name: "all", qids: null }, ...(withBreakdowns ? groupQids(reports.map(asRunReport), perQuery, s.inputs.labelMap) : [])];
  const settings = { baseline: labels[baseline]!, pairs: flags.pairs, tests: tests as SignificanceTest[], trials: flags.trials, seed: flags.seed, alpha: flags.alpha };
  const comparisons = compareRuns(
    reports.map((r, i) => ({ label: r.label, perQuery: perQuery[i]! })),
    s.metricNames,
    groups,
    { baseline, pairs: flags.pairs, tests: settings.tests, trials: flags.trials, seed: flags.seed, alpha: flags.alpha },
  );
  const result: ComparisonReport = { runs: reports, comparisons, settings };
  if (flags.out !== undefined) await writeComparisonOutputs(flags.out, result, perQuery);
  const header = [`runs: ${reports.map((r, i) => `[${i + 1}] ${r.label} = ${r.files.run}`).join(", ")}`, filesLine(s.inputs)];
  if (flags.json) s.out(JSON.stringify({ ...result, notes: s.notes }, jsonNumbers, 2) + "\n");
  else s.show(text.formatComparison(reports.map(asRunReport), header, comparisons, settings, withBreakdowns, s.notes));
}

/**
 * A run that cannot be scored is an error, not a table of zeros: an empty run, or one none of
 * whose queries the qrels judge (another split, or qids written differently).
 */
function refuseUnscorable(run: ReadonlyMap<string, unknown>, qrels: ReadonlyMap<string, unknown>, runPath: string, qrelsPath: string): void {
  if (run.size === 0) throw new InputError("the run holds no hits (the file is empty).", { file: runPath, fix: "pass the run file itself: TREC lines 'qid Q0 docid rank score tag' or JSON {qid: {pid: score}}." });
  if (qrels.size === 0) throw new InputError("the qrels hold no judgements (the file is empty).", { file: qrelsPath, fix: "pass the qrels file itself: TREC lines 'qid 0 docid rel' or JSON {qid: {pid: rel}}." });
  if ([...run.keys()].some((q) => qrels.has(q))) return;
  const sample = (m: ReadonlyMap<string, unknown>) => [...m.keys()].slice(0, 3).join(", ");
  throw new InputError(`none of the run's ${run.size} queries is in the qrels (run: ${sample(run)}...; qrels ${qrelsPath}: ${sample(qrels)}...), so every query would score 0.`, {
    file: runPath,
    fix: "pass the qrels of the run's split, with the qids written as the run writes them.",
  });
}

/** JSON cannot hold NaN or Infinity: they print as null. */
function jsonNumbers(_key: string, value: unknown): unknown {
  return typeof value === "number" && !Number.isFinite(value) ? null : value;
}

function baselineIndex(given: string | undefined, paths: readonly string[], labels: readonly string[]): number {
  if (given === undefined) return 0;
  const byLabel = labels.indexOf(given);
  if (byLabel >= 0) return byLabel;
  const n = Number(given);
  if (Number.isInteger(n) && n >= 1 && n <= labels.length) return n - 1;
  return paths.findIndex((p) => p === given || p.endsWith(`/${given}`));
}

/** The qids of each label group ("questionType=first", ...) over every run's evaluated queries. */
function groupQids(runs: readonly RunReport[], perQuery: readonly (readonly PerQueryRow[])[], labels: ReadonlyMap<string, { questionType?: string; domain?: string }>): { name: string; qids: Set<string> }[] {
  const names: string[] = [];
  for (const r of runs) for (const b of [r.byQuestionType, r.byDomain]) for (const g of b.groups) if (!names.includes(`${b.by}=${g.group}`)) names.push(`${b.by}=${g.group}`);
  const all = new Set(perQuery.flatMap((rows) => rows.map((r) => r.qid)));
  return names.map((name) => {
    const [dim, value] = name.split("=") as ["questionType" | "domain", string];
    return { name, qids: new Set([...all].filter((q) => labels.get(q)?.[dim] === value)) };
  });
}

/** metrics.json (canonical JSON, the step's fields) and per-query.parquet (the step's schema). */
async function writeRunOutputs(dir: string, report: EvaluateReport, rows: readonly PerQueryRow[]): Promise<void> {
  const { mkdir, writeFile } = await import("node:fs/promises");
  const { join } = await import("node:path");
  const { canonicalJson } = await import("../engine/canonical.ts");
  const { writePerQuery } = await import("../../steps/eval/outputs.ts");
  await mkdir(dir, { recursive: true });
  const metricsFile: MetricsFile = { split: report.split, aggregate: report.aggregate, byQuestionType: report.byQuestionType, byDomain: report.byDomain };
  await writeFile(join(dir, "metrics.json"), canonicalJson(metricsFile, 2) + "\n");
  await writePerQuery(join(dir, "per-query.parquet"), rows);
}

/** <dir>/<run label>/{metrics.json, per-query.parquet} and <dir>/comparison.json. */
async function writeComparisonOutputs(dir: string, report: ComparisonReport, perQuery: readonly (readonly PerQueryRow[])[]): Promise<void> {
  const { mkdir, writeFile } = await import("node:fs/promises");
  const { join } = await import("node:path");
  await mkdir(dir, { recursive: true });
  for (let i = 0; i < report.runs.length; i++) await writeRunOutputs(join(dir, report.runs[i]!.label.replace(/[\\/]/g, "__")), report.runs[i]!, perQuery[i]!);
  const summary = { runs: report.runs.map((r) => ({ label: r.label, file: r.files.run })), settings: report.settings, comparisons: report.comparisons };
  await writeFile(join(dir, "comparison.json"), JSON.stringify(summary, jsonNumbers, 2) + "\n");
}

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

const collect = (v: string, prev: string[] | undefined): string[] => [...(prev ?? []), v];
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
    .requiredOption("--run <file>", "run file: TREC lines 'qid Q0 docid rank score tag' or JSON {qid: {pid: score}}; repeat for a comparison", collect)
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
  const { readRun } = await import("../../steps/eval/json-run.ts");
  const { readQrels } = await import("../../steps/eval/qrels.ts");
  const { readJsonFile } = await import("../../steps/eval/line-reader.ts");
  const { evaluateRun } = await import("../../steps/eval/evaluate.ts");
  const { breakdown, parseLabels } = await import("../../steps/eval/breakdown.ts");
  const { DOMAIN_ORDER, QUESTION_TYPE_ORDER } = await import("../../steps/eval/outputs.ts");
  const { normalizeKeys } = await import("../../steps/eval/qids.ts");
  const { compareRuns, runLabels, SIGNIFICANCE_TESTS } = await import("../../steps/eval/compare.ts");
  const text = await import("../../steps/eval/report-text.ts");
  const { checkInputFile } = await import("../../steps/lib/text.ts");
  for (const r of flags.run) checkInputFile(resolve(r), "--run");
  checkInputFile(resolve(flags.qrels), "--qrels");
  if (flags.labels !== undefined) checkInputFile(resolve(flags.labels), "--labels");
  const { checkOutputDir, checkOutputFile } = await import("./paths.ts");
  if (flags.out !== undefined) checkOutputDir(resolve(flags.out), "--out");
  if (typeof flags.perQuery === "string") checkOutputFile(resolve(flags.perQuery), "--per-query");

  const metrics = flags.metrics.split(",").map((m) => m.trim()).filter((m) => m !== "");
  if (metrics.length === 0) throw new InputError("no metrics given", { field: "--metrics", fix: "pass e.g. --metrics mrr,recall@10" });
  const tests = flags.tests.trim() === "none" ? [] : [...new Set(flags.tests.split(",").map((t) => t.trim()).filter((t) => t !== ""))];
  for (const t of tests) if (!(SIGNIFICANCE_TESTS as readonly string[]).includes(t)) throw new InputError(`unknown significance test '${t}'`, { field: "--tests", fix: `use ${SIGNIFICANCE_TESTS.join(", ")} or none` });
  const runPaths = flags.run.map((r) => resolve(r));
  const labels = runLabels(runPaths);
  const qrelsPath = resolve(flags.qrels);
  const notes: string[] = [];
  const mapping = flags.qidMapping;
  const mapped = <V>(map: ReadonlyMap<string, V>, file: string, what: string): Map<string, V> => {
    const r = normalizeKeys(map, mapping, file);
    if (r.rewritten > 0) notes.push(`qids: ${r.rewritten} of ${map.size} in the ${what} (${file}) read as <conv>_<turn> from <conv>-<turn> (--qid-mapping none keeps them)`);
    return r.map;
  };
  const qrels = mapped(await readQrels(qrelsPath), qrelsPath, "qrels");
  const labelsPath = flags.labels === undefined ? undefined : resolve(flags.labels);
  let labelMap = new Map<string, { questionType?: string; domain?: string }>();
  if (labelsPath !== undefined) {
    const parsed = parseLabels(await readJsonFile(labelsPath), labelsPath);
    const renamed = Object.entries(parsed.renamed);
    if (renamed.length > 0) notes.push(`labels: TopiOCQA keys read as ${renamed.map(([k, v]) => `${k} -> ${v}`).join(", ")}`);
    labelMap = mapped(parsed.labels, labelsPath, "labels");
  }
  const reports: (EvaluateReport & { label: string })[] = [];
  const perQuery: PerQueryRow[][] = [];
  for (let i = 0; i < runPaths.length; i++) {
    const run = mapped(await readRun(runPaths[i]!), runPaths[i]!, `run ${labels[i]}`);
    refuseUnscorable(run, qrels, runPaths[i]!, qrelsPath);
    const ev = evaluateRun(run, qrels, { metrics, noGold: flags.gold, missing: flags.missing, tieRule: flags.ties });
    perQuery.push(ev.perQuery);
    reports.push({
      label: labels[i]!,
      split: flags.split,
      aggregate: ev.aggregate,
      byQuestionType: breakdown(ev.perQuery, labelMap, { by: "questionType", order: QUESTION_TYPE_ORDER }),
      byDomain: breakdown(ev.perQuery, labelMap, { by: "domain", order: DOMAIN_ORDER }),
      files: { run: runPaths[i]!, qrels: qrelsPath, labels: labelsPath ?? null },
      notes,
    });
  }
  const metricNames = Object.keys(reports[0]!.aggregate.metrics);
  const withBreakdowns = labelsPath !== undefined;
  const asRunReport = (r: EvaluateReport & { label: string }): RunReport => ({ label: r.label, file: r.files.run, aggregate: r.aggregate, byQuestionType: r.byQuestionType, byDomain: r.byDomain });
  const perQueryTsv = text.formatPerQuery(reports.map((r, i) => ({ label: r.label, perQuery: perQuery[i]! })), metricNames);
  // stdout holds one format: the table, or (--per-query without a file) the TSV alone.
  const show = (table: string) => out(flags.perQuery === true ? perQueryTsv : table);
  if (typeof flags.perQuery === "string") {
    const { writeFile } = await import("node:fs/promises");
    await writeFile(resolve(flags.perQuery), perQueryTsv);
    notes.push(`per-query values: ${resolve(flags.perQuery)}`);
  }

  if (reports.length === 1) {
    const report = reports[0]!;
    if (flags.out !== undefined) await writeRunOutputs(flags.out, report, perQuery[0]!);
    const { label: _label, ...single } = report;
    const header = `run ${report.files.run}, qrels ${qrelsPath}${labelsPath === undefined ? "" : `, labels ${labelsPath}`}`;
    if (flags.json) out(JSON.stringify(single, null, 2) + "\n");
    else show(text.formatSingleRun(asRunReport(report), header, withBreakdowns, notes));
    return;
  }

  const baseline = baselineIndex(flags.baseline, runPaths, labels);
  if (baseline < 0) throw new InputError(`--baseline '${flags.baseline}' names no run`, { field: "--baseline", fix: `use one of ${labels.join(", ")} or a position 1..${labels.length}` });
  const groups = [{ name: "all", qids: null }, ...(withBreakdowns ? groupQids(reports.map(asRunReport), perQuery, labelMap) : [])];
  const settings = { baseline: labels[baseline]!, pairs: flags.pairs, tests: tests as SignificanceTest[], trials: flags.trials, seed: flags.seed, alpha: flags.alpha };
  const comparisons = compareRuns(
    reports.map((r, i) => ({ label: r.label, perQuery: perQuery[i]! })),
    metricNames,
    groups,
    { baseline, pairs: flags.pairs, tests: settings.tests, trials: flags.trials, seed: flags.seed, alpha: flags.alpha },
  );
  const result: ComparisonReport = { runs: reports, comparisons, settings };
  if (flags.out !== undefined) await writeComparisonOutputs(flags.out, result, perQuery);
  const header = [
    `runs: ${reports.map((r, i) => `[${i + 1}] ${r.label} = ${r.files.run}`).join(", ")}`,
    `qrels ${qrelsPath}${labelsPath === undefined ? "" : `, labels ${labelsPath}`}`,
  ];
  if (flags.json) out(JSON.stringify({ ...result, notes }, jsonNumbers, 2) + "\n");
  else show(text.formatComparison(reports.map(asRunReport), header, comparisons, settings, withBreakdowns, notes));
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

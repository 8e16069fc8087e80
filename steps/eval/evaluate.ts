/**
 * Evaluate a run against qrels: per-query rows plus an aggregate (mean over the
 * evaluated queries, with N and the counts of what was skipped and why).
 *
 * Which queries are evaluated (all explicit, nothing silent):
 *  - in the run but not in the qrels: ignored (as trec_eval and pytrec_eval do), counted
 *    in `counts.ignoredNotInQrels`;
 *  - in the qrels with no relevant passage ("no gold"; QReCC's `{"": 1}`):
 *      noGold "normalized" -> skipped (the paper's QReCC numbers: 8,209 of 16,451 test turns);
 *      noGold "raw"        -> evaluated, every metric 0 (the paper-version script);
 *  - in the qrels but absent from the run:
 *      missing "zero" -> evaluated with every metric 0 (trec_eval -c);
 *      missing "skip" -> skipped (pytrec_eval, trec_eval without -c).
 * Ranking follows trec_eval (see ranking.ts) unless another `tieRule` is asked for.
 */
import { InputError } from "../../pipeline/engine/errors.ts";
import { parseMetrics } from "./metrics.ts";
import type { ParsedMetric } from "./metrics.ts";
import { compareUtf8, orderForEvaluation } from "./ranking.ts";
import type { TieRule } from "./ranking.ts";
import { countRelevant } from "./types.ts";
import type { Hit, Qrels, Run } from "./types.ts";

export type NoGoldMode = "normalized" | "raw";
export type MissingMode = "zero" | "skip";

export interface EvaluateOptions {
  /** Metric names, e.g. ["mrr", "recall@10", "success@5"]; see metrics.ts. */
  readonly metrics: readonly string[];
  readonly noGold: NoGoldMode;
  /** What to do with qrels queries (with gold) that the run does not contain. */
  readonly missing: MissingMode;
  /** Default "trec_eval". */
  readonly tieRule?: TieRule;
  readonly onProgress?: (done: number, total?: number) => void;
}

/** One evaluated query. `metrics` is keyed by canonical metric name. */
export interface PerQueryRow {
  readonly qid: string;
  /** Relevant passages in the qrels (0 for a no-gold turn in "raw" mode). */
  readonly nGold: number;
  /** Hits the run holds for this query (0 if absent from the run). */
  readonly nRetrieved: number;
  readonly metrics: Record<string, number>;
}

export interface EvaluationCounts {
  readonly qrelsQueries: number;
  readonly runQueries: number;
  /** Queries averaged over (= aggregate N). */
  readonly evaluated: number;
  /** Qrels queries without gold: skipped ("normalized") or scored 0 ("raw"). */
  readonly noGold: number;
  /** Qrels queries (that were not skipped for lack of gold) absent from the run: scored 0 ("zero") or skipped ("skip"). */
  readonly missingFromRun: number;
  /** Run queries absent from the qrels (always ignored). */
  readonly ignoredNotInQrels: number;
}

export interface Aggregate {
  /** Mean of each metric over the evaluated queries. */
  readonly metrics: Record<string, number>;
  readonly n: number;
  readonly noGold: NoGoldMode;
  readonly missing: MissingMode;
  readonly tieRule: TieRule;
  readonly counts: EvaluationCounts;
}

export interface Evaluation {
  /** Sorted by qid (UTF-8 byte order). */
  readonly perQuery: PerQueryRow[];
  readonly aggregate: Aggregate;
}

function zeroRow(qid: string, nGold: number, nRetrieved: number, metrics: readonly ParsedMetric[]): PerQueryRow {
  const values: Record<string, number> = {};
  for (const m of metrics) values[m.name] = 0;
  return { qid, nGold, nRetrieved, metrics: values };
}

function scoreQuery(qid: string, hits: readonly Hit[], judgements: ReadonlyMap<string, number>, nGold: number, metrics: readonly ParsedMetric[], tieRule: TieRule): PerQueryRow {
  const ordered = orderForEvaluation(hits, tieRule);
  const relevant = new Uint8Array(ordered.length);
  const gains = new Float64Array(ordered.length);
  for (let i = 0; i < ordered.length; i++) {
    const rel = judgements.get(ordered[i]!.docid);
    if (rel !== undefined && rel > 0) {
      relevant[i] = 1;
      gains[i] = rel;
    }
  }
  const idealGains = idealGainsOf(judgements);
  const values: Record<string, number> = {};
  for (const m of metrics) values[m.name] = m.compute({ relevant, nGold, gains, idealGains });
  return { qid, nGold, nRetrieved: hits.length, metrics: values };
}

/** Relevance levels >= 1 of a query's judgements, highest first: the ideal ranking of nDCG. */
export function idealGainsOf(judgements: ReadonlyMap<string, number>): number[] {
  const out: number[] = [];
  for (const rel of judgements.values()) if (rel > 0) out.push(rel);
  return out.sort((a, b) => b - a);
}

/** Mean of each metric over rows (sum in row order, so the result is deterministic). */
export function meanMetrics(rows: readonly PerQueryRow[], metricNames: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const name of metricNames) {
    let sum = 0;
    for (const row of rows) {
      const v = row.metrics[name];
      if (v === undefined) throw new InputError(`per-query row '${row.qid}' has no value for metric '${name}'`, { field: name, fix: "evaluate all rows with the same metric list" });
      sum += v;
    }
    out[name] = rows.length === 0 ? 0 : sum / rows.length;
  }
  return out;
}

export function evaluateRun(run: Run, qrels: Qrels, options: EvaluateOptions): Evaluation {
  const metrics = parseMetrics(options.metrics);
  const tieRule = options.tieRule ?? "trec_eval";
  const qids = [...qrels.keys()].sort(compareUtf8);
  const perQuery: PerQueryRow[] = [];
  let noGold = 0;
  let missingFromRun = 0;
  let done = 0;
  for (const qid of qids) {
    const judgements = qrels.get(qid)!;
    const nGold = countRelevant(judgements);
    const hits = run.get(qid);
    done++;
    if (nGold === 0) {
      noGold++;
      if (options.noGold === "raw") perQuery.push(zeroRow(qid, 0, hits?.length ?? 0, metrics));
    } else if (hits === undefined) {
      missingFromRun++;
      if (options.missing === "zero") perQuery.push(zeroRow(qid, nGold, 0, metrics));
    } else {
      perQuery.push(scoreQuery(qid, hits, judgements, nGold, metrics, tieRule));
    }
    if (options.onProgress !== undefined && (done % 1000 === 0 || done === qids.length)) options.onProgress(done, qids.length);
  }
  let ignoredNotInQrels = 0;
  for (const qid of run.keys()) if (!qrels.has(qid)) ignoredNotInQrels++;
  if (perQuery.length === 0) {
    throw new InputError(
      `no query was evaluated (${qrels.size} qrels queries, ${run.size} run queries, ${noGold} without gold, ${missingFromRun} missing from the run, ${ignoredNotInQrels} run queries not in the qrels)`,
      { fix: "check that the run and the qrels use the same query ids and split" },
    );
  }
  const names = metrics.map((m) => m.name);
  return {
    perQuery,
    aggregate: {
      metrics: meanMetrics(perQuery, names),
      n: perQuery.length,
      noGold: options.noGold,
      missing: options.missing,
      tieRule,
      counts: {
        qrelsQueries: qrels.size,
        runQueries: run.size,
        evaluated: perQuery.length,
        noGold,
        missingFromRun,
        ignoredNotInQrels,
      },
    },
  };
}

/**
 * Per-query rows as columns, ready for an Arrow/Parquet table:
 * qid, nGold, nRetrieved, then one Float64 column per metric (in `metricNames` order).
 */
export function perQueryColumns(rows: readonly PerQueryRow[], metricNames: readonly string[]): {
  qid: string[];
  nGold: Int32Array;
  nRetrieved: Int32Array;
  metrics: Record<string, Float64Array>;
} {
  const qid = rows.map((r) => r.qid);
  const nGold = Int32Array.from(rows, (r) => r.nGold);
  const nRetrieved = Int32Array.from(rows, (r) => r.nRetrieved);
  const metrics: Record<string, Float64Array> = {};
  for (const name of metricNames) {
    metrics[name] = Float64Array.from(rows, (r) => {
      const v = r.metrics[name];
      if (v === undefined) throw new InputError(`per-query row '${r.qid}' has no value for metric '${name}'`, { field: name, fix: "evaluate all rows with the same metric list" });
      return v;
    });
  }
  return { qid, nGold, nRetrieved, metrics };
}

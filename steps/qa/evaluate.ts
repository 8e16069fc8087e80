/**
 * Scoring a set of predictions against references (pure): per-question EM/F1 under one of the
 * datasets' rules (scoring.ts), the mean over the scored questions, and breakdowns by question
 * type and source domain with their N, in the shape of the retrieval metrics.json (so tables and
 * figures read `em` and `f1` exactly as they read `recall@10`).
 */
import type { PerQueryRow } from "../eval/evaluate.ts";
import { breakdown, type QueryLabels } from "../eval/breakdown.ts";
import { DOMAIN_ORDER, QUESTION_TYPE_ORDER } from "../eval/outputs.ts";
import { compareUtf8 } from "../eval/ranking.ts";
import { QA_SCORING, type QaScoringName, type QaScoringOptions } from "./scoring.ts";

export const QA_METRICS = ["em", "f1"] as const;

export interface QaReference {
  readonly qid: string;
  readonly answers: readonly string[];
}

export interface QaCounts {
  readonly references: number;
  readonly predictions: number;
  /** Questions averaged over (= aggregate N). */
  readonly scored: number;
  /** References the rule left out (QReCC: empty Truth_answer). */
  readonly skipped: number;
  /** Scored references without a prediction (scored as the rule says). */
  readonly missingPredictions: number;
  /** Predictions for questions absent from the references (ignored). */
  readonly ignoredPredictions: number;
}

export interface QaAggregate {
  readonly metrics: Record<string, number>;
  readonly n: number;
  readonly scoring: QaScoringName;
  readonly keepEmptyTruth: boolean;
  readonly counts: QaCounts;
}

/** metrics.json of a QA evaluation (the retrieval file's shape: aggregate + breakdowns). */
export interface QaMetricsFile {
  readonly split: string;
  readonly aggregate: QaAggregate;
  readonly byQuestionType: ReturnType<typeof breakdown>;
  readonly byDomain: ReturnType<typeof breakdown>;
}

export interface QaEvaluation {
  /** Sorted by qid (UTF-8 byte order). */
  readonly perQuestion: PerQueryRow[];
  readonly aggregate: QaAggregate;
}

export function evaluateAnswers(
  predictions: ReadonlyMap<string, string>,
  references: readonly QaReference[],
  scoring: QaScoringName,
  options: QaScoringOptions = {},
): QaEvaluation {
  const rule = QA_SCORING[scoring];
  const refIds = new Set<string>();
  const rows: PerQueryRow[] = [];
  let skipped = 0;
  let missing = 0;
  for (const ref of [...references].sort((a, b) => compareUtf8(a.qid, b.qid))) {
    refIds.add(ref.qid);
    const prediction = predictions.get(ref.qid);
    const s = rule.score(ref.answers, prediction, options);
    if (s === "skip") {
      skipped++;
      continue;
    }
    if (prediction === undefined) missing++;
    rows.push({ qid: ref.qid, nGold: ref.answers.length, nRetrieved: prediction === undefined ? 0 : 1, metrics: { em: s.em, f1: s.f1 } });
  }
  let ignored = 0;
  for (const qid of predictions.keys()) if (!refIds.has(qid)) ignored++;
  const mean = (k: string) => (rows.length === 0 ? 0 : rows.reduce((a, r) => a + r.metrics[k]!, 0) / rows.length);
  return {
    perQuestion: rows,
    aggregate: {
      metrics: { em: mean("em"), f1: mean("f1") },
      n: rows.length,
      scoring,
      keepEmptyTruth: options.keepEmptyTruth === true,
      counts: { references: references.length, predictions: predictions.size, scored: rows.length, skipped, missingPredictions: missing, ignoredPredictions: ignored },
    },
  };
}

/** The metrics file of an evaluation, with breakdowns over `labels` (question type, domain). */
export function qaMetricsFile(split: string, ev: QaEvaluation, labels: ReadonlyMap<string, QueryLabels>): QaMetricsFile {
  const metrics = [...QA_METRICS];
  return {
    split,
    aggregate: ev.aggregate,
    byQuestionType: breakdown(ev.perQuestion, labels, { by: "questionType", order: QUESTION_TYPE_ORDER, metrics }),
    byDomain: breakdown(ev.perQuestion, labels, { by: "domain", order: DOMAIN_ORDER, metrics }),
  };
}

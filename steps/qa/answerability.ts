/**
 * Answerability of a QA split (pure, no I/O): the ceiling an extractive reader sits under.
 * Per scored turn (the dataset's rule decides which turns are scored, as `evaluate-qa` does):
 *
 * - `answer-in-gold`: the turn's answer (its first gold answer, the one readers train on) occurs
 *   as a span of one of its gold passages;
 * - `gold@k`: a gold passage is among the top k retrieved (passage selection);
 * - `answer@k`: the answer occurs as a span of one of the top k passages;
 * - `oracle-em@k`, `oracle-f1@k`: the best EM and the best F1 (each maximised on its own) that
 *   any span of at most `maxAnswerTokens` simple tokens of the top k passages scores against
 *   all gold answers under the dataset's rule (`QA_SCORING`: QReCC one truth; TopiOCQA
 *   leave-one-out over Answer + Additional_answers, so with two different gold answers no
 *   single span scores EM 1).
 *
 * "Occurs as a span": with the scorer's own normalisation (`normalizeAnswer`), the normalised
 * answer is a whole-word run of the normalised passage. An answer that normalises to nothing
 * occurs nowhere (no reader is trained towards it). Spans for the oracle are cut between the
 * simple tokens of answer-spans.ts (a span starts and ends on a token the normaliser keeps:
 * trimming a leading or trailing article or punctuation never changes the normalised text), and
 * each distinct normalised span is scored once. Shares are fractions; tables show them x100.
 */
import { simpleTokens } from "./answer-spans.ts";
import { QA_SCORING, normalizeAnswer, type QaScore, type QaScoringName } from "./scoring.ts";

export interface AnswerabilityTurn {
  readonly qid: string;
  /** Gold answers as the repository's parsers deliver them (the first is the turn's answer). */
  readonly answers: readonly string[];
  readonly goldPassageIds: readonly string[];
  /** Retrieved passage ids in rank order (at least the largest k). */
  readonly ranked: readonly string[];
}

export interface AnswerabilityOptions {
  readonly scoring: QaScoringName;
  /** Depths to report (the readers' passages: the DPR reader's evalTopDocs, FiD's nContext). */
  readonly ks: readonly number[];
  /** Longest oracle span in simple tokens (the DPR reader's max answer length). */
  readonly maxAnswerTokens: number;
}

export interface TurnAnswerability {
  readonly qid: string;
  readonly metrics: Record<string, number>;
}

export interface AnswerabilityCounts {
  readonly turns: number;
  /** Turns the dataset's rule leaves out (QReCC: empty truth) or without any gold answer. */
  readonly skipped: number;
  /** Scored turns whose answer normalises to the empty string. */
  readonly emptyAnswers: number;
  /** Scored turns without a gold passage id. */
  readonly withoutGold: number;
  /** Passage ids (gold or retrieved) absent from the collection. */
  readonly missingPassages: number;
}

export interface Answerability {
  /** The scored turns, in input order. */
  readonly perTurn: TurnAnswerability[];
  /** Means over the scored turns. */
  readonly metrics: Record<string, number>;
  readonly n: number;
  readonly counts: AnswerabilityCounts;
}

/** Whether `answer`, normalised, is a whole-word run of `passage`, normalised. */
export function occursAsSpan(passage: string, answer: string): boolean {
  const a = normalizeAnswer(answer);
  if (a === "") return false;
  return ` ${normalizeAnswer(passage)} `.includes(` ${a} `);
}

/** Distinct normalised spans of a passage (start and end on kept tokens, at most `maxTokens` tokens). */
export function normalizedSpans(passage: string, maxTokens: number): Set<string> {
  const tokens = simpleTokens(passage);
  const kept = tokens.map((t) => normalizeAnswer(t.text) !== "");
  const out = new Set<string>();
  for (let i = 0; i < tokens.length; i++) {
    if (!kept[i]) continue;
    for (let j = i; j < tokens.length && j - i < maxTokens; j++) {
      if (kept[j]) out.add(normalizeAnswer(passage.slice(tokens[i]!.start, tokens[j]!.end)));
    }
  }
  return out;
}

/** The best EM and the best F1 over candidate answers under a rule (0, 0 without candidates). */
export function oracleScore(golds: readonly string[], candidates: Iterable<string>, scoring: QaScoringName): QaScore {
  const rule = QA_SCORING[scoring];
  let em = 0;
  let f1 = 0;
  for (const c of candidates) {
    const s = rule.score(golds, c, {});
    if (s === "skip") continue;
    em = Math.max(em, s.em);
    f1 = Math.max(f1, s.f1);
  }
  return { em, f1 };
}

/** Whether the rule scores this turn at all (the same test `evaluateAnswers` makes). */
function scored(golds: readonly string[], scoring: QaScoringName): boolean {
  return golds.length > 0 && QA_SCORING[scoring].score(golds, "", {}) !== "skip";
}

const prefixMax = (values: readonly number[], k: number): number => values.slice(0, k).reduce((a, b) => Math.max(a, b), 0);

/** One scored turn's figures (see the module comment); `passages` maps id -> text. */
export function turnAnswerability(turn: AnswerabilityTurn, passages: ReadonlyMap<string, string>, options: AnswerabilityOptions): Record<string, number> {
  const answer = turn.answers[0]!;
  const gold = new Set(turn.goldPassageIds);
  const text = (pid: string): string => passages.get(pid) ?? "";
  const kMax = Math.max(...options.ks);
  const top = turn.ranked.slice(0, kMax);
  const inPassage = top.map((pid) => (occursAsSpan(text(pid), answer) ? 1 : 0));
  const isGold = top.map((pid) => (gold.has(pid) ? 1 : 0));
  const oracle = top.map((pid) => oracleScore(turn.answers, normalizedSpans(text(pid), options.maxAnswerTokens), options.scoring));
  const m: Record<string, number> = { "answer-in-gold": [...gold].some((pid) => occursAsSpan(text(pid), answer)) ? 1 : 0 };
  for (const k of options.ks) {
    m[`gold@${k}`] = prefixMax(isGold, k);
    m[`answer@${k}`] = prefixMax(inPassage, k);
    m[`oracle-em@${k}`] = prefixMax(oracle.map((o) => o.em), k);
    m[`oracle-f1@${k}`] = prefixMax(oracle.map((o) => o.f1), k);
  }
  return m;
}

/** The figures of every scored turn and their means. */
export function answerability(turns: readonly AnswerabilityTurn[], passages: ReadonlyMap<string, string>, options: AnswerabilityOptions): Answerability {
  if (options.ks.length === 0 || options.ks.some((k) => !Number.isInteger(k) || k < 1)) throw new RangeError(`ks must be positive integers, got [${options.ks.join(", ")}]`);
  const perTurn: TurnAnswerability[] = [];
  let skipped = 0;
  let emptyAnswers = 0;
  let withoutGold = 0;
  const missing = new Set<string>();
  for (const t of turns) {
    if (!scored(t.answers, options.scoring)) {
      skipped++;
      continue;
    }
    if (normalizeAnswer(t.answers[0]!) === "") emptyAnswers++;
    if (t.goldPassageIds.length === 0) withoutGold++;
    for (const pid of [...t.goldPassageIds, ...t.ranked.slice(0, Math.max(...options.ks))]) if (!passages.has(pid)) missing.add(pid);
    perTurn.push({ qid: t.qid, metrics: turnAnswerability(t, passages, options) });
  }
  const names = perTurn.length === 0 ? [] : Object.keys(perTurn[0]!.metrics);
  const metrics: Record<string, number> = {};
  for (const name of names) metrics[name] = perTurn.reduce((a, r) => a + r.metrics[name]!, 0) / perTurn.length;
  return { perTurn, metrics, n: perTurn.length, counts: { turns: turns.length, skipped, emptyAnswers, withoutGold, missingPassages: missing.size } };
}

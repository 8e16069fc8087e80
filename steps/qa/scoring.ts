/**
 * Answer scoring as the QA datasets' own scripts do it (pure, no I/O):
 *
 * - SQuAD normalisation: lowercase, drop ASCII punctuation (Python's `string.punctuation`), drop
 *   the articles a / an / the as whole words, collapse whitespace.
 * - EM: the normalised strings are equal. F1: token overlap of the normalised strings (a token
 *   multiset intersection); when either side has no token, F1 is 1 if both have none, else 0
 *   (SQuAD 2.0's and CoQA's rule, which TopiOCQA's script inherits).
 * - Scores are fractions here; tables show them x100.
 *
 * Per-question rules (`QA_SCORING`, a registry keyed by dataset):
 * - `qrecc` (the SCAI-QReCC-21 shared task): one `Truth_answer` per turn; a turn whose truth is
 *   empty is skipped unless `keepEmptyTruth`; a missing prediction counts as the empty answer.
 * - `topiocqa` (its evaluation script, adapted from CoQA's): gold = `Answer` plus every
 *   `Additional_answers` entry; with more than one gold answer, leave-one-out: for each gold
 *   answer, the best score against the *other* answers, averaged over the gold answers; a
 *   missing prediction scores 0.
 * - `max` (plain JSONL references): the best score over the gold answers; missing = empty answer.
 */

/** Python's `string.punctuation`. */
const PUNCTUATION = new Set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~");
/** `\b(a|an|the)\b` with Python's Unicode word boundaries (word = \w, letters digits underscore). */
const ARTICLES = /(?<![\p{L}\p{N}_])(a|an|the)(?![\p{L}\p{N}_])/gu;

export function normalizeAnswer(s: string): string {
  let t = s.toLowerCase();
  let kept = "";
  for (const ch of t) if (!PUNCTUATION.has(ch)) kept += ch;
  t = kept.replace(ARTICLES, " ");
  // Python's str.split(): any Unicode whitespace, which includes the separators U+001C-U+001F.
  // eslint-disable-next-line no-control-regex
  return t.split(/[\s\u001c-\u001f\u0085]+/u).filter((w) => w.length > 0).join(" ");
}

export function answerTokens(s: string): string[] {
  const n = normalizeAnswer(s);
  return n === "" ? [] : n.split(" ");
}

export function exactMatch(gold: string, prediction: string): number {
  return normalizeAnswer(gold) === normalizeAnswer(prediction) ? 1 : 0;
}

export function tokenF1(gold: string, prediction: string): number {
  const g = answerTokens(gold);
  const p = answerTokens(prediction);
  if (g.length === 0 || p.length === 0) return g.length === p.length ? 1 : 0;
  const counts = new Map<string, number>();
  for (const t of g) counts.set(t, (counts.get(t) ?? 0) + 1);
  let same = 0;
  for (const t of p) {
    const c = counts.get(t) ?? 0;
    if (c > 0) {
      same++;
      counts.set(t, c - 1);
    }
  }
  if (same === 0) return 0;
  const precision = same / p.length;
  const recall = same / g.length;
  return (2 * precision * recall) / (precision + recall);
}

export interface QaScore {
  readonly em: number;
  readonly f1: number;
}

const best = (golds: readonly string[], prediction: string): QaScore => ({
  em: Math.max(...golds.map((g) => exactMatch(g, prediction))),
  f1: Math.max(...golds.map((g) => tokenF1(g, prediction))),
});

/** TopiOCQA's turn score: leave-one-out average over the gold answers when there are several. */
export function leaveOneOut(golds: readonly string[], prediction: string): QaScore {
  if (golds.length === 0) throw new RangeError("no gold answer");
  if (golds.length === 1) return best(golds, prediction);
  let em = 0;
  let f1 = 0;
  for (let i = 0; i < golds.length; i++) {
    const others = [...golds.slice(0, i), ...golds.slice(i + 1)];
    const s = best(others, prediction);
    em += s.em;
    f1 += s.f1;
  }
  return { em: em / golds.length, f1: f1 / golds.length };
}

export type QaScoringName = "qrecc" | "topiocqa" | "max";

export interface QaScoringOptions {
  /** QReCC: score turns whose Truth_answer is empty (the shared task skips them). */
  readonly keepEmptyTruth?: boolean;
}

export interface QaScoring {
  readonly name: QaScoringName;
  readonly description: string;
  /** The score of one question, or "skip" when the rule leaves it out. `prediction` undefined = missing. */
  score(golds: readonly string[], prediction: string | undefined, options: QaScoringOptions): QaScore | "skip";
}

export const QA_SCORING: Readonly<Record<QaScoringName, QaScoring>> = {
  qrecc: {
    name: "qrecc",
    description: "SCAI-QReCC-21: one Truth_answer per turn, empty truths skipped, a missing prediction is the empty answer",
    score(golds, prediction, options) {
      const truth = golds[0] ?? "";
      if (truth.trim() === "" && options.keepEmptyTruth !== true) return "skip";
      return { em: exactMatch(truth, prediction ?? ""), f1: tokenF1(truth, prediction ?? "") };
    },
  },
  topiocqa: {
    name: "topiocqa",
    description: "TopiOCQA: Answer + Additional_answers, leave-one-out over several gold answers, a missing prediction scores 0",
    score(golds, prediction) {
      if (prediction === undefined) return { em: 0, f1: 0 };
      return leaveOneOut(golds, prediction);
    },
  },
  max: {
    name: "max",
    description: "best score over the gold answers, a missing prediction is the empty answer",
    score(golds, prediction) {
      if (golds.length === 0) return "skip";
      return best(golds, prediction ?? "");
    },
  },
};

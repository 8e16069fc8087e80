/**
 * The DPR reader's answer (pure): the passage with the highest selection logit among those
 * read (ties to the better retriever rank), then in it the span with the highest start + end
 * logit among text tokens with end >= start and at most `maxAnswerLength` tokens (ties to the
 * earlier start, then the shorter span), extended to whole words, cut out of the original text.
 * The Python trainer's dev evaluation does the same (steps/qa/dpr_reader/spans.py), and a test
 * holds the two to the same answers.
 */
import type { ReaderPassageTokens } from "./inputs.ts";

export interface SpanChoice {
  /** Inclusive token indexes in the passage row, after extension to whole words. */
  readonly start: number;
  readonly end: number;
  readonly score: number;
  readonly text: string;
}

/**
 * Best span of one passage. `start`/`end` hold the logits of the passage row's tokens (the
 * caller slices them out of the pair input at the row's offset); tokens outside the text
 * (title, separators, cut-off) are never chosen.
 */
export function bestSpan(start: ArrayLike<number>, end: ArrayLike<number>, p: ReaderPassageTokens, maxAnswerLength: number): SpanChoice | null {
  const n = Math.min(start.length, end.length, p.ids.length);
  let best: { s: number; e: number; score: number } | null = null;
  for (let s = 0; s < n; s++) {
    if (p.wordOfToken[s]! < 0) continue;
    for (let e = s; e < n && e - s + 1 <= maxAnswerLength; e++) {
      if (p.wordOfToken[e]! < 0) break;
      const score = start[s]! + end[e]!;
      if (best === null || score > best.score) best = { s, e, score };
    }
  }
  if (best === null) return null;
  return extendToWords(p, best.s, best.e, best.score);
}

/** Widens [s, e] to the first token of s's word and the last token of e's word. */
export function extendToWords(p: ReaderPassageTokens, s: number, e: number, score: number): SpanChoice {
  const ws = p.wordOfToken[s]!;
  const we = p.wordOfToken[e]!;
  let a = s;
  while (a > 0 && p.wordOfToken[a - 1] === ws) a--;
  let b = e;
  while (b + 1 < p.wordOfToken.length && p.wordOfToken[b + 1] === we) b++;
  return { start: a, end: b, score, text: p.text.slice(p.words[ws]![0], p.words[we]![1]) };
}

/** Index of the passage to answer from: the highest selection logit, ties to the lower index (better rank). */
export function bestPassage(relevance: ArrayLike<number>): number {
  let best = -1;
  for (let i = 0; i < relevance.length; i++) if (best < 0 || relevance[i]! > relevance[best]!) best = i;
  return best;
}

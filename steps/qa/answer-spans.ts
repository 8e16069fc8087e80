/**
 * Where an answer sits in a passage (pure). Passages and answers are cut into DPR-style simple
 * tokens (runs of letters, digits and marks, or single other non-space characters) with their
 * character offsets, compared lowercased.
 *
 * - exact: every occurrence of the answer's token sequence (the passage has the answer);
 * - otherwise, for free-text answers (QReCC, TopiOCQA), the window of passage tokens with the
 *   best SQuAD token F1 against the answer (articles and punctuation ignored, as the metric
 *   does), kept only when that F1 is above `minF1` (0.5), ties to the earliest, then shortest.
 * Spans are [start, end) character offsets into the passage text.
 */
import { answerTokens, normalizeAnswer } from "./scoring.ts";

export interface SimpleToken {
  readonly text: string;
  readonly start: number;
  readonly end: number;
}

const TOKEN = /[\p{L}\p{N}\p{M}]+|[^\p{Z}\p{C}\s]/gu;

export function simpleTokens(text: string): SimpleToken[] {
  const out: SimpleToken[] = [];
  for (const m of text.matchAll(TOKEN)) out.push({ text: m[0], start: m.index, end: m.index + m[0].length });
  return out;
}

export type SpanMatch = { readonly kind: "exact" | "f1"; readonly spans: readonly (readonly [number, number])[]; readonly f1: number } | { readonly kind: "none"; readonly spans: readonly []; readonly f1: number };

export interface SpanOptions {
  /** Look for the best-F1 window when the answer does not occur verbatim. */
  readonly fuzzy: boolean;
  readonly minF1?: number;
  /** Most occurrences kept. */
  readonly maxSpans?: number;
}

export function findAnswerSpans(passage: string, answer: string, options: SpanOptions): SpanMatch {
  const p = simpleTokens(passage);
  const a = simpleTokens(answer).map((t) => t.text.toLowerCase());
  const maxSpans = options.maxSpans ?? 10;
  const spans: [number, number][] = [];
  if (a.length > 0) {
    const lower = p.map((t) => t.text.toLowerCase());
    for (let i = 0; i + a.length <= p.length && spans.length < maxSpans; i++) {
      let ok = true;
      for (let j = 0; j < a.length && ok; j++) ok = lower[i + j] === a[j];
      if (ok) spans.push([p[i]!.start, p[i + a.length - 1]!.end]);
    }
  }
  if (spans.length > 0) return { kind: "exact", spans, f1: 1 };
  if (!options.fuzzy) return { kind: "none", spans: [], f1: 0 };
  return bestF1Window(passage, p, answer, options.minF1 ?? 0.5);
}

/** Tokens recur across passages and answers: their normal forms memoised, the memo emptied past a bound. */
const NORMALIZED = new Map<string, string>();
const NORMALIZED_BOUND = 200_000;

function normalizedToken(text: string): string {
  let n = NORMALIZED.get(text);
  if (n === undefined) {
    if (NORMALIZED.size >= NORMALIZED_BOUND) NORMALIZED.clear();
    NORMALIZED.set(text, (n = normalizeAnswer(text)));
  }
  return n;
}

/** The passage window with the best token F1 against the answer (see the module comment). */
function bestF1Window(passage: string, p: readonly SimpleToken[], answer: string, minF1: number): SpanMatch {
  const gold = answerTokens(answer);
  if (gold.length === 0 || p.length === 0) return { kind: "none", spans: [], f1: 0 };
  // The answer's distinct words as small integers with their counts; a window counts only those
  // (any other word only lengthens it), so the scan keeps one small array instead of a map.
  const ids = new Map<string, number>();
  const goldCount: number[] = [];
  for (const w of gold) {
    let id = ids.get(w);
    if (id === undefined) ids.set(w, (id = goldCount.push(0) - 1));
    goldCount[id]!++;
  }
  // Each simple token's normalised words as answer-word ids (-1: not in the answer); none for
  // articles and punctuation, which the metric drops.
  const words = p.map((t) => {
    const n = normalizedToken(t.text);
    return n === "" ? [] : n.split(" ").map((w) => ids.get(w) ?? -1);
  });
  const maxLen = Math.min(p.length, 2 * gold.length + 5);
  const counts = new Int32Array(goldCount.length);
  let best = { f1: 0, start: -1, end: -1 };
  for (let i = 0; i < p.length; i++) {
    if (words[i]!.length === 0) continue;
    counts.fill(0);
    let common = 0;
    let predLen = 0;
    for (let j = i; j < p.length && j - i < maxLen; j++) {
      const ws = words[j]!;
      if (ws.length === 0) continue;
      for (const id of ws) {
        predLen++;
        if (id >= 0 && counts[id]!++ < goldCount[id]!) common++;
      }
      const f1 = common === 0 ? 0 : (2 * common) / (predLen + gold.length);
      if (f1 > best.f1 + 1e-12) best = { f1, start: i, end: j };
    }
  }
  if (best.start < 0 || !(best.f1 > minF1)) return { kind: "none", spans: [], f1: best.f1 };
  void passage;
  return { kind: "f1", spans: [[p[best.start]!.start, p[best.end]!.end]], f1: best.f1 };
}

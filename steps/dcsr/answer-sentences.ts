/**
 * Which sentence of a gold passage answers a turn, and which sentences must never serve as
 * its in-passage negative (pure). Each dataset names its evidence, tried in order:
 *  - `offset`: a character offset of the answer in the passage (OR-QuAC's `answer_start`,
 *    checked against the answer text at that offset): the sentence holding it;
 *  - `span`: a text span that states the answer (TopiOCQA's `Rationale`), found in the
 *    passage: the sentence overlapping it most;
 *  - `answer-text`: the sentences whose lower-cased text contains the lower-cased answer
 *    (DCSR's own labelling, for NQ-style short answers): every one is a positive;
 *  - `answer-f1`: the sentence with the best SQuAD token F1 against the answer (QReCC's
 *    free-form `Truth_answer`; a fallback elsewhere), over all gold passages.
 * Labels per sentence of the positive passage: 1 = a positive (sampled from during
 * training), 2 = excluded from in-passage negatives (another sentence containing the
 * answer, or a neighbour of one that does), 0 = an in-passage negative candidate. DCSR's
 * rule: an in-passage negative neither contains the answer nor neighbours a sentence that
 * does.
 */

export type LocateMethod = "offset" | "span" | "answer-text" | "answer-f1";

export interface Evidence {
  /** The answer text (all datasets); null or empty when there is none. */
  readonly answer: string | null;
  /** Character offset of the answer in its passage (OR-QuAC `answer_start`). */
  readonly offset?: number;
  /** The span that states the answer (TopiOCQA `Rationale`). */
  readonly span?: string;
}

export interface GoldPassage {
  readonly pid: string;
  readonly text: string;
  /** The passage's sentences in order: character offsets and text. */
  readonly sentences: readonly { readonly start: number; readonly end: number; readonly text: string }[];
}

export interface Located {
  readonly pid: string;
  /** The located sentence (answer-text: the first containing one). */
  readonly positive: number;
  readonly labels: number[];
  readonly method: LocateMethod;
}

/** Answers that say there is none (OR-QuAC's CANNOTANSWER, QuAC-style). */
const NO_ANSWER = new Set(["cannotanswer", "unknown", "i don't know", "no answer"]);

function usableAnswer(answer: string | null): string | null {
  if (answer === null) return null;
  const a = answer.trim();
  return a === "" || NO_ANSWER.has(a.toLowerCase()) ? null : a;
}

/** SQuAD's answer normalisation: lower case, no punctuation, no articles, single spaces; then its tokens. */
export function squadTokens(text: string): string[] {
  const lower = text.toLowerCase().replace(/[\p{P}\p{S}]/gu, " ");
  return lower.split(/\s+/u).filter((t) => t !== "" && t !== "a" && t !== "an" && t !== "the");
}

/** SQuAD token F1 of a prediction against a reference (0 when either has no token). */
export function tokenF1(prediction: string, reference: string): number {
  const p = squadTokens(prediction);
  const r = squadTokens(reference);
  if (p.length === 0 || r.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const t of r) counts.set(t, (counts.get(t) ?? 0) + 1);
  let common = 0;
  for (const t of p) {
    const c = counts.get(t) ?? 0;
    if (c > 0) {
      common++;
      counts.set(t, c - 1);
    }
  }
  if (common === 0) return 0;
  const precision = common / p.length;
  const recall = common / r.length;
  return (2 * precision * recall) / (precision + recall);
}

/** Indexes of the sentences whose lower-cased text contains the lower-cased answer. */
export function sentencesContaining(g: GoldPassage, answer: string | null): number[] {
  const a = usableAnswer(answer)?.toLowerCase();
  if (a === undefined) return [];
  const out: number[] = [];
  g.sentences.forEach((s, i) => {
    if (s.text.toLowerCase().includes(a)) out.push(i);
  });
  return out;
}

/** The sentence covering character `offset` (or the first that starts after it, when it falls between two). */
function sentenceAt(g: GoldPassage, offset: number): number | undefined {
  const i = g.sentences.findIndex((s) => offset < s.end);
  return i < 0 ? undefined : i;
}

type Locator = (golds: readonly GoldPassage[], e: Evidence) => { pid: string; positives: number[] } | undefined;

const LOCATORS: Readonly<Record<LocateMethod, Locator>> = {
  offset: (golds, e) => {
    const g = golds[0];
    const answer = usableAnswer(e.answer);
    if (g === undefined || e.offset === undefined || answer === null || e.offset < 0) return undefined;
    if (!g.text.startsWith(answer, e.offset)) return undefined;
    const i = sentenceAt(g, e.offset);
    return i === undefined ? undefined : { pid: g.pid, positives: [i] };
  },
  span: (golds, e) => {
    const span = e.span?.trim();
    if (span === undefined || span === "") return undefined;
    for (const g of golds) {
      const at = g.text.indexOf(span);
      if (at < 0) continue;
      const end = at + span.length;
      let best = -1;
      let bestOverlap = 0;
      g.sentences.forEach((s, i) => {
        const overlap = Math.min(end, s.end) - Math.max(at, s.start);
        if (overlap > bestOverlap) {
          best = i;
          bestOverlap = overlap;
        }
      });
      if (best >= 0) return { pid: g.pid, positives: [best] };
    }
    return undefined;
  },
  "answer-text": (golds, e) => {
    for (const g of golds) {
      const hits = sentencesContaining(g, e.answer);
      if (hits.length > 0) return { pid: g.pid, positives: hits };
    }
    return undefined;
  },
  "answer-f1": (golds, e) => {
    const answer = usableAnswer(e.answer);
    if (answer === null) return undefined;
    let best: { pid: string; positives: number[] } | undefined;
    let bestF1 = 0;
    for (const g of golds) {
      g.sentences.forEach((s, i) => {
        const f1 = tokenF1(s.text, answer);
        if (f1 > bestF1) {
          bestF1 = f1;
          best = { pid: g.pid, positives: [i] };
        }
      });
    }
    return best;
  },
};

/** Per-sentence labels (1 positive, 2 excluded, 0 in-passage negative candidate). */
export function sentenceLabels(count: number, positives: readonly number[], alsoContaining: readonly number[]): number[] {
  const labels = new Array<number>(count).fill(0);
  const answerish = new Set([...positives, ...alsoContaining]);
  for (const i of answerish) {
    for (const j of [i - 1, i, i + 1]) if (j >= 0 && j < count) labels[j] = 2;
  }
  for (const i of positives) labels[i] = 1;
  return labels;
}

/**
 * The positive sentence of a turn: the first method of `methods` that locates one in the
 * turn's gold passages (in gold order), with the labels of that passage's sentences.
 */
export function locateAnswerSentence(golds: readonly GoldPassage[], e: Evidence, methods: readonly LocateMethod[]): Located | undefined {
  for (const method of methods) {
    const hit = LOCATORS[method](golds, e);
    if (hit === undefined) continue;
    const g = golds.find((x) => x.pid === hit.pid)!;
    return { pid: hit.pid, positive: hit.positives[0]!, labels: sentenceLabels(g.sentences.length, hit.positives, sentencesContaining(g, e.answer)), method };
  }
  return undefined;
}

/**
 * The DPR reader's token inputs, built in Node with the pipeline's BERT tokenizer (pure apart
 * from the encoder): `[CLS] question [SEP] title [SEP] passage [SEP]`.
 *
 * - The question is the turn's conversational input X_t = q_1 [SEP] a_1 [SEP] ... [SEP] q_t with
 *   q_1 pinned and the rest truncated from the left (the retriever's rule, query-tokens.ts), to
 *   `maxQuestionLength` tokens including [CLS] and its [SEP].
 * - A passage row is `title [SEP] text [SEP]` (text only without a title), cut to fit
 *   `maxLength` together with the question. The text is split into BERT's basic words
 *   (whitespace, then each punctuation or CJK character alone) with their character offsets,
 *   and each word is WordPiece-encoded on its own (the same tokens as encoding the whole
 *   text), so every text token knows its word: spans extend to whole words and answers are
 *   cut out of the original text.
 */
import type { TokenEncoder } from "../../encoding/tokenize/encoder.ts";
import { isBertChineseChar, isBertPunctuation } from "../../encoding/tokenize/bert-text.ts";
import { assembleHistory } from "../../encoding/format/query-tokens.ts";
import type { ReaderExample } from "../reader-data.ts";

const WHITE = /^\p{White_Space}$/u;

/** BERT's basic words of `text` as [start, end) character offsets. */
export function basicWords(text: string): [number, number][] {
  const out: [number, number][] = [];
  let start = -1;
  let i = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    const single = isBertPunctuation(ch) || isBertChineseChar(cp);
    if (WHITE.test(ch) || single) {
      if (start >= 0) out.push([start, i]);
      start = -1;
      if (single) out.push([i, i + ch.length]);
    } else if (start < 0) start = i;
    i += ch.length;
  }
  if (start >= 0) out.push([start, i]);
  return out;
}

export interface ReaderPassageTokens {
  /** title [SEP] text [SEP] (or text [SEP]). */
  readonly ids: number[];
  /** Index of the first text token in `ids`. */
  readonly textStart: number;
  /** Per token of `ids`: the index of its word in `words`, -1 for title and separator tokens. */
  readonly wordOfToken: number[];
  readonly words: [number, number][];
  readonly text: string;
}

export function passageTokens(encoder: TokenEncoder, title: string | null, text: string, maxLength: number): ReaderPassageTokens {
  const ids: number[] = [];
  const wordOfToken: number[] = [];
  if (title !== null && title !== "") {
    for (const id of encoder.encode(title)) {
      ids.push(id);
      wordOfToken.push(-1);
    }
    ids.push(encoder.special.sep);
    wordOfToken.push(-1);
  }
  const textStart = ids.length;
  const words = basicWords(text);
  const kept: [number, number][] = [];
  for (const [s, e] of words) {
    const pieces = encoder.encode(text.slice(s, e));
    if (pieces.length === 0) continue;
    if (ids.length + pieces.length > maxLength - 1) break;
    for (const id of pieces) {
      ids.push(id);
      wordOfToken.push(kept.length);
    }
    kept.push([s, e]);
  }
  ids.push(encoder.special.sep);
  wordOfToken.push(-1);
  return { ids, textStart, wordOfToken, words: kept, text };
}

/** The token span [first, last] (inclusive, indexes into `ids`) covering a character span, or null when cut off. */
export function tokenSpan(p: ReaderPassageTokens, span: readonly [number, number]): [number, number] | null {
  let first = -1;
  let last = -1;
  for (let t = 0; t < p.ids.length; t++) {
    const w = p.wordOfToken[t]!;
    if (w < 0) continue;
    const [s, e] = p.words[w]!;
    if (e <= span[0] || s >= span[1]) continue;
    if (first < 0) first = t;
    last = t;
  }
  if (first < 0) return null;
  // The whole answer must be inside the kept text.
  const lastWord = p.words[p.wordOfToken[last]!]!;
  return lastWord[1] >= span[1] ? [first, last] : null;
}

/** [CLS] X_t [SEP] token ids of an example (q_1 pinned, left truncation). */
export function questionTokens(encoder: TokenEncoder, ex: Pick<ReaderExample, "history" | "question">, maxQuestionLength: number): number[] {
  const segments = [...ex.history.flatMap((h) => [h.question, h.answer]), ex.question].map((s) => encoder.encode(s));
  return assembleHistory(segments, encoder.special, maxQuestionLength, true).ids;
}

/** The full input of one (question, passage) pair and the offset of the passage row in it. */
export function pairInput(question: readonly number[], passage: ReaderPassageTokens, maxLength: number, sep: number): { ids: number[]; offset: number } {
  const room = maxLength - question.length;
  const row = passage.ids.length <= room ? passage.ids : [...passage.ids.slice(0, Math.max(0, room - 1)), sep];
  return { ids: [...question, ...row], offset: question.length };
}

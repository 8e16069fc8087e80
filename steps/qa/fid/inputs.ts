/**
 * FiD's token inputs (pure apart from the tokenizer), as Izacard & Grave format them:
 * each passage `question: <conversation> title: <title> context: <text></s>` (TopiOCQA's
 * "Doc [SEP] Section" titles: `title: <doc> sub-title: <section>`; no title part where the
 * dataset has none), cut to `passageLength` tokens with </s> kept last.
 * The conversation is TopiOCQA's FiD form `question 1: q_1 answer 1: a_1 ... question t: q_t`,
 * truncated to `questionLength` tokens keeping q_1 and q_t and the most recent turns between them
 * (whole segments; q_1 is cut from the right when q_1 and q_t alone do not fit).
 * SentencePiece never joins pieces across spaces, so encoding segments separately and
 * concatenating them equals encoding the joined text.
 */
import type { ReaderExample } from "../reader-data.ts";
import type { T5Tokenizer } from "./t5-tokenizer.ts";

export function conversationTokens(tok: T5Tokenizer, ex: Pick<ReaderExample, "history" | "question">, budget: number): number[] {
  const t = ex.history.length + 1;
  const segs = [...ex.history.flatMap((h, i) => [`question ${i + 1}: ${h.question}`, `answer ${i + 1}: ${h.answer}`]), `question ${t}: ${ex.question}`].map((s) => tok.encode(s));
  const last = segs[segs.length - 1]!;
  if (segs.length === 1) return last.slice(0, budget);
  const first = segs[0]!;
  if (first.length + last.length > budget) return [...first.slice(0, Math.max(0, budget - last.length)), ...last].slice(0, budget);
  let room = budget - first.length - last.length;
  const middle: number[][] = [];
  for (let i = segs.length - 2; i >= 1; i--) {
    if (segs[i]!.length > room) break;
    middle.unshift(segs[i]!);
    room -= segs[i]!.length;
  }
  return [...first, ...middle.flat(), ...last];
}

export function passageInput(tok: T5Tokenizer, conversation: readonly number[], title: string | null, text: string, passageLength: number): number[] {
  const ids = [...tok.encode("question:"), ...conversation];
  if (title !== null && title !== "") {
    const sep = title.indexOf(" [SEP] ");
    if (sep >= 0) ids.push(...tok.encode(`title: ${title.slice(0, sep)}`), ...tok.encode(`sub-title: ${title.slice(sep + 7)}`));
    else ids.push(...tok.encode(`title: ${title}`));
  }
  ids.push(...tok.encode("context:"), ...tok.encode(text));
  return [...ids.slice(0, passageLength - 1), tok.eosId];
}

export function answerLabels(tok: T5Tokenizer, answer: string, answerLength: number): number[] {
  return [...tok.encode(answer).slice(0, answerLength - 1), tok.eosId];
}

/** [Q, K, L] ids of the examples' first `nContext` passages (missing passages stay padding). */
export function fidMatrix(tok: T5Tokenizer, examples: readonly ReaderExample[], o: { nContext: number; passageLength: number; questionLength: number }): Int32Array {
  const m = new Int32Array(examples.length * o.nContext * o.passageLength);
  examples.forEach((ex, q) => {
    const conv = conversationTokens(tok, ex, o.questionLength);
    ex.passages.slice(0, o.nContext).forEach((p, k) => m.set(passageInput(tok, conv, p.title, p.text, o.passageLength), (q * o.nContext + k) * o.passageLength));
  });
  return m;
}

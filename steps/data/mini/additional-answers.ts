/**
 * Other annotators' answers to a turn (TopiOCQA's dev `Additional_answers`), pure and seeded.
 *
 * Real TopiOCQA: every dev turn carries `Additional_answers`, a list of records with the main
 * answer's own fields (`Answer`, `Topic`, `Topic_section`, `Rationale`): other crowd workers'
 * free-form answers to the same question. The official scorer (`evaluate_reader.py`) scores a
 * prediction leave-one-out over `Answer` + these answers, and its human-performance mode scores
 * each answer against the others and refuses a turn with a single answer. So an additional answer
 * is one more *short answer*, not a supporting sentence: annotators mostly agree up to the
 * scorer's normalisation, and sometimes take a shorter or longer span of the same text.
 *
 * Here each dev turn gets `ADDITIONAL_ANSWERS` answers; each is one of:
 * - `same`: the main answer as written (the annotators agree);
 * - `surface`: the same answer in another surface form the scorer normalises away (a leading
 *   article dropped, or the article the rationale puts before it added, else lowercased);
 * - `longer`: the answer with up to `LONGER_WORDS` neighbouring words of the rationale on one side
 *   (never ending on an article);
 * - `shorter`: the answer without its first or last word (multi-word answers; else `longer`).
 * The kinds are drawn by `VARIANT_WEIGHTS` from a stream of its own (seed, conversation, turn),
 * so the rest of the world is unchanged. The mini answers are all substrings of the rationale.
 * The count and the weights are choices: the release publishes no agreement distribution. Held
 * against the one published figure, the paper's human leave-one-out F1 of about 70, the mini dev
 * gives 91 (its answers are 1.5 words, not phrases): docs/answerability.md, second part.
 */
import { rngFor, type Rng } from "./rng.ts";

export type AnswerVariant = "same" | "surface" | "longer" | "shorter";

/** How many additional answers a dev turn gets (three gold answers in all). */
export const ADDITIONAL_ANSWERS = 2;
/** Words of the rationale a `longer` answer adds on one side. */
export const LONGER_WORDS = 2;
export const VARIANT_WEIGHTS: readonly (readonly [AnswerVariant, number])[] = [
  ["same", 0.45],
  ["surface", 0.2],
  ["longer", 0.25],
  ["shorter", 0.1],
];

const ARTICLE = /^(a|an|the)$/i;
const stripPunct = (w: string): string => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "");

interface Located {
  /** Words of the rationale, and the answer's first and last word index in them. */
  readonly words: string[];
  readonly first: number;
  readonly last: number;
}

/** The answer's words in the rationale, when the answer starts and ends on word boundaries there. */
function locate(answer: string, rationale: string): Located | undefined {
  const at = rationale.indexOf(answer);
  if (answer.trim() === "" || at < 0) return undefined;
  const before = rationale.slice(0, at);
  const after = rationale.slice(at + answer.length);
  if (/\S$/.test(before) || /^[\p{L}\p{N}]/u.test(after)) return undefined;
  const words = rationale.split(/\s+/).filter((w) => w.length > 0);
  const first = before.split(/\s+/).filter((w) => w.length > 0).length;
  const last = first + answer.split(/\s+/).filter((w) => w.length > 0).length - 1;
  return { words, first, last };
}

function surface(answer: string, loc: Located | undefined): string {
  const words = answer.split(" ");
  if (words.length > 1 && ARTICLE.test(words[0]!)) return words.slice(1).join(" ");
  const prev = loc === undefined ? undefined : loc.words[loc.first - 1];
  if (prev !== undefined && ARTICLE.test(prev)) return `${prev.toLowerCase()} ${answer}`;
  const lower = answer.toLowerCase();
  return lower !== answer ? lower : answer.charAt(0).toUpperCase() + answer.slice(1);
}

function longer(rng: Rng, answer: string, loc: Located | undefined): string {
  if (loc === undefined) return answer;
  const left = loc.words.slice(Math.max(0, loc.first - LONGER_WORDS), loc.first);
  const right = loc.words.slice(loc.last + 1, loc.last + 1 + LONGER_WORDS);
  const sides = [left.length > 0 ? "left" : undefined, right.length > 0 ? "right" : undefined].filter((s) => s !== undefined);
  if (sides.length === 0) return answer;
  const words = loc.words.slice(loc.first, loc.last + 1);
  const out = rng.pick(sides) === "left" ? [...left, ...words] : [...words, ...right];
  // An annotator does not end an answer on an article ("Grioshonvux established the").
  while (out.length > words.length && ARTICLE.test(stripPunct(out[out.length - 1]!))) out.pop();
  return out.map((w, i) => (i === 0 || i === out.length - 1 ? stripPunct(w) : w)).join(" ");
}

function shorter(rng: Rng, answer: string, loc: Located | undefined): string {
  const words = answer.split(" ");
  const content = words.flatMap((w, i) => (stripPunct(w) !== "" && !ARTICLE.test(stripPunct(w)) ? [i] : []));
  if (content.length < 2) return longer(rng, answer, loc);
  // Drop the first content word (and what precedes it) or the last one (and what follows it).
  const kept = rng.chance(0.5) ? words.slice(content[1]) : words.slice(0, content[content.length - 2]! + 1);
  return kept.map((w, i) => (i === kept.length - 1 ? stripPunct(w) : w)).join(" ");
}

/** One variant of `answer` (a substring of `rationale`). */
export function answerVariant(rng: Rng, kind: AnswerVariant, answer: string, rationale: string): string {
  const loc = locate(answer, rationale);
  switch (kind) {
    case "same": return answer;
    case "surface": return surface(answer, loc);
    case "longer": return longer(rng, answer, loc);
    case "shorter": return shorter(rng, answer, loc);
  }
}

/** The additional answers of turn (convNo, turnNo) of a world with this seed. */
export function additionalAnswers(seed: number, convNo: number, turnNo: number, answer: string, rationale: string): string[] {
  const rng = rngFor(seed, "additional-answers", convNo, turnNo);
  const out: string[] = [];
  for (let i = 0; i < ADDITIONAL_ANSWERS; i++) out.push(answerVariant(rng, rng.weighted(VARIANT_WEIGHTS), answer, rationale));
  return out;
}

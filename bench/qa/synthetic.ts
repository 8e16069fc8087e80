/**
 * Seeded synthetic reader examples for bench/qa: each question with `passages` distinct passages
 * of about `passageWords` words from a closed word list (every word one WordPiece token of the
 * vocabulary built beside it), the answer a word of the first passage. Pure: no I/O.
 */
import { findAnswerSpans } from "../../steps/qa/answer-spans.ts";
import type { ReaderExample, ReaderPassage } from "../../steps/qa/reader-data.ts";
import { vocabFromTokens, type Vocab } from "../../steps/encoding/tokenize/vocab.ts";
import { TRAINED_SPECIAL_TOKENS } from "../../steps/encoding/tokenize/special-tokens.ts";
import { mulberry32 } from "../../steps/lib/prng.ts";

const SYLLABLES = ["ka", "lo", "mi", "su", "te", "ra", "no", "vi", "de", "po", "ga", "ne", "zu", "fe", "ho"];

/** 15 x 15 = 225 two-syllable words, then a few question words. */
export const WORDS: readonly string[] = [...SYLLABLES.flatMap((a) => SYLLABLES.map((b) => a + b)), "who", "what", "where", "when", "?", "."];

export const benchVocab = (): Vocab => vocabFromTokens([...TRAINED_SPECIAL_TOKENS, ...WORDS, ...Array.from({ length: 100 }, (_, i) => `doc${i}`)]);

export interface SyntheticShape {
  readonly questions: number;
  readonly passages: number;
  readonly passageWords: number;
  readonly questionWords: number;
  readonly seed: number;
}

export function syntheticExamples(s: SyntheticShape): ReaderExample[] {
  const r = mulberry32(s.seed);
  const word = () => WORDS[Math.floor(r() * 225)]!;
  const sentence = (n: number) => Array.from({ length: n }, word).join(" ");
  return Array.from({ length: s.questions }, (_, q) => {
    const answer = word();
    const passages: ReaderPassage[] = Array.from({ length: s.passages }, (_, j) => {
      const text = j === 0 ? `${sentence(s.passageWords - 2)} ${answer} .` : `${sentence(s.passageWords - 1)} .`;
      const m = findAnswerSpans(text, answer, { fuzzy: false });
      return { pid: `q${q}-p${j}`, title: `doc${(q * 7 + j) % 100}`, text, rank: j + 1, gold: j === 0, hasAnswer: m.spans.length > 0, spans: m.spans, match: m.kind };
    });
    return { qid: `q${q}`, question: `what ${sentence(s.questionWords - 2)} ?`, history: [], answers: [answer], questionType: null, domain: null, passages };
  });
}

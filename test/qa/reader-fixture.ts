/** A tiny learnable reading task for the reader tests: who founded / where is / when opened, answers in one of three passages. */
import type { ReaderExample, ReaderPassage } from "../../steps/qa/reader-data.ts";
import { findAnswerSpans } from "../../steps/qa/answer-spans.ts";
import { vocabFromTokens } from "../../steps/encoding/tokenize/vocab.ts";
import { TRAINED_SPECIAL_TOKENS } from "../../steps/encoding/tokenize/special-tokens.ts";
import { mulberry32 } from "../../steps/lib/prng.ts";

const NAMES = ["acme", "borax", "cobalt", "delta", "ember", "fable", "garnet", "harbor", "iris", "jasper", "kestrel", "lumen"];
const PEOPLE = ["john smith", "mary jones", "ada king", "li wei", "omar said", "eva berg"];
const TOWNS = ["paris", "oslo", "lima", "rome", "kyiv", "quito"];
const WORDS = ["who", "founded", "where", "is", "based", "in", "was", "by", "the", "company", "it", "a", "firm", "and", "of", "story", "long", "ago", ".", ",", "?", "what", "about", "then", "history"];

export const fixtureVocab = () => vocabFromTokens([...TRAINED_SPECIAL_TOKENS, ...WORDS, ...NAMES, ...PEOPLE.flatMap((p) => p.split(" ")), ...TOWNS, "##s", "##a"]);

function passage(pid: string, text: string, answer: string, rank: number): ReaderPassage {
  const m = findAnswerSpans(text, answer, { fuzzy: false });
  return { pid, title: null, text, rank, gold: m.spans.length > 0, hasAnswer: m.spans.length > 0, spans: m.spans, match: m.kind };
}

export function fixtureExamples(n: number, seed: number, prefix: string): ReaderExample[] {
  const r = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  return Array.from({ length: n }, (_, i) => {
    const name = NAMES[i % NAMES.length]!;
    const person = pick(PEOPLE);
    const town = pick(TOWNS);
    const founded = `${name} was founded by ${person} long ago .`;
    const based = `the company ${name} is based in ${town} .`;
    const other = `${pick(NAMES)} is a firm of ${pick(TOWNS)} and ${pick(PEOPLE)} .`;
    const askWho = r() < 0.5;
    const answer = askWho ? person : town;
    const question = askWho ? `who founded ${name} ?` : `where is ${name} based ?`;
    const ps = [passage(`${prefix}-${name}-o${i}`, other, answer, 1), passage(`${prefix}-${name}-f${i}`, founded, answer, 2), passage(`${prefix}-${name}-b${i}`, based, answer, 3)];
    return { qid: `${prefix}_${i}`, question, history: i % 3 === 0 ? [] : [{ question: `what about ${name} ?`, answer: "the history of it" }], answers: [answer], questionType: null, domain: null, passages: ps };
  });
}

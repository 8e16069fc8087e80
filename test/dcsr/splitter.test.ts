/** DCSR's sentence splitter on hand cases: abbreviations, numbers, capitals, lower-case continuations, short tails. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mayEndSentence, splitSentences } from "../../steps/dcsr/splitter.ts";
import { passageSentences, SplitStatsCounter } from "../../steps/dcsr/sentences.ts";

const texts = (t: string): string[] => splitSentences(t).map((s) => t.slice(s.start, s.end));

test("a sentence ends after . ! ? once it holds 8 words and the next word is capitalised", () => {
  const t = "Mr. Smith went to the market to buy some fresh bread. He met Dr. Jones at the corner of the old street today.";
  // "Mr." is listed; "Dr." could end a sentence but "He met Dr." holds 3 words.
  assert.deepEqual(texts(t), ["Mr. Smith went to the market to buy some fresh bread.", "He met Dr. Jones at the corner of the old street today."]);
  assert.deepEqual(texts("Did the old harbour town ever recover from the great flood? Nobody living there today could say for certain!"), [
    "Did the old harbour town ever recover from the great flood?",
    "Nobody living there today could say for certain!",
  ]);
});

test("numbers, abbreviations with dots, several capitals and single initials never end a sentence", () => {
  assert.equal(mayEndSentence("1825.", "It"), false);
  assert.equal(mayEndSentence("U.S.", "It"), false);
  assert.equal(mayEndSentence("NASA.", "It"), false);
  assert.equal(mayEndSentence("McDonald.", "It"), false);
  assert.equal(mayEndSentence("J.", "It"), false);
  assert.equal(mayEndSentence("etc.", "It"), false);
  assert.equal(mayEndSentence("Mrs.", "It"), false);
  assert.equal(mayEndSentence('"yes."', "It"), false); // a quote inside the word
  assert.equal(mayEndSentence("done.", "it"), false); // lower-case continuation
  assert.equal(mayEndSentence("done.", "3"), false);
  assert.equal(mayEndSentence("done.", "It"), true);
  assert.equal(mayEndSentence("done", "It"), false);
  assert.equal(mayEndSentence("done.", undefined), true);
  const t = "The small town was founded by settlers from the coast in 1825. It grew quickly once the railway reached the valley floor.";
  assert.deepEqual(texts(t), [t]);
});

test("a last sentence of fewer than 7 words merges into the one before; 7 words stay apart", () => {
  const head = "This first sentence of the passage has quite a few words in it.";
  assert.deepEqual(texts(`${head} Short tail of six words here.`), [`${head} Short tail of six words here.`]);
  assert.deepEqual(texts(`${head} A tail of exactly seven words here.`), [head, "A tail of exactly seven words here."]);
});

test("short sentences run together until one reaches 8 words; a passage keeps its only sentence however short", () => {
  assert.deepEqual(texts("Short one. Another short one. A third short sentence follows here now. Then the last one is long enough to stand."), [
    "Short one. Another short one. A third short sentence follows here now.",
    "Then the last one is long enough to stand.",
  ]);
  assert.deepEqual(texts("Too short."), ["Too short."]);
  assert.deepEqual(splitSentences("  \n "), []);
});

test("offsets point into the original text (any whitespace), rows carry index, words and text, and stats count them", () => {
  const t = "  Alpha beta gamma delta epsilon zeta eta theta.\n\nIota kappa lambda mu nu xi omicron pi rho.  ";
  const rows = passageSentences({ id: "p1", title: null, text: t }, { minWords: 8, minTailWords: 7 });
  assert.deepEqual(rows, [
    { pid: "p1", index: 0, start: 2, end: 48, words: 8, text: "Alpha beta gamma delta epsilon zeta eta theta." },
    { pid: "p1", index: 1, start: 50, end: 92, words: 9, text: "Iota kappa lambda mu nu xi omicron pi rho." },
  ]);
  const stats = new SplitStatsCounter({ minWords: 8, minTailWords: 7 });
  stats.add(rows);
  stats.add([]);
  assert.deepEqual(stats.stats(), { passages: 2, sentences: 2, meanSentencesPerPassage: 1, sentencesPerPassage: { "0": 1, "2": 1 }, meanWordsPerSentence: 8.5, emptyPassages: 1, rule: { minWords: 8, minTailWords: 7 } });
});

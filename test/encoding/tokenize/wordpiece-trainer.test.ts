import { test } from "node:test";
import assert from "node:assert/strict";
import { countWords, trainWordPieceVocab } from "../../../steps/encoding/tokenize/wordpiece-trainer.ts";
import { vocabFromTokens } from "../../../steps/encoding/tokenize/vocab.ts";
import { createBertTokenizer } from "../../../steps/encoding/tokenize/bert-tokenizer.ts";

const SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"];

test("hand-checked tiny corpus", () => {
  // words: ab x3, abc x1, bc x1. Pairs: (a,##b)=4, (##b,##c)=1, (b,##c)=1.
  // merge 1: a+##b -> ab (4). Then (ab,##c)=1 and (b,##c)=1 tie: "ab" < "b" -> abc, then bc.
  const r = trainWordPieceVocab(["ab ab ab abc", "bc"], { vocabSize: 100, minFrequency: 1 });
  assert.deepEqual(r.vocab, [...SPECIALS, "a", "b", "c", "##b", "##c", "ab", "abc", "bc"]);
  assert.deepEqual(r.merges, [["a", "##b"], ["ab", "##c"], ["b", "##c"]]);
  assert.deepEqual(trainWordPieceVocab(["ab ab ab abc", "bc"], { vocabSize: 11, minFrequency: 1 }).vocab, [...SPECIALS, "a", "b", "c", "##b", "##c", "ab"]);
  // default minFrequency 2 stops after the only pair seen twice
  assert.deepEqual(trainWordPieceVocab(["ab ab ab abc", "bc"], { vocabSize: 100 }).merges, [["a", "##b"]]);
});

test("merges of two ## symbols", () => {
  // "xyxy" x2: pairs (x,##y)=2, (##y,##x)=2, (##x,##y)=2 -> tie broken by strings: "##x" < "##y" < "x"
  const r = trainWordPieceVocab(["xyxy xyxy"], { vocabSize: 100, minFrequency: 2 });
  // then x ##y ##xy: (##y,##xy) before (x,##y); then x ##yxy -> xyxy
  assert.deepEqual(r.merges, [["##x", "##y"], ["##y", "##xy"], ["x", "##yxy"]]);
  assert.deepEqual(r.vocab.slice(5), ["x", "y", "##x", "##y", "##xy", "##yxy", "xyxy"]);
});

test("deterministic: input order does not matter, and training is repeatable", () => {
  const texts = ["The cat sat on the mat.", "A cat, a hat; the bat!", "Cats and hats and mats", "été, Éte", "中文 文字"];
  const a = trainWordPieceVocab(texts, { vocabSize: 45, minFrequency: 1 });
  const b = trainWordPieceVocab([...texts].reverse(), { vocabSize: 45, minFrequency: 1 });
  assert.deepEqual(a, b);
  assert.deepEqual(a.vocab.slice(0, 5), SPECIALS);
  assert.equal(a.vocab.length, 45);
  assert.equal(new Set(a.vocab).size, 45);
  // the words are normalised like the tokenizer: no capitals, no accents, punctuation alone
  assert.ok(!a.vocab.slice(5).some((t) => /[A-ZÉé]/.test(t)));
});

test("a trained vocab tokenizes its corpus without [UNK]", () => {
  const texts = ["the cat sat on the mat", "cats and hats", "unaffable cats"];
  const { vocab } = trainWordPieceVocab(texts, { vocabSize: 40, minFrequency: 1 });
  const enc = createBertTokenizer(vocabFromTokens(vocab));
  for (const t of texts) assert.ok(!enc.encode(t).includes(enc.special.unk), t);
  assert.deepEqual(enc.special, { pad: 0, unk: 1, cls: 2, sep: 3, mask: 4 });
});

test("countWords streams several sources into one map", () => {
  const m = countWords(["A b"]);
  countWords(["a!"], m);
  assert.deepEqual([...m.entries()].sort(), [["!", 1], ["a", 2], ["b", 1]]);
});

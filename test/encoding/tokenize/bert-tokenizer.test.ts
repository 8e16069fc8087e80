import { test } from "node:test";
import assert from "node:assert/strict";
import { vocabFromTokens } from "../../../steps/encoding/tokenize/vocab.ts";
import { createBertTokenizer, fixForLibrary } from "../../../steps/encoding/tokenize/bert-tokenizer.ts";
import { createReferenceTokenizer } from "../../../steps/encoding/tokenize/reference-tokenizer.ts";
import { buildBertTokenizerJson } from "../../../steps/encoding/tokenize/bert-tokenizer-json.ts";
import { bertNormalize, bertWords } from "../../../steps/encoding/tokenize/bert-text.ts";
import type { TokenEncoder } from "../../../steps/encoding/tokenize/encoder.ts";

const TOKENS = [
  "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", // 0-4
  "hello", "world", "##s", "!", ",", // 5-9
  "cafe", "un", "##aff", "##able", "中", // 10-14
  "国", "οσ", "𠀀", "the", "'", // 15-19
  "a", "##a", "naive", "don", "t", // 20-24
  "-", "e", "##ta", // 25-27
];
const vocab = vocabFromTokens(TOKENS);
const impls: TokenEncoder[] = [createBertTokenizer(vocab), createReferenceTokenizer(vocab)];

const CASES: [string, string, number[]][] = [
  ["case and punctuation", "Hello, WORLDS!", [5, 9, 6, 7, 8]],
  ["accents stripped", "Café NAÏVE", [10, 22]],
  ["## continuation", "unaffable", [11, 12, 13]],
  ["unknown word is one [UNK]", "unaffablez world", [1, 6]],
  ["CJK chars split", "中国人", [14, 15, 1]],
  ["CJK beyond the BMP split", "the𠀀the", [18, 17, 18]],
  ["apostrophe and hyphen split; greedy longest match", "don't e-ta", [23, 19, 24, 26, 25, 24, 21]],
  ["whitespace kept as a split, format/control chars deleted (joining words)", "hello\tworld\u00a0hello\u200bworld\u0001", [5, 6, 1]],
  ["final sigma lowercases per char like HF Rust", "ΟΣ", [16]],
  ["special tokens in text stay special", "hello [SEP] world [CLS]", [5, 3, 6, 2]],
  ["100 chars is a word, 101 is [UNK]", "a".repeat(100) + " " + "a".repeat(101), [20, ...new Array(99).fill(21), 1]],
  ["empty and blank", " \n ", []],
];

for (const impl of impls) {
  for (const [name, text, want] of CASES) {
    test(`${impl.implementation}: ${name}`, () => {
      assert.deepEqual(impl.encode(text), want);
    });
  }
}

test("token strings", () => {
  assert.deepEqual(impls[0]!.tokenize("Unaffable!"), ["un", "##aff", "##able", "!"]);
  assert.deepEqual(impls[1]!.tokenize("Unaffable!"), ["un", "##aff", "##able", "!"]);
});

test("normalisation and pre-tokenisation details", () => {
  assert.equal(bertNormalize("Ångström\u0301 ΣΑΣ"), "angstrom σασ");
  assert.deepEqual(bertWords("a.b,c (d)"), ["a", ".", "b", ",", "c", "(", "d", ")"]);
  assert.deepEqual(bertWords("x中y"), ["x", "中", "y"]);
  assert.equal(fixForLibrary("plain ascii"), "plain ascii");
  assert.equal(fixForLibrary("a𠀀b\u0378Σ"), "a 𠀀 bσ");
});

test("library and reference agree on random tricky strings", () => {
  const alphabet = ["hello", "world", "un", "aff", "able", "s", " ", " ", "!", ",", "'", "-", "É", "é", "中", "国", "𠀀", "Σ", "ο", "\t", "\u00a0", "\u200b", "\u0378", "ß", "İ", "[SEP]", "the", "a", "ﬁ", "①", "ｈ"];
  let seed = 12345;
  const rnd = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  for (let i = 0; i < 400; i++) {
    let s = "";
    const len = 1 + rnd(12);
    for (let j = 0; j < len; j++) s += alphabet[rnd(alphabet.length)];
    assert.deepEqual(impls[0]!.encode(s), impls[1]!.encode(s), JSON.stringify(s));
  }
});

test("tokenizer.json has the BERT-uncased pipeline", () => {
  const j = buildBertTokenizerJson(vocab) as Record<string, unknown> & { model: Record<string, unknown> };
  assert.deepEqual(j["normalizer"], { type: "BertNormalizer", clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true });
  assert.deepEqual(j["pre_tokenizer"], { type: "BertPreTokenizer" });
  assert.equal(j.model["type"], "WordPiece");
  assert.equal(j.model["unk_token"], "[UNK]");
  assert.equal(j.model["continuing_subword_prefix"], "##");
  assert.equal(j.model["max_input_chars_per_word"], 100);
  assert.equal((j.model["vocab"] as Record<string, number>)["##able"], 13);
  assert.deepEqual((j["added_tokens"] as { content: string; id: number }[]).map((t) => [t.content, t.id]), [["[PAD]", 0], ["[UNK]", 1], ["[CLS]", 2], ["[SEP]", 3], ["[MASK]", 4]]);
});

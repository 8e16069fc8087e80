import { test } from "node:test";
import assert from "node:assert/strict";
import { vocabFromTokens } from "../../../steps/encoding/tokenize/vocab.ts";
import { createBertTokenizer } from "../../../steps/encoding/tokenize/bert-tokenizer.ts";
import { queryForm, queryText, QUERY_FORMS } from "../../../steps/encoding/format/query-forms.ts";
import { encodeQuery, assembleHistory } from "../../../steps/encoding/format/query-tokens.ts";
import type { TurnRow } from "../../../steps/encoding/format/rows.ts";
import { InputError } from "../../../pipeline/engine/errors.ts";

// ids: [CLS]=2 [SEP]=3, who=5 is=6 he=7 a=8 singer=9 when=10 born=11 in=12 1990=13 what=14 band=15
const vocab = vocabFromTokens(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "who", "is", "he", "a", "singer", "when", "born", "in", "1990", "what", "band"]);
const enc = createBertTokenizer(vocab);

const turn3: TurnRow = {
  qid: "c1_3",
  conversation_id: "c1",
  turn: 3,
  question: "What band?",
  rewrite: "what band is he in",
  answer: "x",
  history: [
    { question: "Who is he", answer: "a singer" },
    { question: "when born", answer: "in 1990" },
  ],
  gold_passage_ids: ["p1"],
};
// "?" is not in the vocab: [UNK]=1
const turn3clean: TurnRow = { ...turn3, question: "what band" };
const turn1: TurnRow = { ...turn3, qid: "c1_1", turn: 1, question: "who is he", history: [] };

const ids = (t: TurnRow, form: Parameters<typeof encodeQuery>[1], maxLength = 128, retainFirst = true): number[] =>
  encodeQuery(t, form, enc, { maxLength, retainFirst }).ids;

test("every query form at turn 3 (no truncation)", () => {
  assert.deepEqual(ids(turn3clean, "history"), [2, 5, 6, 7, 3, 8, 9, 3, 10, 11, 3, 12, 13, 3, 14, 15, 3]);
  assert.deepEqual(ids(turn3clean, "history_without_q"), [2, 5, 6, 7, 3, 8, 9, 3, 10, 11, 3, 12, 13, 3]);
  assert.deepEqual(ids(turn3clean, "questions"), [2, 5, 6, 7, 3, 10, 11, 3, 14, 15, 3]);
  assert.deepEqual(ids(turn3clean, "questions_prev"), [2, 5, 6, 7, 3, 10, 11, 3]);
  assert.deepEqual(ids(turn3clean, "q_t"), [2, 14, 15, 3]);
  assert.deepEqual(ids(turn3, "q_t"), [2, 14, 15, 1, 3]);
  assert.deepEqual(ids(turn3clean, "a_prev"), [2, 12, 13, 3]);
  assert.deepEqual(ids(turn3clean, "q_first"), [2, 5, 6, 7, 3]);
  assert.deepEqual(ids(turn3clean, "rewrite"), [2, 14, 15, 6, 7, 12, 3]);
  assert.deepEqual(encodeQuery(turn3clean, "history", enc).typeIds, new Array(17).fill(0));
});

test("history: first question retained, rest truncated from the left, at several budgets", () => {
  const at = (m: number) => encodeQuery(turn3clean, "history", enc, { maxLength: m });
  assert.deepEqual(at(17).ids, [2, 5, 6, 7, 3, 8, 9, 3, 10, 11, 3, 12, 13, 3, 14, 15, 3]);
  assert.equal(at(17).truncated, false);
  assert.deepEqual(at(16).ids, [2, 5, 6, 7, 3, 9, 3, 10, 11, 3, 12, 13, 3, 14, 15, 3]);
  assert.equal(at(16).truncated, true);
  assert.deepEqual(at(10).ids, [2, 5, 6, 7, 3, 13, 3, 14, 15, 3]);
  assert.deepEqual(at(8).ids, [2, 5, 6, 7, 3, 14, 15, 3]);
  // q1 + q_t no longer fit: q1 is cut from the right, q_t kept whole
  assert.deepEqual(at(7).ids, [2, 5, 6, 3, 14, 15, 3]);
  assert.deepEqual(at(6).ids, [2, 5, 3, 14, 15, 3]);
  // no room for any of q1: only (the end of) q_t
  assert.deepEqual(at(5).ids, [2, 14, 15, 3]);
  assert.deepEqual(at(3).ids, [2, 15, 3]);
  for (const m of [3, 5, 6, 7, 8, 10, 16, 17, 40]) assert.ok(at(m).ids.length <= m);
});

test("history without retaining the first question truncates everything from the left", () => {
  assert.deepEqual(ids(turn3clean, "history", 8, false), [2, 3, 12, 13, 3, 14, 15, 3]);
});

test("X_t \\ {q_t} and Q_t truncate with the same rule", () => {
  assert.deepEqual(ids(turn3clean, "history_without_q", 9), [2, 5, 6, 7, 3, 3, 12, 13, 3]);
  assert.deepEqual(ids(turn3clean, "questions", 8), [2, 5, 6, 7, 3, 14, 15, 3]);
  assert.deepEqual(ids(turn3clean, "questions_prev", 8), [2, 5, 6, 7, 3, 10, 11, 3]);
});

test("turn 1: empty history", () => {
  assert.deepEqual(ids(turn1, "history"), [2, 5, 6, 7, 3]);
  assert.deepEqual(ids(turn1, "questions"), [2, 5, 6, 7, 3]);
  assert.deepEqual(ids(turn1, "history_without_q"), [2, 3]);
  assert.deepEqual(ids(turn1, "questions_prev"), [2, 3]);
  assert.deepEqual(ids(turn1, "a_prev"), [2, 3]);
  assert.deepEqual(ids(turn1, "q_first"), [2, 5, 6, 7, 3]);
  // a single segment in the history layout is "rest": truncated from the left like the authors'
  assert.deepEqual(ids(turn1, "history", 4), [2, 6, 7, 3]);
  assert.equal(queryText(turn1, "history_without_q"), "");
});

test("empty (null) answer keeps its [SEP] slot; the text form skips it", () => {
  const t: TurnRow = { ...turn3clean, turn: 2, history: [{ question: "who is he", answer: null }] };
  assert.deepEqual(ids(t, "history"), [2, 5, 6, 7, 3, 3, 14, 15, 3]);
  assert.deepEqual(ids(t, "a_prev"), [2, 3]);
  assert.equal(queryText(t, "history"), "who is he what band");
});

test("q_t longer than the budget", () => {
  const t: TurnRow = { ...turn3clean, turn: 2, history: [{ question: "what", answer: "a" }], question: "who is he when born" };
  // single layout: right-truncated
  assert.deepEqual(encodeQuery(t, "q_t", enc, { maxLength: 4 }), { ids: [2, 5, 6, 3], typeIds: [0, 0, 0, 0], truncated: true });
  // history layout: q1 dropped, q_t never dropped (its last B tokens kept)
  assert.deepEqual(ids(t, "history", 6), [2, 6, 7, 10, 11, 3]);
  // budget just fits q_t plus one token of q1
  assert.deepEqual(ids(t, "history", 9), [2, 14, 3, 5, 6, 7, 10, 11, 3]);
  assert.deepEqual(ids(t, "history", 8), [2, 5, 6, 7, 10, 11, 3]);
});

test("rewrite is right-truncated; missing rewrite is an InputError", () => {
  assert.deepEqual(ids(turn3clean, "rewrite", 5), [2, 14, 15, 6, 3]);
  assert.throws(() => ids({ ...turn3clean, rewrite: null }, "rewrite"), InputError);
});

test("text forms for BM25 use the same segments", () => {
  assert.equal(queryText(turn3, "history"), "Who is he a singer when born in 1990 What band?");
  assert.equal(queryText(turn3, "history_without_q"), "Who is he a singer when born in 1990");
  assert.equal(queryText(turn3, "questions"), "Who is he when born What band?");
  assert.equal(queryText(turn3, "questions_prev"), "Who is he when born");
  assert.equal(queryText(turn3, "a_prev"), "in 1990");
  assert.equal(queryText(turn3, "q_first"), "Who is he");
  assert.equal(queryText(turn3, "q_t"), "What band?");
  assert.equal(queryText(turn3, "rewrite"), "what band is he in");
});

test("registry: names and lookup", () => {
  assert.deepEqual(Object.keys(QUERY_FORMS).sort(), ["a_prev", "history", "history_without_q", "q_first", "q_t", "questions", "questions_prev", "rewrite"]);
  assert.equal(queryForm("history").paper, "X_t");
  assert.throws(() => queryForm("X_t"), /unknown query form 'X_t'/);
});

test("assembleHistory on raw ids and bad maxLength", () => {
  const sp = enc.special;
  assert.deepEqual(assembleHistory([], sp, 4, true).ids, [2, 3]);
  assert.deepEqual(assembleHistory([[7, 7], [], [8]], sp, 10, true).ids, [2, 7, 7, 3, 3, 8, 3]);
  assert.throws(() => assembleHistory([[1]], sp, 1, true), InputError);
});

/**
 * Where an answer sits in a passage (steps/qa/answer-spans.ts): every exact occurrence, else the
 * best-F1 window by the SQuAD token F1 (articles and punctuation dropped), kept above minF1, ties
 * to the earliest; offsets worked out by hand.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { findAnswerSpans } from "../../steps/qa/answer-spans.ts";

const FUZZY = { fuzzy: true, minF1: 0.5, maxSpans: 10 } as const;

test("exact occurrences, case-insensitive, as character offsets", () => {
  assert.deepEqual(findAnswerSpans("The Eiffel Tower is in Paris, France. paris again", "Paris", FUZZY), { kind: "exact", spans: [[23, 28], [38, 43]], f1: 1 });
  assert.deepEqual(findAnswerSpans("The Eiffel Tower is in Paris, France.", "Paris", { fuzzy: true, maxSpans: 1 }).spans, [[23, 28]]);
});

test("the best-F1 window: 'born in' (F1 0.8) beats 'born in the city of Paris' (0.75); the article counts for nothing", () => {
  assert.deepEqual(findAnswerSpans("He was born in the city of Paris in 1850.", "born in Paris", FUZZY), { kind: "f1", spans: [[7, 14]], f1: 0.8 });
  // A repeated answer word counts as often as the answer has it: "New York, New" (2 of 3 words, F1 4/6) beats "New York, New York" (4/7).
  assert.deepEqual(findAnswerSpans("New York, New York is a song.", "new new song", FUZZY), { kind: "f1", spans: [[0, 13]], f1: (2 * 2) / (3 + 3) });
});

test("below or at minF1, or without fuzzy matching, there is no span (the best F1 is still reported)", () => {
  assert.deepEqual(findAnswerSpans("Paris is nice.", "Paris France Europe", FUZZY), { kind: "none", spans: [], f1: 0.5 });
  assert.deepEqual(findAnswerSpans("He was born in Paris.", "London", FUZZY), { kind: "none", spans: [], f1: 0 });
  assert.deepEqual(findAnswerSpans("He was born in the city of Paris.", "born in Paris", { fuzzy: false }), { kind: "none", spans: [], f1: 0 });
});

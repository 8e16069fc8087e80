/** DCSR's examples (positive passage from the answer sentence, slot labels, mined passages or sentences) and DCSR x IHN's mining, as row indexes. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildExamples } from "../../steps/training/examples.ts";
import { buildDcsrExamples, slotLabels } from "../../steps/dcsr/examples.ts";
import { mineSentenceNegatives } from "../../steps/dcsr/mining.ts";
import type { AnswerSentenceRow } from "../../steps/dcsr/label-step.ts";

const pids = ["a", "b", "c", "d", "e"];
const rowOf = new Map(pids.map((p, i) => [p, i]));
const trainQids = ["q1", "q2", "q3", "q4"];
const trainGold = new Map([["q1", ["b", "c"]], ["q2", ["a"]], ["q3", ["d"]], ["q4", ["e"]]]);
const negatives = new Map([["q1", ["d", "a", "zz"]], ["q2", ["c"]], ["q3", ["a"]], ["q4", ["a"]]]);
const base = buildExamples({ trainQids, devQids: [], trainGold, devGold: new Map(), rowOf, passages: 5, k: 2, devPassages: 0, seed: 1, negatives });
const label = (qid: string, pid: string, positive: number, labels: number[]): AnswerSentenceRow => ({ qid, pid, positive, labels, method: "answer-f1" });
// q1's answer is in its second gold passage; q3's positive sentence lost its marker; q4 has no located answer.
const labels = new Map([
  ["q1", label("q1", "c", 1, [2, 1, 2, 0])],
  ["q2", label("q2", "a", 0, [1, 2])],
  ["q3", label("q3", "d", 3, [0, 0, 2, 1])],
]);
const marked = [2, 1, 4, 3, 2];

test("slot labels keep the marked sentences' labels and mark the rest -1", () => {
  assert.deepEqual([...slotLabels([2, 1, 2, 0], 3, 5)], [2, 1, 2, -1, -1]);
  assert.deepEqual([...slotLabels([1], 4, 3)], [1, -1, -1]);
});

test("an example per located answer sentence with a vector; its positive passage is the one holding that sentence", () => {
  const ex = buildDcsrExamples({ base, trainQids, labels, rowOf, markedCount: (r) => marked[r]!, maxMarkers: 4, k: 2 });
  assert.deepEqual(ex.trainRows, [0, 1]);
  assert.deepEqual([...ex.pos], [2, 0]);
  assert.deepEqual([...ex.labels.data], [2, 1, 2, 0, 1, 2, -1, -1]);
  assert.deepEqual({ cols: ex.gold.cols, data: [...ex.gold.data] }, { cols: 2, data: [1, 2, 0, -1] });
  assert.deepEqual({ cols: ex.neg!.cols, data: [...ex.neg!.data] }, { cols: 2, data: [3, 0, 2, -1] });
  assert.equal(ex.negSentences, null);
  assert.equal(ex.counts.examples, 2);
  assert.equal(ex.counts.positive_without_vector, 1);
  assert.equal(ex.counts.no_answer_sentence, 1);
  assert.equal(ex.counts.no_in_passage_candidate, 1, "q2's two marked sentences are its answer and that answer's neighbour");
});

test("DCSR x IHN: mined sentences as (passage row, slot) in rank order, top k, unknown ids dropped", () => {
  const sentenceNegatives = new Map([["q1", { pids: ["zz", "e", "a", "d"], slots: [0, 1, 0, 2] }], ["q2", { pids: [], slots: [] }]]);
  const ex = buildDcsrExamples({ base, trainQids, labels, rowOf, markedCount: (r) => marked[r]!, maxMarkers: 4, k: 2, sentenceNegatives });
  assert.equal(ex.neg, null);
  assert.deepEqual({ cols: ex.negSentences!.cols, rows: [...ex.negSentences!.rows], slots: [...ex.negSentences!.slots] }, { cols: 2, rows: [4, 0, -1, -1], slots: [1, 0, -1, -1] });
  assert.equal(ex.counts.negatives_missing_ids, 1);
});

test("mining: a model's top sentences per training turn, sentences of gold passages dropped, rank order, top k", () => {
  const run = [
    { qid: "q1", pid: "c", slot: 1, rank: 1, score: 9, log_prob: -0.1 },
    { qid: "q1", pid: "d", slot: 0, rank: 3, score: 7, log_prob: -2 },
    { qid: "q1", pid: "a", slot: 2, rank: 2, score: 8, log_prob: -1 },
    { qid: "q1", pid: "b", slot: 0, rank: 4, score: 6, log_prob: -3 },
    { qid: "q1", pid: "e", slot: 3, rank: 5, score: 5, log_prob: -4 },
    { qid: "other", pid: "a", slot: 0, rank: 1, score: 1, log_prob: 0 },
  ];
  const { lists, goldDropped } = mineSentenceNegatives(run, new Map([["q1", ["b", "c"]]]), 2);
  assert.deepEqual(lists, [{ qid: "q1", pids: ["a", "d"], slots: [2, 0], scores: [8, 7] }]);
  assert.equal(goldDropped, 1);
});

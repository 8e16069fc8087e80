import { test } from "node:test";
import assert from "node:assert/strict";
import { exactMatch, leaveOneOut, normalizeAnswer, QA_SCORING, tokenF1 } from "../../steps/qa/scoring.ts";
import { evaluateAnswers, qaMetricsFile } from "../../steps/qa/evaluate.ts";

const close = (a: number, b: number, msg?: string) => assert.ok(Math.abs(a - b) < 1e-9, `${msg ?? ""} ${a} != ${b}`);

test("SQuAD normalisation: lowercase, ASCII punctuation, whole-word articles, whitespace", () => {
  assert.equal(normalizeAnswer("The  Quick, Brown fox!"), "quick brown fox");
  assert.equal(normalizeAnswer("an apple a day"), "apple day");
  assert.equal(normalizeAnswer("Theatre"), "theatre");
  assert.equal(normalizeAnswer("A.B."), "ab");
  assert.equal(normalizeAnswer("x_the_y"), "xthey");
  // Punctuation goes first, so "the," is an article and "the-end" is one word.
  assert.equal(normalizeAnswer("the, end"), "end");
  assert.equal(normalizeAnswer("the-end"), "theend");
  assert.equal(normalizeAnswer("Café « déjà »\tvu"), "café « déjà » vu");
  assert.equal(normalizeAnswer("  "), "");
});

test("EM and token F1 on hand-computed cases", () => {
  assert.equal(exactMatch("The Eiffel Tower", "eiffel tower."), 1);
  assert.equal(exactMatch("Paris", "Paris, France"), 0);
  // gold {eiffel, tower, is, in, paris}, prediction {paris}: P 1, R 1/5.
  close(tokenF1("The Eiffel Tower is in Paris.", "Paris"), (2 * 1 * 0.2) / 1.2);
  // Repeated tokens count as a multiset: gold {a1 a1 b}, prediction {a1 b b}: same 2, P 2/3, R 2/3.
  close(tokenF1("a1 a1 b", "a1 b b"), 2 / 3);
  // Empty on either side: 1 only when both are empty.
  assert.equal(tokenF1("", ""), 1);
  assert.equal(tokenF1("the", ""), 1);
  assert.equal(tokenF1("Paris", ""), 0);
  assert.equal(tokenF1("", "Paris"), 0);
});

test("TopiOCQA leave-one-out over several gold answers", () => {
  const golds = ["Barack Obama", "Obama", "President Barack Obama"];
  // Leaving out gold 0: max over {Obama, President Barack Obama} = EM 1, F1 1; gold 1: EM 0, F1 2/3
  // (barack obama vs obama); gold 2: EM 1, F1 1.
  const s = leaveOneOut(golds, "Obama");
  close(s.em, 2 / 3);
  close(s.f1, (1 + 2 / 3 + 1) / 3);
  // One gold answer: plain scores.
  const one = leaveOneOut(["in 2009"], "2009");
  assert.equal(one.em, 0);
  close(one.f1, 2 / 3);
  assert.throws(() => leaveOneOut([], "x"), RangeError);
});

test("per-dataset rules: QReCC skips empty truths and scores a missing answer as empty; TopiOCQA scores it 0", () => {
  assert.equal(QA_SCORING.qrecc.score([""], "anything", {}), "skip");
  assert.deepEqual(QA_SCORING.qrecc.score([""], "anything", { keepEmptyTruth: true }), { em: 0, f1: 0 });
  assert.deepEqual(QA_SCORING.qrecc.score([""], undefined, { keepEmptyTruth: true }), { em: 1, f1: 1 });
  assert.deepEqual(QA_SCORING.topiocqa.score(["x", "y"], undefined, {}), { em: 0, f1: 0 });
  assert.deepEqual(QA_SCORING.max.score(["Nile", "the Nile river"], "the nile", {}), { em: 1, f1: 1 });
});

test("evaluateAnswers: counts, means and breakdowns in the retrieval metrics.json shape", () => {
  const preds = new Map([["1_1", "Paris"], ["1_2", "No idea"], ["1_3", "it opened in 1889"], ["9_9", "stray"]]);
  const refs = [
    { qid: "1_1", answers: ["The Eiffel Tower is in Paris."] },
    { qid: "1_2", answers: [""] },
    { qid: "1_3", answers: ["It opened in 1889."] },
    { qid: "2_1", answers: ["Gustave Eiffel."] },
  ];
  const ev = evaluateAnswers(preds, refs, "qrecc");
  assert.equal(ev.aggregate.n, 3);
  close(ev.aggregate.metrics["em"]!, 1 / 3);
  close(ev.aggregate.metrics["f1"]!, (1 / 3 + 1 + 0) / 3);
  assert.deepEqual(ev.aggregate.counts, { references: 4, predictions: 4, scored: 3, skipped: 1, missingPredictions: 1, ignoredPredictions: 1 });
  const labels = new Map([["1_1", { questionType: "first", domain: "trec" }], ["1_3", { questionType: "switch", domain: "trec" }], ["2_1", { questionType: "first", domain: "nq" }]]);
  const m = qaMetricsFile("test", ev, labels);
  assert.deepEqual(m.byQuestionType.groups.map((g) => [g.group, g.n]), [["first", 2], ["switch", 1]]);
  close(m.byQuestionType.groups[0]!.metrics["f1"]!, (1 / 3 + 0) / 2);
  assert.deepEqual(m.byDomain.groups.map((g) => [g.group, g.n]), [["nq", 1], ["trec", 2]]);
});

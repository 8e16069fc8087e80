import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { answerability, normalizedSpans, occursAsSpan, oracleScore, type AnswerabilityTurn } from "../../steps/qa/answerability.ts";
import { readReferences } from "../../steps/qa/formats.ts";

const close = (a: number, b: number, msg?: string) => assert.ok(Math.abs(a - b) < 1e-12, `${msg ?? ""} ${a} != ${b}`);

const PRIZE = "The Empty River was awarded the Thouxkaerk Prize in 1990.";
const CHEESE = "Kesktu Ford is known for producing cheese.";
const PASSAGES = new Map([
  ["p1", PRIZE],
  ["p2", CHEESE],
]);

test("an answer occurs as a span when its normalised words are a whole-word run of the normalised passage", () => {
  assert.equal(occursAsSpan(PRIZE, "the Thouxkaerk prize!"), true);
  assert.equal(occursAsSpan("U.S. exports grew.", "us exports"), true);
  // Not contiguous, not whole words, empty after normalisation: no span.
  assert.equal(occursAsSpan(PRIZE, "Thouxkaerk Prize 1990"), false);
  assert.equal(occursAsSpan(PRIZE, "River wa"), false);
  assert.equal(occursAsSpan(PRIZE, "The."), false);
  assert.equal(occursAsSpan(PRIZE, ""), false);
});

test("spans start and end on tokens the normaliser keeps, at most maxTokens tokens, each normalised text once", () => {
  assert.deepEqual([...normalizedSpans("The cat sat.", 2)].sort(), ["cat", "cat sat", "sat"]);
  assert.deepEqual([...normalizedSpans("The cat sat.", 1)].sort(), ["cat", "sat"]);
  // "cat" twice is one entry; "cat, the cat" spans four tokens and normalises to "cat cat".
  assert.deepEqual([...normalizedSpans("cat, the cat", 3)], ["cat"]);
  assert.deepEqual([...normalizedSpans("cat, the cat", 4)].sort(), ["cat", "cat cat"]);
  assert.deepEqual([...normalizedSpans("", 5)], []);
});

test("oracle under TopiOCQA's leave-one-out: two different gold answers cap EM at 0.5; F1 ties between the short and the long answer", () => {
  const golds = ["Empty River", "The Empty River was awarded the Thouxkaerk Prize."];
  const o = oracleScore(golds, normalizedSpans(PRIZE, 10), "topiocqa");
  close(o.em, 0.5);
  // "empty river": (F1 0.5 against the sentence + 1) / 2; the sentence: (0.5 + 1) / 2; no span does better.
  close(o.f1, 0.75);
  // The same golds under "max": the answer itself is a span.
  assert.deepEqual(oracleScore(golds, normalizedSpans(PRIZE, 10), "max"), { em: 1, f1: 1 });
  // No candidate: nothing to score.
  assert.deepEqual(oracleScore(golds, [], "topiocqa"), { em: 0, f1: 0 });
});

const turn = (qid: string, answers: string[], gold: string[], ranked: string[]): AnswerabilityTurn => ({ qid, answers, goldPassageIds: gold, ranked });

test("QReCC's rule: an empty truth is skipped; an abstractive answer is no span and only reaches partial F1", () => {
  const turns = [
    // Abstractive: "produces" is not in the passage; the best span is "kesktu ford" (F1 2/3).
    turn("1_1", ["Kesktu Ford produces cheese"], ["p2"], ["p1", "p2"]),
    turn("1_2", [""], ["p2"], ["p2"]),
    turn("1_3", ["cheese"], ["p2"], ["p2", "p9"]),
  ];
  const a = answerability(turns, PASSAGES, { scoring: "qrecc", ks: [1, 2], maxAnswerTokens: 30 });
  assert.equal(a.n, 2);
  assert.deepEqual(a.counts, { turns: 3, skipped: 1, emptyAnswers: 0, withoutGold: 0, missingPassages: 1 });
  assert.deepEqual(
    a.perTurn.map((r) => r.qid),
    ["1_1", "1_3"],
  );
  const m = a.metrics;
  close(m["answer-in-gold"]!, 0.5);
  close(m["gold@1"]!, 0.5);
  close(m["gold@2"]!, 1);
  close(m["answer@1"]!, 0.5);
  close(m["answer@2"]!, 0.5);
  close(m["oracle-em@2"]!, 0.5);
  close(m["oracle-f1@1"]!, 0.5);
  close(m["oracle-f1@2"]!, (2 / 3 + 1) / 2);
  // A span longer than maxAnswerTokens does not count for the oracle (the span share has no length cap).
  const short = answerability([turn("2_1", ["Kesktu Ford is known"], ["p2"], ["p2"])], PASSAGES, { scoring: "qrecc", ks: [1], maxAnswerTokens: 3 });
  close(short.metrics["answer@1"]!, 1);
  close(short.metrics["oracle-em@1"]!, 0);
  close(short.metrics["oracle-f1@1"]!, (2 * 1 * 0.75) / 1.75);
});

test("an answer that normalises to nothing is scored (TopiOCQA keeps it) but occurs nowhere; a turn without gold passage counts", () => {
  const a = answerability([turn("3_1", ["The"], [], ["p1"])], PASSAGES, { scoring: "topiocqa", ks: [1], maxAnswerTokens: 10 });
  assert.deepEqual(a.counts, { turns: 1, skipped: 0, emptyAnswers: 1, withoutGold: 1, missingPassages: 0 });
  assert.deepEqual(a.perTurn[0]!.metrics, { "answer-in-gold": 0, "gold@1": 0, "answer@1": 0, "oracle-em@1": 0, "oracle-f1@1": 0 });
  assert.throws(() => answerability([], PASSAGES, { scoring: "max", ks: [], maxAnswerTokens: 1 }), RangeError);
});

test("answers as the repository's parsers deliver them: TopiOCQA raw turns with Additional_answers, SCAI ground truth", () => {
  const dir = mkdtempSync(join(tmpdir(), "answerability-"));
  try {
    const topiocqa = join(dir, "topiocqa_dev.json");
    writeFileSync(
      topiocqa,
      JSON.stringify([
        // The rationale sentence as the additional answer (the mini world's layout before issue 32's fix).
        { Conversation_no: 1, Turn_no: 1, Question: "q", Answer: "Thouxkaerk Prize", Additional_answers: [{ Answer: "The Empty River was awarded the Thouxkaerk Prize." }] },
        // The real data's usual case: another annotator wrote the same short answer.
        { Conversation_no: 1, Turn_no: 2, Question: "q", Answer: "the Thouxkaerk Prize", Additional_answers: [{ Answer: "Thouxkaerk Prize" }] },
      ]),
    );
    const refs = readReferences(topiocqa).references;
    const turns = refs.map((r) => turn(r.qid, [...r.answers], ["p1"], ["p1"]));
    const a = answerability(turns, PASSAGES, { scoring: "topiocqa", ks: [1], maxAnswerTokens: 10 });
    assert.deepEqual(
      a.perTurn.map((r) => [r.qid, r.metrics["answer@1"], r.metrics["oracle-em@1"]]),
      [
        ["1_1", 1, 0.5],
        ["1_2", 1, 1],
      ],
    );
    const scai = join(dir, "scai-qrecc21-test-turns.json");
    writeFileSync(scai, JSON.stringify([{ Conversation_no: 7, Turn_no: 2, Question: "q", Truth_answer: "Kesktu Ford is known for producing cheese." }]));
    const q = readReferences(scai).references.map((r) => turn(r.qid, [...r.answers], ["p2"], ["p2"]));
    assert.deepEqual(answerability(q, PASSAGES, { scoring: "qrecc", ks: [1], maxAnswerTokens: 30 }).perTurn, [{ qid: "7_2", metrics: { "answer-in-gold": 1, "gold@1": 1, "answer@1": 1, "oracle-em@1": 1, "oracle-f1@1": 1 } }]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * Answer sentences and in-passage negative candidates: each dataset's evidence (TopiOCQA's
 * Rationale, OR-QuAC's answer_start, QReCC's answer by token F1, NQ's answer text), read
 * from hand-written files in the native formats, and the labels that keep an answer
 * sentence and its neighbours out of the in-passage negatives.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { locateAnswerSentence, sentenceLabels, squadTokens, tokenF1, type GoldPassage } from "../../steps/dcsr/answer-sentences.ts";
import { RAW_READERS } from "../../steps/dcsr/evidence.ts";
import { labelTurns } from "../../steps/dcsr/label-step.ts";
import { passageSentences } from "../../steps/dcsr/sentences.ts";
import { DCSR_SPLIT_RULE } from "../../steps/dcsr/splitter.ts";
import type { TurnRow } from "../../steps/data/schemas.ts";

const FIXTURES = new URL("./fixtures/", import.meta.url).pathname;
const TEXT = "The Harbour Guild met every week by the river in the old town. The guild was founded by Tojio Bristas in the spring of that year. It built a stone lighthouse on the northern cliffs in the year of the great storm. Its members raced boats on the bay every summer since then.";
const gold = (pid: string, text = TEXT): GoldPassage => ({ pid, text, sentences: passageSentences({ id: pid, title: null, text }, DCSR_SPLIT_RULE) });
const passages = new Map([["p1", gold("p1")]]);

function turn(qid: string, answer: string | null, goldIds: string[] = ["p1"], split = "train"): TurnRow {
  return { dataset: "qrecc", split, conversation_id: qid.split("_")[0]!, turn: 1, qid, question: "q", rewrite: null, answer, history: [], gold_passage_ids: goldIds, source_domain: null, question_type: null, topic: null, topic_section: null };
}

test("labels: 1 the positives, 2 other answer sentences and every neighbour of an answer sentence, 0 the rest", () => {
  assert.deepEqual(sentenceLabels(6, [2], []), [0, 2, 1, 2, 0, 0]);
  assert.deepEqual(sentenceLabels(6, [0], [4]), [1, 2, 0, 2, 2, 2]);
  assert.deepEqual(sentenceLabels(3, [1, 2], [1]), [2, 1, 1]);
  assert.deepEqual(squadTokens("The Boat-race, on a bay!"), ["boat", "race", "on", "bay"]);
  assert.equal(tokenF1("raced boats on the bay", "a boat race on the bay"), 2 * (2 / 4) * (2 / 4) / (2 / 4 + 2 / 4));
  assert.equal(tokenF1("", "x"), 0);
});

test("TopiOCQA: the sentence overlapping the Rationale, else the answer's best F1 (raw JSONL with padded and empty rationales)", () => {
  const raw = RAW_READERS.topiocqa!(join(FIXTURES, "topiocqa"), "train");
  assert.deepEqual([...raw.keys()], ["1_1", "1_2", "2_1"]);
  const turns = [turn("1_1", "Tojio Bristas"), turn("1_2", "by the river"), turn("2_1", "its yearly boat race on the bay"), turn("3_1", "no gold here", [])];
  const { rows, report } = labelTurns("topiocqa", "train", turns, passages, raw);
  assert.deepEqual(rows.map((r) => [r.qid, r.positive, r.labels, r.method]), [
    ["1_1", 1, [2, 1, 2, 0], "span"],
    ["1_2", 0, [1, 2, 0, 0], "answer-f1"],
    ["2_1", 3, [0, 0, 2, 1], "answer-f1"],
  ]);
  assert.deepEqual(report.located, { span: 1, "answer-f1": 2 });
  assert.equal(report.withGold, 3);
  assert.equal(report.notLocated, 0);
});

test("OR-QuAC: answer_start checked against the answer text, else the sentence containing the answer; CANNOTANSWER has none", () => {
  const raw = RAW_READERS.orquac!(join(FIXTURES, "orquac"), "train");
  assert.deepEqual(raw.get("C_abc_1_q#0"), { offset: 139, answer: "a stone lighthouse" });
  const turns = ["C_abc_1_q#0", "C_abc_1_q#1", "C_abc_1_q#2"].map((q) => turn(q, "ignored: the raw file's answer wins"));
  const { rows, report } = labelTurns("orquac", "train", turns, passages, raw);
  assert.deepEqual(rows.map((r) => [r.qid, r.positive, r.labels, r.method]), [
    ["C_abc_1_q#0", 2, [0, 2, 1, 2], "offset"],
    ["C_abc_1_q#1", 2, [0, 2, 1, 2], "answer-text"],
  ]);
  assert.deepEqual(report.notLocatedExamples, ["C_abc_1_q#2"]);
  assert.throws(() => RAW_READERS.orquac!(join(FIXTURES, "topiocqa"), "train"), /no train\.txt or orquac-train\.txt for orquac train/);
});

test("QReCC: the best token-F1 sentence over every gold passage; NQ: every sentence that contains the answer is a positive", () => {
  const other = gold("p2", "A different page about the harbour says the guild built a stone lighthouse there. Nothing else is known about the northern cliffs at all.");
  const both = new Map([...passages, ["p2", other]]);
  const q = labelTurns("qrecc", "train", [turn("7_1", "The guild built a stone lighthouse.", ["p1", "p2"])], both, undefined);
  assert.deepEqual(q.rows.map((r) => [r.pid, r.positive, r.method]), [["p2", 0, "answer-f1"]]);
  const twice = gold("p3", "The guild raced boats on the bay every summer of that year. Every winter the guild raced boats again on the frozen bay nearby. Nobody remembers who won any of those races in the end.");
  const nq = locateAnswerSentence([twice], { answer: "raced boats" }, ["answer-text"]);
  assert.deepEqual(nq, { pid: "p3", positive: 0, labels: [1, 1, 2], method: "answer-text" });
  assert.equal(locateAnswerSentence([twice], { answer: "CANNOTANSWER" }, ["answer-text", "answer-f1"]), undefined);
});

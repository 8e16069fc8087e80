import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { InputError } from "../../../pipeline/engine/errors.ts";
import { parseOrquacBlock, parseOrquacTurns, splitOrquacQid } from "../../../steps/data/formats/orquac.ts";
import { loadRecords } from "../../../steps/data/formats/records.ts";
import { parseTopiocqaSegment, parseTopiocqaTurns, topiocqaDocumentOf } from "../../../steps/data/formats/topiocqa.ts";

const FIX = join(import.meta.dirname, "fixtures");

test("TopiOCQA all_history: question split on [SEP], history pairs, gold by (title, text), topic from title", () => {
  const turns = parseTopiocqaTurns(loadRecords(join(FIX, "topiocqa", "train.json")), "train");
  assert.equal(turns.length, 3);
  const t3 = turns[2]!;
  assert.deepEqual(t3.row, {
    dataset: "topiocqa",
    split: "train",
    conversation_id: "1",
    turn: 3,
    qid: "1_3",
    question: "what is that city",
    rewrite: null,
    answer: "a city in Argentina",
    history: [
      { question: "who is messi", answer: "an argentine footballer" },
      { question: "where was he born", answer: "Rosario" },
    ],
    gold_passage_ids: [],
    source_domain: null,
    question_type: null,
    topic: "Rosario",
    topic_section: "Rosario",
  });
  assert.deepEqual(t3.goldRefs, [{ title: "Rosario [SEP] Rosario", text: "Rosario is a city in Argentina." }]);
  assert.equal(turns[0]!.row.topic, "Lionel Messi");
  assert.equal(turns[0]!.row.topic_section, "Early life");
});

test("TopiOCQA raw JSONL turns: Topic, Context, Gold_passage id", () => {
  const turns = parseTopiocqaTurns(loadRecords(join(FIX, "topiocqa", "topiocqa_valid.jsonl")), "dev");
  assert.deepEqual(
    turns.map((t) => [t.row.qid, t.row.topic, t.row.topic_section, t.row.gold_passage_ids, t.row.history.length, t.at.line]),
    [
      ["5_1", "Dune", "Dune", ["4"], 0, 1],
      ["5_2", "Dune", "Author", ["99"], 1, 2],
    ],
  );
});

test("TopiOCQA segment rows and title convention", () => {
  assert.deepEqual(parseTopiocqaSegment(["7", "text", "Doc [SEP] Sec"], { file: "w.tsv", line: 8 }), { id: "7", text: "text", title: "Doc [SEP] Sec" });
  assert.equal(topiocqaDocumentOf("Doc [SEP] Sec [SEP] Sub"), "Doc");
  assert.equal(topiocqaDocumentOf("Plain"), "Plain");
  assert.throws(() => parseTopiocqaSegment(["7", "text"], { file: "w.tsv", line: 8 }), (e: unknown) => e instanceof InputError && /w\.tsv:8: expected 3/.test(e.message));
});

test("OR-QuAC turns: conversation and 1-based turn from the qid, answers from {text}", () => {
  const turns = parseOrquacTurns(loadRecords(join(FIX, "orquac", "train.txt")), "train");
  assert.deepEqual(turns[1]!.row, {
    dataset: "orquac",
    split: "train",
    conversation_id: "C_abc",
    turn: 2,
    qid: "C_abc_q#1",
    question: "why",
    rewrite: "why did the band split in 1983",
    answer: "CANNOTANSWER",
    history: [{ question: "what happened in 1983", answer: "they split" }],
    gold_passage_ids: [],
    source_domain: null,
    question_type: null,
    topic: null,
    topic_section: null,
  });
  assert.deepEqual(splitOrquacQid("C_x_y_q#10"), { conversation: "C_x_y", turn: 11 });
  assert.equal(splitOrquacQid("C_x"), undefined);
});

test("OR-QuAC block rows and errors", () => {
  assert.deepEqual(parseOrquacBlock({ id: "C_abc@0", title: "T", text: "x" }, { file: "b.txt", line: 1 }), { id: "C_abc@0", title: "T", text: "x" });
  assert.throws(() => parseOrquacBlock({ id: "C_abc@0", title: "T" }, { file: "b.txt", line: 9 }), (e: unknown) => e instanceof InputError && e.line === 9 && e.field === "text");
  assert.throws(() => parseOrquacTurns([{ value: { qid: "bad", question: "q", history: [] }, file: "t.txt", line: 3 }], "train"), (e: unknown) => e instanceof InputError && e.field === "qid" && e.line === 3);
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../../../pipeline/engine/errors.ts";
import { parseQreccPassage, parseQreccQrels, parseQreccTurns, parseQuestionTypeLabels, qreccDocumentOf } from "../../../steps/data/formats/qrecc.ts";
import { loadRecords, readJsonFile } from "../../../steps/data/formats/records.ts";
import { tempDir } from "../../tmp.ts";

const FIX = join(import.meta.dirname, "fixtures", "qrecc");
const dir = tempDir("cspipe-qrecc-");

test("SCAI shape: ids, rewrite/answer from Truth_*, gold from Truth_passages, history from earlier turns, sorted", () => {
  const turns = parseQreccTurns(loadRecords(join(FIX, "scai-qrecc21-train.json")), "train");
  assert.equal(turns.length, 10);
  assert.deepEqual(
    turns.map((t) => t.row.qid),
    ["1_1", "1_2", "1_3", "2_1", "2_2", "3_1", "3_2", "4_1", "5_1", "5_2"],
  );
  const t13 = turns[2]!.row;
  assert.deepEqual(t13, {
    dataset: "qrecc",
    split: "train",
    conversation_id: "1",
    turn: 3,
    qid: "1_3",
    question: "where was he born",
    rewrite: "where was frank herbert born",
    answer: "Tacoma",
    history: [
      { question: "who wrote dune", answer: "Frank Herbert" },
      { question: "when was it published", answer: "1965" },
    ],
    gold_passage_ids: ["http://b.com/herbert_p0"],
    source_domain: "nq",
    question_type: null,
    topic: null,
    topic_section: null,
  });
  // {"": ...} style empty passage ids are dropped; the out-of-order record still gets turn 1's history
  const t52 = turns[9]!.row;
  assert.deepEqual(t52.gold_passage_ids, []);
  assert.deepEqual(t52.history, [{ question: "name a moon", answer: "" }]);
  assert.equal(turns[9]!.at.line, 10);
});

test("original shape: Rewrite/Answer, history from the earlier turns (Context holds rewrites)", () => {
  const turns = parseQreccTurns(loadRecords(join(FIX, "qrecc_test.json")), "test");
  assert.deepEqual(
    turns.map((t) => [t.row.qid, t.row.rewrite, t.row.answer, t.row.history.length, t.row.source_domain]),
    [
      ["10_1", "what is a qubit", "a unit of quantum information", 0, "trec"],
      ["10_2", "how is a qubit measured", "in a basis", 1, "trec"],
      ["10_3", "thanks", "", 2, "trec"],
      ["11_1", "capital of peru", "Lima", 0, "nq"],
      ["11_2", "largest lake in africa", "Lake Victoria", 1, "nq"],
    ],
  );
  assert.deepEqual(turns[2]!.row.history, [
    { question: "what is a qubit", answer: "a unit of quantum information" },
    { question: "how is it measured", answer: "in a basis" },
  ]);
  // pretty-printed array: element 2 starts on line 12
  assert.equal(turns[1]!.at.line, 12);
});

test('qrels: {"": 1} means no gold; judgements sorted per qid', () => {
  const file = join(FIX, "qrecc_test_qrels.json");
  const { qrels, gold } = parseQreccQrels(readJsonFile(file).value, file);
  assert.equal(qrels.length, 5);
  assert.deepEqual(gold.get("10_3"), []);
  assert.deepEqual(gold.get("10_2"), ["http://f.com/qubit_p1", "http://f.com/qubit_p2"]);
  assert.equal(gold.size, 5);
});

test("labels file: domains and types; a qid under two types is an error", () => {
  const file = join(FIX, "test_question_types.json");
  const labels = parseQuestionTypeLabels(readJsonFile(file).value, file);
  assert.equal(labels.domain.get("11_2"), "nq");
  assert.equal(labels.type.get("10_2"), "switch");
  assert.equal(labels.type.size, 4);
  assert.throws(() => parseQuestionTypeLabels({ first: ["1_1"], switch: ["1_1"] }, "l.json"), /both 'first' and 'switch'/);
  assert.throws(() => parseQuestionTypeLabels({ sometimes: [] }, "l.json"), /unknown label 'sometimes'/);
});

test("collection line and document of a passage id", () => {
  assert.deepEqual(parseQreccPassage({ id: "http://a.com/x_p12", contents: "hi" }, { file: "c.jsonl", line: 4 }), { id: "http://a.com/x_p12", title: null, text: "hi" });
  assert.equal(qreccDocumentOf("http://a.com/x_p12"), "http://a.com/x");
  assert.equal(qreccDocumentOf("http://a.com/x_p12_p3"), "http://a.com/x_p12");
  assert.equal(qreccDocumentOf("no-suffix"), "no-suffix");
  assert.throws(
    () => parseQreccPassage({ id: "x" }, { file: "c.jsonl", line: 4 }),
    (e: unknown) => e instanceof InputError && e.line === 4 && e.field === "contents" && /c\.jsonl:4: field 'contents': missing field/.test(e.message),
  );
});

test("missing field in a JSON array names the element's line", () => {
  const f = join(dir, "bad.json");
  writeFileSync(f, '[\n  {"Conversation_no": 1, "Turn_no": 1, "Question": "a"},\n  {"Conversation_no": 1,\n   "Turn_no": 2}\n]\n');
  assert.throws(
    () => parseQreccTurns(loadRecords(f), "train"),
    (e: unknown) => e instanceof InputError && e.file === f && e.line === 3 && e.field === "Question",
  );
});

test("malformed JSON array names the line of the syntax error", () => {
  const f = join(dir, "broken.json");
  writeFileSync(f, '[\n  {"a": 1},\n  {"a": 2,,}\n]\n');
  assert.throws(
    () => loadRecords(f),
    (e: unknown) => e instanceof InputError && e.line === 3,
  );
});

test("duplicate turn and bad Context are errors with line numbers", () => {
  const f = join(dir, "dup.json");
  writeFileSync(f, '[{"Conversation_no": 1, "Turn_no": 1, "Question": "a"},\n{"Conversation_no": 1, "Turn_no": 1, "Question": "b"}]');
  assert.throws(() => parseQreccTurns(loadRecords(f), "train"), (e: unknown) => e instanceof InputError && e.line === 2 && /duplicate turn 1_1/.test(e.message));
  const g = join(dir, "ctx.json");
  writeFileSync(g, '[{"Conversation_no": 1, "Turn_no": 2, "Question": "a", "Context": ["q1"]}]');
  assert.throws(() => parseQreccTurns(loadRecords(g), "train"), (e: unknown) => e instanceof InputError && e.field === "Context");
});

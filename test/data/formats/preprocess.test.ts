import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parquetReadObjects } from "hyparquet";
import { InputError } from "../../../pipeline/engine/errors.ts";
import { preprocessDataset, preprocessorFor } from "../../../steps/data/preprocess/registry.ts";
import type { PassageRow, QrelRow, TurnRow } from "../../../steps/data/schemas.ts";
import { readParquetRows } from "../../../steps/lib/parquet.ts";
import { tempDir } from "../../tmp.ts";

const FIX = join(import.meta.dirname, "fixtures");
const q = (f: string) => join(FIX, "qrecc", f);

async function rowsOf<T>(file: string): Promise<T[]> {
  const out: T[] = [];
  for await (const r of readParquetRows<T>(file)) out.push(r);
  return out;
}

async function hyparquetRows(file: string): Promise<unknown[]> {
  const b = readFileSync(file);
  return parquetReadObjects({ file: b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer });
}

const qreccInputs = (outDir: string) => ({
  turnsFiles: { train: q("scai-qrecc21-train.json"), test: q("qrecc_test.json") },
  collectionFiles: [q("passages.jsonl")],
  qrelsFiles: { test: q("qrecc_test_qrels.json") },
  labelsFile: q("test_question_types.json"),
  outDir,
});

test("QReCC: turns/passages/qrels tables, computed types, label agreement, gold-only train, warnings", async () => {
  const outDir = tempDir("cspipe-pre-qrecc-");
  const progress: number[] = [];
  const res = await preprocessDataset("qrecc", { ...qreccInputs(outDir), params: { devConversations: 0 }, onProgress: (d) => progress.push(d) });
  assert.deepEqual(res.counts, { dev_conversations: 0, train_turns_dropped_no_gold: 3, turns_train: 7, turns_test: 5, passages: 10, qrels: 12 });
  assert.deepEqual(res.warnings, [{ code: "gold-not-in-collection", message: "gold passage id not found in the collection", count: 1, examples: ["10_2: http://f.com/qubit_p2"] }]);
  // the labels are the breakdown of test; the computed types (shared passage ids) agree on all four
  assert.deepEqual(res.questionTypes.agreement?.confusion, { first: { first: 2 }, switch: { switch: 2 } });
  assert.deepEqual(res.questionTypes.agreement?.perClass, {
    first: { labelled: 2, computed: 2, both: 2, agreement: 1, precision: 1 },
    switch: { labelled: 2, computed: 2, both: 2, agreement: 1, precision: 1 },
  });
  assert.equal(res.questionTypes.breakdown, "labels");
  assert.deepEqual(progress, [10]);

  const turns = await rowsOf<TurnRow>(res.files.turns);
  assert.deepEqual(
    turns.map((t) => [t.split, t.qid, t.question_type]),
    [
      ["test", "10_1", "first"],
      ["test", "10_2", "switch"],
      ["test", "10_3", null],
      ["test", "11_1", "first"],
      ["test", "11_2", "switch"],
      ["train", "1_1", "first"],
      ["train", "1_2", "switch"],
      ["train", "1_3", "switch"],
      ["train", "2_2", null],
      ["train", "3_1", null],
      ["train", "3_2", null],
      ["train", "4_1", "first"],
    ],
  );
  assert.deepEqual(turns[1]!.gold_passage_ids, ["http://f.com/qubit_p1", "http://f.com/qubit_p2"]);
  assert.deepEqual(await hyparquetRows(res.files.turns), turns);

  const passages = await rowsOf<PassageRow>(res.files.passages);
  assert.equal(passages.length, 10);
  assert.deepEqual(passages[0], { id: "http://a.com/dune_p0", title: null, text: "Dune is a 1965 novel by Frank Herbert." });
  assert.deepEqual(await hyparquetRows(res.files.passages), passages);

  const qrels = await rowsOf<QrelRow>(res.files.qrels);
  assert.equal(qrels.length, 12);
  assert.deepEqual(qrels[0], { split: "test", qid: "10_1", pid: "http://f.com/qubit_p0", relevance: 1 });
  assert.deepEqual(qrels[5], { split: "train", qid: "1_1", pid: "http://a.com/dune_p0", relevance: 1 });
  assert.deepEqual(await hyparquetRows(res.files.qrels), qrels);
});

test("QReCC: dev split (clamped to 1 of 5 conversations) and labels override", async () => {
  const outDir = tempDir("cspipe-pre-qrecc-");
  const res = await preprocessDataset("qrecc", { ...qreccInputs(outDir), params: { labelsMode: "override" } });
  assert.equal(res.counts["dev_conversations"], 1);
  assert.equal(res.counts["turns_dev"], 2);
  assert.equal(res.counts["turns_train"], 5);
  const turns = await rowsOf<TurnRow>(res.files.turns);
  assert.deepEqual(turns.filter((t) => t.split === "dev").map((t) => t.qid), ["3_1", "3_2"]);
  assert.deepEqual(turns.filter((t) => t.split === "test").map((t) => t.question_type), ["first", "switch", null, "first", "switch"]);
});

test("QReCC strict: a gold id missing from the collection names the turn's file and line", async () => {
  const outDir = tempDir("cspipe-pre-qrecc-");
  await assert.rejects(preprocessDataset("qrecc", { ...qreccInputs(outDir), params: { devConversations: 0, strict: true } }), (e: unknown) => {
    assert.ok(e instanceof InputError);
    assert.equal(e.file, q("qrecc_test.json"));
    assert.equal(e.line, 12);
    assert.match(e.message, /10_2: gold passage 'http:\/\/f\.com\/qubit_p2' is not in the collection/);
    return true;
  });
});

test("duplicate passage id is an InputError naming both lines, and no passages file is left", async () => {
  const outDir = tempDir("cspipe-pre-dup-");
  const coll = join(outDir, "dup.jsonl");
  writeFileSync(coll, ['{"id": "a_p0", "contents": "x"}', '{"id": "b_p0", "contents": "y"}', "", '{"id": "a_p0", "contents": "z"}'].join("\n"));
  await assert.rejects(
    preprocessDataset("qrecc", { turnsFiles: { test: q("qrecc_test.json") }, collectionFiles: [coll], outDir: join(outDir, "out") }),
    (e: unknown) => e instanceof InputError && e.file === coll && e.line === 4 && /duplicate passage id 'a_p0' \(first at .*dup\.jsonl:1\)/.test(e.message),
  );
  assert.equal(existsSync(join(outDir, "out", "passages.parquet")), false);
});

test("malformed collection line names file and line", async () => {
  const outDir = tempDir("cspipe-pre-bad-");
  const coll = join(outDir, "bad.jsonl");
  writeFileSync(coll, '{"id": "a_p0", "contents": "x"}\n{"id": "b_p0", "contents": \n');
  await assert.rejects(
    preprocessDataset("qrecc", { turnsFiles: { test: q("qrecc_test.json") }, collectionFiles: [coll], outDir: join(outDir, "out") }),
    (e: unknown) => e instanceof InputError && e.file === coll && e.line === 2,
  );
});

test("TopiOCQA: TSV header skipped, quoted field kept, gold resolved by title+text, topic types", async () => {
  const outDir = tempDir("cspipe-pre-topi-");
  const res = await preprocessDataset("topiocqa", {
    turnsFiles: { train: join(FIX, "topiocqa", "train.json"), dev: join(FIX, "topiocqa", "topiocqa_valid.jsonl") },
    collectionFiles: [join(FIX, "topiocqa", "full_wiki_segments.tsv")],
    outDir,
  });
  assert.deepEqual(res.counts, { turns_dev: 2, turns_train: 3, passages: 4, qrels: 5 });
  assert.deepEqual(res.warnings, [{ code: "gold-not-in-collection", message: "gold passage id not found in the collection", count: 1, examples: ["5_2: 99"] }]);
  const turns = await rowsOf<TurnRow>(res.files.turns);
  assert.deepEqual(
    turns.map((t) => [t.split, t.qid, t.gold_passage_ids, t.question_type]),
    [
      ["dev", "5_1", ["4"], "first"],
      ["dev", "5_2", ["99"], "topic-continues"],
      ["train", "1_1", ["1"], "first"],
      ["train", "1_2", ["1"], "topic-continues"],
      ["train", "1_3", ["2"], "topic-switch"],
    ],
  );
  const passages = await rowsOf<PassageRow>(res.files.passages);
  assert.deepEqual(passages[2], { id: "3", text: 'He said "hi"\tand left.', title: "Quote test [SEP] Q" });
  assert.deepEqual(await hyparquetRows(res.files.passages), passages);
});

test("OR-QuAC: gold from qrels.txt, types, blocks with titles", async () => {
  const outDir = tempDir("cspipe-pre-orquac-");
  const o = (f: string) => join(FIX, "orquac", f);
  const res = await preprocessDataset("orquac", {
    turnsFiles: { train: o("train.txt"), dev: o("dev.txt") },
    collectionFiles: [o("all_blocks.txt")],
    qrelsFiles: { all: o("qrels.txt") },
    outDir,
    params: { strict: true },
  });
  assert.deepEqual(res.counts, { turns_dev: 1, turns_train: 2, passages: 3, qrels: 3 });
  assert.deepEqual(res.warnings, []);
  const turns = await rowsOf<TurnRow>(res.files.turns);
  assert.deepEqual(
    turns.map((t) => [t.qid, t.conversation_id, t.turn, t.gold_passage_ids, t.question_type]),
    [
      ["C_def_q#0", "C_def", 1, ["C_def@0"], "first"],
      ["C_abc_q#0", "C_abc", 1, ["C_abc@0"], "first"],
      ["C_abc_q#1", "C_abc", 2, ["C_abc@0"], "no-switch"],
    ],
  );
  assert.deepEqual((await rowsOf<PassageRow>(res.files.passages))[1], { id: "C_def@0", title: "The Singer", text: "She was born in Paris." });
});

test("registry: unknown dataset and unknown split", async () => {
  assert.throws(() => preprocessorFor("msmarco"), /no preprocessor for dataset 'msmarco' \(known: orquac, qrecc, topiocqa\)/);
  await assert.rejects(preprocessDataset("qrecc", { turnsFiles: { validation: q("qrecc_test.json") }, collectionFiles: [], outDir: tempDir("cspipe-pre-split-") }), /unknown split 'validation'/);
});

test("QReCC: a labels file touches only its split (qids repeat across splits)", async () => {
  const outDir = tempDir("cspipe-pre-qrecc-");
  const labels = join(outDir, "labels.json");
  // "1_1" exists only in train here, as test qids would in the real data
  writeFileSync(labels, JSON.stringify({ trec: ["1_1"], nq: [], quac: [], first: [], switch: ["1_1"], "no-switch": [] }));
  const res = await preprocessDataset("qrecc", { ...qreccInputs(outDir), labelsFile: labels, params: { devConversations: 0, labelsMode: "override" } });
  assert.equal(res.counts["label_domain_conflicts"], undefined);
  // test rows: computed types 10_1 first, 10_2 switch, 11_1 first, 11_2 switch, none labelled
  assert.deepEqual(res.questionTypes.agreement?.confusion, { none: { first: 2, switch: 2 } });
  assert.equal(res.questionTypes.agreement?.agreement, 0);
  const turns = await rowsOf<TurnRow>(res.files.turns);
  const t11 = turns.find((t) => t.qid === "1_1")!;
  assert.deepEqual([t11.split, t11.source_domain, t11.question_type], ["train", "nq", "first"]);
  assert.deepEqual(turns.filter((t) => t.split === "test").map((t) => t.question_type), [null, null, null, null, null]);
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parquetMetadata, parquetReadObjects } from "hyparquet";
import { InputError } from "../../pipeline/engine/errors.ts";
import { parquetLayout, readParquetBatches, readParquetRows, readParquetTable, rowsToRecordBatch, writeParquetFile } from "../../steps/lib/parquet.ts";
import type { TurnRow } from "../../steps/data/schemas.ts";
import { passagesSchema, turnsSchema } from "../../steps/data/schemas.ts";
import { tempDir } from "../tmp.ts";

const dir = tempDir("cspipe-parquet-");

function turn(i: number): TurnRow {
  return {
    dataset: "qrecc",
    split: "test",
    conversation_id: String(1 + Math.floor(i / 3)),
    turn: 1 + (i % 3),
    qid: `${1 + Math.floor(i / 3)}_${1 + (i % 3)}`,
    question: `question ${i} “quoted” ü`,
    rewrite: i % 2 === 0 ? null : `rewrite ${i}`,
    answer: i % 4 === 0 ? null : `answer ${i}`,
    history: Array.from({ length: i % 3 }, (_, k) => ({ question: `q${k}`, answer: `a${k}` })),
    gold_passage_ids: i % 5 === 0 ? [] : [`http://x.com/${i}_p0`, `http://x.com/${i}_p1`],
    source_domain: i % 2 === 0 ? "nq" : null,
    question_type: i % 3 === 0 ? "first" : null,
    topic: null,
    topic_section: null,
  };
}

function arrayBufferOf(file: string): ArrayBuffer {
  const b = readFileSync(file);
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
}

test("turns round-trip: streamed rows, row groups of N, same rows back from parquet-wasm and hyparquet", async () => {
  const rows = Array.from({ length: 10 }, (_, i) => turn(i));
  async function* source() {
    for (const r of rows) yield r;
  }
  const f = join(dir, "turns.parquet");
  const res = await writeParquetFile(f, turnsSchema(), source(), { batchRows: 3, rowGroupRows: 4 });
  assert.deepEqual(res, { rows: 10, batches: 4 });
  assert.equal(existsSync(`${f}.partial`), false);
  assert.deepEqual(await parquetLayout(f), { rowGroups: [4, 4, 2], rows: 10 });

  const back: TurnRow[] = [];
  for await (const r of readParquetRows<TurnRow>(f, { batchRows: 3 })) back.push(r);
  assert.deepEqual(back, rows);

  const table = readParquetTable(f);
  assert.equal(table.numRows, 10);
  assert.equal(String(table.schema.fields.find((x) => x.name === "history")!.type), String(turnsSchema().fields.find((x) => x.name === "history")!.type));
  assert.equal(table.schema.fields.find((x) => x.name === "rewrite")!.nullable, true);
  assert.equal(table.schema.fields.find((x) => x.name === "qid")!.nullable, false);

  const hy = (await parquetReadObjects({ file: arrayBufferOf(f) })) as Record<string, unknown>[];
  assert.deepEqual(hy, rows);
  assert.equal(parquetMetadata(arrayBufferOf(f)).row_groups.length, 3);
});

test("record batches and rows can be mixed; a mismatching batch schema is rejected and leaves no file", async () => {
  const f = join(dir, "mixed.parquet");
  const batch = rowsToRecordBatch(passagesSchema(), [{ id: "b1", title: null, text: "x" }]);
  await writeParquetFile(f, passagesSchema(), [{ id: "a", title: "T", text: "t" }, batch, { id: "c", title: null, text: "u" }]);
  assert.deepEqual(
    (await parquetReadObjects({ file: arrayBufferOf(f) })) as unknown[],
    [
      { id: "a", title: "T", text: "t" },
      { id: "b1", title: null, text: "x" },
      { id: "c", title: null, text: "u" },
    ],
  );
  const bad = join(dir, "bad.parquet");
  const wrong = rowsToRecordBatch(turnsSchema(), [turn(1)]);
  await assert.rejects(writeParquetFile(bad, passagesSchema(), [wrong]));
  assert.equal(existsSync(bad), false);
  assert.equal(existsSync(`${bad}.partial`), false);
});

test("a failing source removes the partial file", async () => {
  const f = join(dir, "fail.parquet");
  async function* source() {
    yield { id: "a", title: null, text: "t" };
    throw new Error("boom");
  }
  await assert.rejects(writeParquetFile(f, passagesSchema(), source(), { batchRows: 1 }), /boom/);
  assert.equal(existsSync(f), false);
  assert.equal(existsSync(`${f}.partial`), false);
});

test("null in a non-nullable field is rejected", () => {
  assert.throws(() => rowsToRecordBatch(passagesSchema(), [{ id: "a", title: null, text: null }]), /'text' is null/);
});

test("an empty source writes a zero-row file that keeps the schema", async () => {
  const f = join(dir, "empty.parquet");
  assert.deepEqual(await writeParquetFile(f, passagesSchema(), []), { rows: 0, batches: 0 });
  const t = readParquetTable(f);
  assert.equal(t.numRows, 0);
  assert.deepEqual(t.schema.fields.map((x) => x.name), ["id", "title", "text"]);
});

test("streaming read of selected row groups and columns", async () => {
  const f = join(dir, "groups.parquet");
  const rows = Array.from({ length: 7 }, (_, i) => ({ id: `p${i}`, title: null, text: `t${i}` }));
  await writeParquetFile(f, passagesSchema(), rows, { rowGroupRows: 3 });
  const ids: string[] = [];
  for await (const b of readParquetBatches(f, { rowGroups: [1, 2], columns: ["id"] })) {
    assert.deepEqual(b.schema.fields.map((x) => x.name), ["id"]);
    for (const v of b.getChild("id")!) ids.push(v as string);
  }
  assert.deepEqual(ids, ["p3", "p4", "p5", "p6"]);
});

test("a non-Parquet file is an InputError", async () => {
  const f = join(dir, "junk.parquet");
  writeFileSync(f, "not parquet at all");
  assert.throws(() => readParquetTable(f), InputError);
  await assert.rejects(parquetLayout(f), InputError);
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { asFraction, loadPaperNumbers, paperTable, paperValue, validatePaperNumbers } from "../../steps/report/paper-numbers.ts";
import { InputError } from "../../pipeline/engine/errors.ts";

test("a handful of transcribed numbers match the papers", () => {
  // final Table 2
  assert.equal(paperValue("final-table2", "bm25-history", "qrecc-mrr"), 0.467);
  assert.equal(paperValue("final-table2", "bm25-history-without-q", "qrecc-r10"), 58.4);
  assert.equal(paperValue("final-table2", "dpr-ihn", "topiocqa-r5"), 61.5);
  assert.equal(paperValue("final-table2", "t5qr-bm25-adlakha", "topiocqa-r20"), 31.9);
  assert.equal(paperValue("final-table2", "gpt2qr-bm25", "topiocqa-r100"), null);
  // final Tables 3-6
  assert.equal(paperValue("final-table3", "dpr-ihn", "orquac-mrr"), 0.633);
  assert.equal(paperValue("final-table4", "switch/dpr-shortcut-ibn", "r10"), 26.0);
  assert.equal(paperValue("final-table4", "first/dpr-shortcut-ibn", "r100"), null);
  assert.equal(paperValue("final-table5", "dpr-ihn/fid", "topiocqa-f1"), 54.6);
  assert.equal(paperValue("final-table6", "dpr-nq-rewrite", "r100"), 85.6);
  // early Table 1 with the question-type breakdown
  assert.equal(paperValue("early-table1", "dpr-model-negs", "switch-r10"), 63.0);
  assert.equal(paperValue("early-table1", "bm25", "no-switch-mrr"), 0.78);
  assert.equal(paperValue("early-table1", "bm25-without-q", "all-r100"), 63.9);
  assert.equal(paperValue("early-table1", "dpr-without-q", "first-r10"), null);
  assert.equal(paperValue("early-table3", "bm25-first-q", "orquac-r5"), 30.6);
  assert.equal(paperValue("final-table1", "qrecc", "q-test"), 16451);
});

test("numbers agree with the differences the papers' text states", () => {
  const t2 = (row: string, col: string): number => paperValue("final-table2", row, col)!;
  const round1 = (x: number): number => Math.round(x * 10) / 10;
  assert.equal(round1(t2("bm25-history", "qrecc-r10") - t2("bm25-history-without-q", "qrecc-r10")), 6.7); // §3.1
  assert.equal(round1(t2("dpr-ihn", "qrecc-r10") - t2("conqrr-rl-de", "qrecc-r10")), 9.7); // §6.1
  assert.equal(round1(t2("dpr-ihn", "topiocqa-r5") - t2("dpr-adlakha", "topiocqa-r5")), 12.4); // §6.1
  const t4 = (row: string): number => paperValue("final-table4", row, "r10")!;
  assert.equal(round1(t4("first/dpr-ihn") - t4("first/dpr-ibn")), 17.6); // §6.2
  assert.equal(round1(t4("switch/dpr-ihn") - t4("switch/dpr-ibn")), 10.9);
  const e1 = (row: string, col: string): number => paperValue("early-table1", row, col)!;
  assert.equal(round1(e1("dpr-model-negs", "first-r10") - e1("dpr", "first-r10")), 15.2);
  assert.equal(round1(e1("dpr-model-negs", "switch-r10") - e1("dpr", "switch-r10")), 12.7);
});

test("structure is complete: every row has every column of its table; ids unique", () => {
  const doc = loadPaperNumbers();
  assert.deepEqual(doc.tables.map((t) => t.id), ["final-table1", "final-table2", "final-table3", "final-table4", "final-table5", "final-table6", "early-table1", "early-table3", "early-table4", "dpr-nq"]);
  assert.deepEqual(doc.figures.map((f) => f.id), ["final-figure2", "final-figure3", "final-figure4"]);
  for (const table of doc.tables) {
    const cols = table.columns.map((c) => c.id).sort();
    for (const row of table.rows) assert.deepEqual(Object.keys(row.values).sort(), cols, `${table.id}/${row.id}`);
  }
  assert.equal(paperTable("final-table2").rows.length, 13);
  assert.equal(paperTable("final-table4").rows.length, 16);
  assert.equal(paperTable("early-table1").rows.length, 9);
  assert.equal(paperTable("early-table1").columns.length, 12);
});

test("validation rejects an incomplete row, naming table and row", () => {
  const doc = structuredClone(loadPaperNumbers());
  delete (doc.tables[1]!.rows[0]!.values as Record<string, number | null>)["qrecc-mrr"];
  assert.throws(() => validatePaperNumbers(doc, "p.json"), (e: unknown) => e instanceof InputError && e.field === "final-table2.bm25-q" && /missing: qrecc-mrr/.test(e.message));
  assert.throws(() => paperValue("final-table2", "nope", "qrecc-mrr"), /has no row 'nope'/);
});

test("percent values convert to fractions exactly", () => {
  assert.equal(asFraction(65.1, "percent"), 0.651);
  assert.equal(asFraction(0.467, "fraction"), 0.467);
});

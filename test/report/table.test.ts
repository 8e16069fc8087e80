import { test } from "node:test";
import assert from "node:assert/strict";
import { combineInputs, formatMeanSd, meanSd, renderTable } from "../../steps/report/table.ts";
import type { Cells, TableSpec } from "../../steps/report/table.ts";
import { tableLayout } from "../../steps/report/table-layout.ts";
import { paperTable } from "../../steps/report/paper-numbers.ts";
import { formatCount, formatNumber, csvField, escapeXml } from "../../steps/report/format.ts";

const K1 = "1".repeat(64);
const K2 = "2".repeat(64);
const spec: TableSpec = {
  id: "t6",
  title: "Hard negatives | QReCC",
  caption: "Tiny.",
  columns: [
    { id: "mrr", band: "QReCC test", header: "MRR", metric: "mrr", format: { kind: "fixed", digits: 3 }, paperColumn: "mrr" },
    { id: "r10", band: "QReCC test", header: "R@10", metric: "recall@10", format: { kind: "percent", digits: 1 }, paperColumn: "r10" },
  ],
  rows: [
    { id: "model", label: "DPR_{i-1}(X_t, C)", paperRow: "model-prev-iteration" },
    { id: "bm25", label: 'BM25, "rewrite"', paperRow: "bm25-rewrite" },
    { id: "new", label: "ours only" },
  ],
};
const cells: Cells = {
  model: { mrr: { value: 0.51649, n: 3, stepKey: K1 }, r10: { value: 0.74849, n: 3, stepKey: K1 } },
  bm25: { mrr: { value: 0.5, n: 3, stepKey: K2 } },
};

test("golden Markdown and CSV: band header with units, paper beside ours, N under the band, typeset labels", () => {
  const r = renderTable(spec, cells, paperTable("final-table6"));
  assert.equal(
    r.markdown,
    [
      "## Hard negatives \\| QReCC",
      "",
      "Tiny.",
      "",
      "| System | QReCC test<br>MRR (fraction) | paper | QReCC test<br>R@10 (%) | paper |",
      "| --- | ---: | ---: | ---: | ---: |",
      "| DPR<sub>i-1</sub>(X<sub>t</sub>, C) | 0.516 | 0.516 | 74.8 | 74.8 |",
      '| BM25, "rewrite" | 0.500 | 0.498 | - | 72.1 |',
      "| ours only | - | - | - | - |",
      "| N | 3 |  | 3 |  |",
      "",
      "N: the number of turns each number averages over (turns of the evaluated split with a gold passage; under a question type, the labelled turns of that type).  ",
      'paper: Table 6 (final version), as printed ("-": the paper gives no number).  ',
      "",
    ].join("\n"),
  );
  const csv = r.csv.split("\n");
  assert.equal(csv[0], "table,row,row_label,band,column,metric,unit,ours,ours_sd,seeds,ours_formatted,paper,paper_formatted,n,status,step_keys");
  assert.equal(csv[1], `t6,model,"DPR_{i-1}(X_t, C)",QReCC test,mrr,mrr,fraction,0.51649,,1,0.516,0.516,0.516,3,value,${K1}`);
  assert.equal(csv[4], 't6,bm25,"BM25, ""rewrite""",QReCC test,r10,recall@10,%,,,0,,72.1,72.1,,none,');
  const json = JSON.parse(r.json) as typeof r.data;
  assert.deepEqual(json.rows[0]!.cells.r10, { status: "value", value: 0.74849, sd: null, seeds: 1, n: 3, formatted: "74.8", stepKeys: [K1], note: null, paper: 74.8, paperFormatted: "74.8" });
  assert.equal(json.schema, "cspipe.table/2");
  assert.equal(json.paperLabel, "Table 6 (final version)");
  assert.equal(renderTable(spec, cells, paperTable("final-table6")).json, r.json, "same input, same bytes");
});

test("seeds: mean ± sample sd (n-1) in the cell's digits, every key kept, summation order fixed by key", () => {
  // 0.50, 0.52, 0.57: mean 0.53, sd sqrt(((-.03)^2 + (-.01)^2 + .04^2) / 2) = sqrt(0.0013) = 0.036056
  const seeds = [
    { value: 0.57, n: 10, stepKey: "c".repeat(64) },
    { value: 0.5, n: 10, stepKey: "a".repeat(64) },
    { value: 0.52, n: 10, stepKey: "b".repeat(64) },
  ];
  const r = renderTable(spec, { model: { r10: seeds, mrr: seeds.slice(0, 1) } });
  const c = r.data.rows[0]!.cells.r10!;
  assert.equal(c.seeds, 3);
  assert.ok(Math.abs(c.value! - 0.53) < 1e-12);
  assert.ok(Math.abs(c.sd! - Math.sqrt(0.0013)) < 1e-12);
  assert.equal(c.formatted, "53.0 ± 3.6");
  assert.deepEqual(c.stepKeys, ["a".repeat(64), "b".repeat(64), "c".repeat(64)]);
  assert.equal(r.data.rows[0]!.cells.mrr!.formatted, "0.570", "one seed: no ±");
  assert.equal(r.data.maxSeeds, 3);
  assert.match(r.markdown, /a ± b: mean and sample standard deviation over training seeds/);
  assert.equal(combineInputs([...seeds].reverse(), "x").value, combineInputs(seeds, "x").value);
  assert.deepEqual(meanSd([2]), { mean: 2, sd: null });
  assert.equal(formatMeanSd(0.41234, 0.0123, { kind: "fixed", digits: 3 }), "0.412 ± 0.012");
  assert.throws(() => combineInputs([seeds[0]!, { ...seeds[1]!, n: 11 }], "cell x/y"), /cell x\/y averages evaluations over different numbers of queries \(10, 11\)/);
});

test("no input and no turns render '-' with a footnote; other gaps have none", () => {
  const r = renderTable(spec, { model: { mrr: { noInput: "X_t \\ {q_t} is empty on a first turn" }, r10: { noTurns: "no turns of type 'first'" } }, bm25: { mrr: { noInput: "X_t \\ {q_t} is empty on a first turn" } } });
  const m = r.data.rows[0]!.cells;
  assert.deepEqual([m.mrr!.status, m.mrr!.formatted, m.mrr!.note], ["no-input", "-", "a"]);
  assert.deepEqual([m.r10!.status, m.r10!.note], ["no-turns", "b"]);
  assert.equal(r.data.rows[1]!.cells.mrr!.note, "a", "one note per distinct text");
  assert.equal(r.data.rows[2]!.cells.mrr!.note, null);
  assert.deepEqual(r.data.notes, [
    { mark: "a", text: "X_t \\ {q_t} is empty on a first turn" },
    { mark: "b", text: "no turns of type 'first'" },
  ]);
  assert.match(r.markdown, /\| DPR<sub>i-1<\/sub>\(X<sub>t<\/sub>, C\) \| -<sup>a<\/sup> \| -<sup>b<\/sup> \|/);
  assert.match(r.markdown, /<sup>a<\/sup> X<sub>t<\/sub> ∖ \{q<sub>t<\/sub>\} is empty on a first turn/);
});

test("N per band: one number when the band agrees, an N column per row when it does not", () => {
  const r = renderTable(spec, { model: { mrr: { value: 0.5, n: 3, stepKey: K1 }, r10: { value: 0.5, n: 3, stepKey: K1 } }, bm25: { mrr: { value: 0.5, n: 5, stepKey: K2 } } });
  const [panel] = tableLayout(r.data);
  assert.equal(panel!.bands[0]!.n, null);
  assert.deepEqual(panel!.bands[0]!.perRowN, { model: [3], bm25: [5], new: [] });
  assert.match(r.markdown, /\| System \| QReCC test<br>MRR \(fraction\) \| QReCC test<br>R@10 \(%\) \| QReCC test<br>N \|/);
  assert.match(r.markdown, /\| ours only \| - \| - \| - \|/);
  assert.doesNotMatch(r.markdown, /^\| N \|/m);
});

test("wide tables split between bands into panels of at most 12 number columns", () => {
  const groups = ["all", "first", "switch", "no-switch"];
  const wide: TableSpec = {
    id: "t1",
    title: "T1",
    caption: "",
    columns: groups.flatMap((g) => ["mrr", "r10", "r100"].map((m) => ({ id: `${g}-${m}`, band: g, header: m, metric: m, format: { kind: "percent" as const, digits: 1 }, paperColumn: `${g}-${m}` }))),
    rows: [{ id: "bm25", label: "BM25", paperRow: "bm25" }],
  };
  const r = renderTable(wide, {}, paperTable("early-table1"));
  assert.deepEqual(tableLayout(r.data).map((p) => p.bands.map((b) => b.label)), [["all", "first"], ["switch", "no-switch"]]);
  assert.deepEqual(tableLayout(renderTable(wide, {}).data).map((p) => p.bands.length), [4], "without paper columns it fits");
  assert.match(r.markdown, /\*Part 1 of 2: all, first\*/);
  assert.match(r.markdown, /\*Part 2 of 2: switch, no-switch\*/);
});

test("bad references are errors naming the table and the fix", () => {
  assert.throws(() => renderTable({ ...spec, rows: [{ id: "x", label: "x", paperRow: "nope" }] }, {}, paperTable("final-table6")), /paper row 'nope'/);
  assert.throws(() => renderTable(spec, { ghost: {} }), /unknown row 'ghost'/);
  assert.throws(() => renderTable(spec, { model: { r100: { value: 1, n: 1, stepKey: K1 } } }), /unknown column 'r100'/);
  assert.throws(() => renderTable(spec, { model: { r10: { value: Number.NaN, n: 1, stepKey: K1 } } }), /is NaN/);
});

test("number formats and escaping", () => {
  assert.equal(formatNumber(0.4666, { kind: "fixed", digits: 3 }), "0.467");
  assert.equal(formatNumber(0.651, { kind: "percent", digits: 1 }), "65.1");
  assert.equal(formatNumber(-0.00001, { kind: "fixed", digits: 2 }), "0.00");
  assert.equal(formatNumber(8209.4, { kind: "integer" }), "8209");
  assert.equal(formatCount(1234567), "1,234,567");
  assert.equal(formatCount(17), "17");
  assert.equal(csvField('a"b'), '"a""b"');
  assert.equal(escapeXml(`<a href="x">&'</a>`), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
});

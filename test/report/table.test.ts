import { test } from "node:test";
import assert from "node:assert/strict";
import { renderTable } from "../../steps/report/table.ts";
import type { TableSpec } from "../../steps/report/table.ts";
import { paperTable } from "../../steps/report/paper-numbers.ts";
import { formatNumber, csvField, escapeXml } from "../../steps/report/format.ts";

const spec: TableSpec = {
  id: "t6",
  title: "Hard negatives | QReCC",
  caption: "Tiny.",
  columns: [
    { id: "mrr", header: "MRR", metric: "mrr", format: { kind: "fixed", digits: 3 }, paperColumn: "mrr" },
    { id: "r10", header: "R@10", metric: "recall@10", format: { kind: "percent", digits: 1 }, paperColumn: "r10" },
  ],
  rows: [
    { id: "model", label: "DPR_{i-1}(X_t, C)", paperRow: "model-prev-iteration" },
    { id: "bm25", label: 'BM25, "rewrite"', paperRow: "bm25-rewrite" },
    { id: "new", label: "ours only" },
  ],
};
const cells = {
  model: { mrr: { value: 0.51649, n: 3, stepKey: "k1" }, r10: { value: 0.74849, n: 3, stepKey: "k1" } },
  bm25: { mrr: { value: 0.5, n: 2, stepKey: "k2" } },
};

test("golden Markdown and CSV for a tiny table with the paper's numbers beside ours", () => {
  const r = renderTable(spec, cells, paperTable("final-table6"));
  assert.equal(
    r.markdown,
    [
      "## Hard negatives \\| QReCC",
      "",
      "Tiny.",
      "",
      "| System | MRR | MRR (paper) | R@10 | R@10 (paper) | N |",
      "| --- | ---: | ---: | ---: | ---: | ---: |",
      "| DPR\\_{i-1}(X\\_t, C) | 0.516 | 0.516 | 74.8 | 74.8 | 3 |",
      '| BM25, "rewrite" | 0.500 | 0.498 | - | 72.1 | 2 |',
      "| ours only | - | - | - | - | - |",
      "",
      "Paper numbers: Table 6 (final version), as printed.",
      "",
      "Provenance (step cache keys):",
      "",
      "- DPR\\_{i-1}(X\\_t, C): `k1`",
      '- BM25, "rewrite": `k2`',
      "",
    ].join("\n"),
  );
  assert.equal(
    r.csv,
    [
      "table,row,row_label,column,metric,ours,ours_formatted,paper,paper_formatted,n,step_key",
      't6,model,"DPR_{i-1}(X_t, C)",mrr,mrr,0.51649,0.516,0.516,0.516,3,k1',
      't6,model,"DPR_{i-1}(X_t, C)",r10,recall@10,0.74849,74.8,74.8,74.8,3,k1',
      't6,bm25,"BM25, ""rewrite""",mrr,mrr,0.5,0.500,0.498,0.498,2,k2',
      't6,bm25,"BM25, ""rewrite""",r10,recall@10,,,72.1,72.1,,',
      "t6,new,ours only,mrr,mrr,,,,,,",
      "t6,new,ours only,r10,recall@10,,,,,,",
      "",
    ].join("\n"),
  );
  const json = JSON.parse(r.json) as typeof r.data;
  assert.deepEqual(json.rows[0]!.cells.r10, { value: 0.74849, formatted: "74.8", n: 3, stepKey: "k1", paper: 74.8, paperFormatted: "74.8" });
  assert.equal(json.paperTable, "final-table6");
  // Deterministic: same input, same bytes.
  assert.equal(renderTable(spec, cells, paperTable("final-table6")).json, r.json);
});

test("without paper numbers there are no paper columns; bad references are errors", () => {
  const r = renderTable(spec, cells);
  assert.match(r.markdown, /^\| System \| MRR \| R@10 \| N \|$/m);
  assert.throws(() => renderTable({ ...spec, rows: [{ id: "x", label: "x", paperRow: "nope" }] }, {}, paperTable("final-table6")), /paper row 'nope'/);
  assert.throws(() => renderTable(spec, { ghost: {} }), /unknown row 'ghost'/);
  assert.throws(() => renderTable(spec, { model: { r100: { value: 1, n: 1, stepKey: "k" } } }), /unknown column 'r100'/);
});

test("number formats and escaping", () => {
  assert.equal(formatNumber(0.4666, { kind: "fixed", digits: 3 }), "0.467");
  assert.equal(formatNumber(0.651, { kind: "percent", digits: 1 }), "65.1");
  assert.equal(formatNumber(-0.00001, { kind: "fixed", digits: 2 }), "0.00");
  assert.equal(formatNumber(8209.4, { kind: "integer" }), "8209");
  assert.equal(csvField('a"b'), '"a""b"');
  assert.equal(escapeXml(`<a href="x">&'</a>`), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { renderReportIndex, type ReportIndexSpec } from "../../steps/report/report-index.ts";
import { renderTable } from "../../steps/report/table.ts";
import { figureData } from "../../steps/report/figure.ts";
import { numberPage } from "../../steps/report/links.ts";
import { parseFindings } from "../../steps/report/findings.ts";

const K = "a".repeat(64);
const table = renderTable(
  { id: "table2", title: "Retrieval <QReCC>", caption: "MRR & recall of X_t", columns: [{ id: "mrr", band: "QReCC test", header: "MRR", metric: "mrr", format: { kind: "fixed", digits: 3 } }], rows: [{ id: "bm25", label: "BM25(X_t, C)" }] },
  { bm25: { mrr: { value: 0.4, n: 12, stepKey: K } } },
).data;
const figure = figureData(
  { id: "figure 2", chart: "bar", title: "Shortcut analysis", caption: "c", yLabel: "R", categories: ["A"], series: [{ name: "s", points: [null] }] },
  [[{ category: "A", ours: { value: 0.5, sd: null, seeds: 1, n: 12, stepKeys: [K], metric: "m", group: null }, paper: null, absent: null }]],
);

const spec: ReportIndexSpec = {
  title: "cspipe report",
  dataset: "mini",
  datasetDescription: "QReCC mini <3 conversations> & TopiOCQA mini",
  tables: [{ data: table, files: { markdown: "tables/table2.md", csv: "tables/table2.csv", json: "tables/table2.json" } }],
  figures: [{ data: figure, files: { svg: "figures/figure 2.svg", json: "figures/figure 2.json" } }],
  href: (keys) => numberPage(keys),
};

test("index.md: data statement, tables rendered with linked numbers, figures as images with N", () => {
  const { markdown } = renderReportIndex(spec);
  assert.match(markdown, /^# cspipe report\n\n\*\*Data: mini\.\*\* Produced from the MINI benchmark/);
  assert.match(markdown, /^### Retrieval \\<QReCC\\>$/m);
  assert.match(markdown, new RegExp(`\\| BM25\\(X<sub>t</sub>, C\\) \\| \\[0\\.400\\]\\(provenance/${K}\\.html\\) \\|`));
  assert.match(markdown, /^Data: \[Markdown\]\(tables\/table2\.md\) · \[CSV\]\(tables\/table2\.csv\) · \[JSON\]\(tables\/table2\.json\)$/m);
  assert.match(markdown, /!\[Shortcut analysis\]\(figures\/figure%202\.svg\)/);
  assert.match(markdown, /^c N = 12 turns per point\.$/m);
});

test("index.html: escaped, tables as HTML, figures inline with linked marks, findings on top", () => {
  const findings = parseFindings(
    JSON.stringify({ schema: "cspipe.findings/1", data: "mini", claims: [{ id: "c1", title: "Claim <1>", paper: "p", measure: "m", value: 58.3, sd: 1.2, seeds: 3, unit: "percent", threshold: "t", verdict: "inconclusive", evidence: [{ label: "e", stepKey: K, stepId: "evaluate-run" }] }] }),
    "findings.json",
  );
  const { html } = renderReportIndex({ ...spec, findings });
  assert.match(html, /^<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8">/);
  assert.match(html, /<p class="dataset mini"><strong>Data: mini\.<\/strong>/);
  assert.match(html, /QReCC mini &lt;3 conversations&gt; &amp; TopiOCQA mini/);
  assert.doesNotMatch(html, /<QReCC>/);
  assert.match(html, /<h3>Retrieval &lt;QReCC&gt;<\/h3>/);
  assert.match(html, new RegExp(`<td class="num ours"><a href="provenance/${K}\\.html" title="N = 12: provenance">0\\.400</a></td>`));
  assert.match(html, new RegExp(`<figure id="figure 2"><svg [^>]*data-figure="figure 2">[\\s\\S]*<a href="provenance/${K}\\.html"><rect class="bar"`));
  assert.match(html, /<a href="figures\/figure%202\.svg">SVG<\/a>/);
  assert.ok(html.indexOf("Claim &lt;1&gt;") < html.indexOf("<h2 id=\"tables\">"));
  assert.match(html, /58\.3 ± 1\.2% \(3 seeds\)/);
  assert.match(html, /<span class="verdict inconclusive">inconclusive<\/span>/);
  assert.equal(renderReportIndex({ ...spec, findings }).html, html, "same input, same bytes");
});

test("links must stay inside the report; ids are unique; findings are validated", () => {
  assert.throws(() => renderReportIndex({ ...spec, tables: [{ data: table, files: { csv: "../secret.csv" } }] }), /not a relative path/);
  assert.throws(() => renderReportIndex({ ...spec, tables: [{ data: table, files: { csv: "javascript:alert(1)" } }] }), /not a relative path/);
  assert.throws(() => renderReportIndex({ ...spec, tables: [spec.tables[0]!, spec.tables[0]!] }), /appears twice/);
  assert.throws(() => parseFindings("{", "f.json"), /f\.json: not JSON/);
  assert.throws(() => parseFindings(JSON.stringify({ schema: "cspipe.findings/1", data: "mini", claims: [{ id: "c", verdict: "maybe" }] }), "f.json"), /f\.json: field 'claims\.0\./);
  const claim = { id: "c", title: "t", paper: "p", measure: "m", value: null, sd: null, seeds: 0, unit: "ratio", threshold: "t", verdict: "holds", evidence: [] };
  assert.throws(() => parseFindings(JSON.stringify({ schema: "cspipe.findings/1", data: "mini", claims: [claim, claim] }), "f.json"), /claim id 'c' appears twice/);
});

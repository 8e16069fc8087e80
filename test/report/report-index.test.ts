import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { renderReportIndex, writeReportIndex } from "../../steps/report/report-index.ts";
import type { ReportIndexSpec } from "../../steps/report/report-index.ts";
import { tempDir } from "../tmp.ts";

const spec: ReportIndexSpec = {
  title: "cspipe report",
  dataset: "mini",
  datasetDescription: "QReCC mini <3 conversations> & TopiOCQA mini",
  entries: [
    { kind: "figure", id: "figure2", title: "Shortcut analysis", files: { svg: "figures/figure 2.svg" } },
    { kind: "table", id: "table2", title: "Retrieval <QReCC>", caption: "MRR & recall", files: { markdown: "tables/table2.md", csv: "tables/table2.csv", json: "tables/table2.json" } },
  ],
};

test("index.md lists tables then figures, states the dataset, links every file", () => {
  const { markdown } = renderReportIndex(spec);
  assert.equal(
    markdown,
    [
      "# cspipe report",
      "",
      "**Dataset: mini.** Produced from the MINI dataset (tiny fixtures for a smoke test). These numbers are NOT comparable to the paper's.",
      "",
      "QReCC mini <3 conversations> & TopiOCQA mini",
      "",
      "## Tables",
      "",
      "- **Retrieval <QReCC>** (table2): [Markdown](tables/table2.md) · [CSV](tables/table2.csv) · [JSON](tables/table2.json)",
      "  MRR & recall",
      "",
      "## Figures",
      "",
      "- **Shortcut analysis** (figure2): [SVG](figures/figure%202.svg)",
      "",
      "  ![Shortcut analysis](figures/figure%202.svg)",
      "",
      "",
    ].join("\n"),
  );
});

test("index.html escapes text, embeds figures, and is written to disk", async () => {
  const dir = join(tempDir("cspipe-report-"), "report");
  const paths = await writeReportIndex(dir, spec);
  const html = readFileSync(paths.html, "utf8");
  assert.equal(html, renderReportIndex(spec).html);
  assert.match(html, /<strong>Retrieval &lt;QReCC&gt;<\/strong>/);
  assert.match(html, /QReCC mini &lt;3 conversations&gt; &amp; TopiOCQA mini/);
  assert.match(html, /<img src="figures\/figure%202.svg" alt="Shortcut analysis">/);
  assert.match(html, /<p class="dataset mini">/);
  assert.doesNotMatch(html, /<QReCC>/);
  assert.equal(readFileSync(paths.markdown, "utf8"), renderReportIndex(spec).markdown);
});

test("links must stay inside the report; ids are unique", () => {
  assert.throws(() => renderReportIndex({ ...spec, entries: [{ kind: "table", id: "t", title: "t", files: { csv: "../secret.csv" } }] }), /not a relative path/);
  assert.throws(() => renderReportIndex({ ...spec, entries: [{ kind: "table", id: "t", title: "t", files: { csv: "javascript:alert(1)" } }] }), /not a relative path/);
  assert.throws(() => renderReportIndex({ ...spec, entries: [spec.entries[0]!, spec.entries[0]!] }), /appears twice/);
});

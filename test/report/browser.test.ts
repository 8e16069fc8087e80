/**
 * The figures in a real browser (headless Chromium, as scripts/setup.sh installs it): every
 * text of every chart lies inside its SVG's canvas (nothing clipped, as Figure 2(c)'s legend
 * was), and no two legend entries or x-axis labels overlap. The layout is computed from font
 * metrics without a browser, so this is the check that those metrics hold where it renders.
 * Chromium is required: without it the test fails, naming how to install it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, findChromium } from "../../scripts/chromium.ts";
import { figureData, type FigurePoint, type FigureSpec } from "../../steps/report/figure.ts";
import { renderFigureSvg } from "../../steps/report/svg.ts";
import { trainingCurves } from "../../steps/report/curves.ts";
import { collapseGraph, stageGraphSvg } from "../../steps/report/stage-graph.ts";
import { tempDir } from "../tmp.ts";

const MEASURE = `
const out = [];
const inside = (r, c) => r.left >= c.left - 0.5 && r.right <= c.right + 0.5 && r.top >= c.top - 0.5 && r.bottom <= c.bottom + 0.5;
const overlap = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
for (const svg of document.querySelectorAll("svg")) {
  const c = svg.getBoundingClientRect();
  const name = svg.getAttribute("data-figure") || svg.getAttribute("data-chart");
  for (const t of svg.querySelectorAll("text")) {
    const r = t.getBoundingClientRect();
    if (r.width > 0 && !inside(r, c)) out.push(name + ": '" + t.textContent + "' outside the canvas");
  }
  for (const sel of ["g.legend text", "g.x-axis text", "g.stage text"]) {
    const rs = [...svg.querySelectorAll(sel)].map((t) => [t.textContent, t.getBoundingClientRect()]);
    for (let i = 0; i < rs.length; i++) for (let j = i + 1; j < rs.length; j++) if (overlap(rs[i][1], rs[j][1])) out.push(name + ": '" + rs[i][0] + "' overlaps '" + rs[j][0] + "'");
  }
}
document.getElementById("result").textContent = JSON.stringify({ svgs: document.querySelectorAll("svg").length, problems: out });
`;

const key = "f".repeat(64);
const SERIES = ["BM25(X_t, C)", "BM25(X_t \\ {q_t}, C)", "DPR^shortcut (X_t \\ {q_t}, IBN)", "DPR (IBN)", "DPR (IHN, last iteration)", "DPR + model negatives (IHN iteration 2), as the released code trains it"];

function longFigure(): string {
  const cats = ["first", "switch", "no-switch (a category label long enough to wrap)"];
  const spec: FigureSpec = {
    id: "figure2c-long",
    chart: "bar",
    title: "Figure 2(c): R@10 by question type, QReCC test, mini benchmark, smoke profile (1 epoch: wiring check, numbers meaningless)",
    caption: "",
    yLabel: "Recall@10",
    categories: cats,
    series: SERIES.map((name) => ({ name, points: cats.map(() => null) })),
    valueFormat: { kind: "percent", digits: 1 },
  };
  const points: FigurePoint[][] = SERIES.map((_, si) =>
    cats.map((c, ci) => ({ category: c, ours: { value: 0.987 - si * 0.01, sd: si === 3 ? 0.02 : null, seeds: si === 3 ? 3 : 1, n: 17 + ci, stepKeys: [key], metric: "r", group: null }, paper: { value: 0.5 + 0.1 * ci, printed: "x", table: "t", row: "r", column: "c" }, absent: null })),
  );
  return renderFigureSvg(figureData(spec, points));
}

test("in Chromium, no text of a chart is clipped and no legend entries or axis labels overlap", { timeout: 120_000 }, () => {
  const binary = findChromium();
  assert.ok(binary, "headless Chromium is needed for this test: `apt-get install -y chromium` (scripts/setup.sh does), or set CSPIPE_CHROMIUM");
  const line = figureData({ id: "line", chart: "line", title: "R@5 per IHN iteration", caption: "", yLabel: "Recall@5", xLabel: "IHN iteration (0 = θ_0)", categories: ["0", "1", "2", "3"], series: [{ name: "topic-continues", points: [null, null, null, null] }] }, [
    ["0", "1", "2", "3"].map((c, i) => ({ category: c, ours: { value: 0.02 * i, sd: null, seeds: 1, n: 5, stepKeys: [key], metric: "r", group: null }, paper: null, absent: null })),
  ]);
  const curves = trainingCurves([{ epoch: 0, dev_recall_at_5: 0.1 }, { epoch: 1, dev_recall_at_5: 0.4, train_loss: 2.3 }], key).svg;
  const stages = stageGraphSvg(
    collapseGraph(
      ["generate-mini-qrecc", "preprocess-qrecc", "assemble-dpr-examples-with-negatives", "train-dpr", "search-dense", "mine-negatives", "evaluate-run", "render-table"].map((g) => ({ id: g, group: g })),
      [["generate-mini-qrecc", "preprocess-qrecc"], ["preprocess-qrecc", "assemble-dpr-examples-with-negatives"], ["assemble-dpr-examples-with-negatives", "train-dpr"], ["train-dpr", "search-dense"], ["search-dense", "mine-negatives"], ["mine-negatives", "assemble-dpr-examples-with-negatives"], ["search-dense", "evaluate-run"], ["evaluate-run", "render-table"]].map(([from, to]) => ({ from: from!, to: to! })),
    ),
  );
  const page = join(tempDir(), "charts.html");
  writeFileSync(page, `<!DOCTYPE html><html><head><meta charset="utf-8"></head><body style="margin:0">${[longFigure(), renderFigureSvg(line), ...curves, stages].join("\n")}<pre id="result"></pre><script>${MEASURE}</script></body></html>`);
  const dom = chromium(binary, pathToFileURL(page).href, ["--dump-dom", "--window-size=1400,3000"]);
  const m = /<pre id="result">([^<]*)<\/pre>/.exec(dom);
  assert.ok(m, "the measuring script ran");
  const result = JSON.parse(m[1]!.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&")) as { svgs: number; problems: string[] };
  assert.equal(result.svgs, 5);
  assert.deepEqual(result.problems, []);
});

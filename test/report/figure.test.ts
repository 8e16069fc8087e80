import { test } from "node:test";
import assert from "node:assert/strict";
import { figureSpecSchema, renderFigure, resolvePaperPoint, type FigureSpec } from "../../steps/report/figure.ts";
import { pickMetric } from "../../steps/report/metric-value.ts";
import type { MetricsFile } from "../../steps/eval/steps.ts";

const metrics = {
  split: "test",
  aggregate: { n: 10, metrics: { mrr: 0.4, "recall@10": 0.6 } },
  byQuestionType: { by: "questionType", groups: [{ group: "first", n: 2, metrics: { mrr: 0.9, "recall@10": 1 } }], unlabelled: 8, all: { group: "all", n: 10, metrics: {} } },
  byDomain: { by: "domain", groups: [], unlabelled: 10, all: { group: "all", n: 10, metrics: {} } },
} as unknown as MetricsFile;

test("pickMetric: aggregate, a group with its N, 'all', an absent group, an unknown metric", () => {
  assert.deepEqual(pickMetric(metrics, "mrr", undefined), { value: 0.4, n: 10 });
  assert.deepEqual(pickMetric(metrics, "recall@10", { by: "questionType", value: "first" }), { value: 1, n: 2 });
  assert.deepEqual(pickMetric(metrics, "mrr", { by: "questionType", value: "all" }), { value: 0.4, n: 10 });
  assert.equal(pickMetric(metrics, "mrr", { by: "questionType", value: "switch" }), undefined);
  assert.equal(pickMetric(metrics, "mrr", { by: "domain", value: "nq" }), undefined);
  assert.throws(() => pickMetric(metrics, "recall@5", undefined, "m.json"), /m\.json: field 'aggregate\.metrics\.recall@5': metric 'recall@5' missing \(the evaluation computed mrr, recall@10\)/);
});

test("paper points: percent values become fractions, MRR stays, '-' is no point, bad references are errors", () => {
  assert.deepEqual(resolvePaperPoint({ table: "final-table2", row: "bm25-history", column: "qrecc-r100" }), { source: "paper", value: 0.828, table: "final-table2", row: "bm25-history", column: "qrecc-r100" });
  assert.equal(resolvePaperPoint({ table: "final-table2", row: "bm25-history", column: "qrecc-mrr" })?.value, 0.467);
  assert.equal(resolvePaperPoint({ table: "early-table1", row: "bm25-without-q", column: "first-r10" }), undefined);
  assert.throws(() => resolvePaperPoint({ table: "final-table2", row: "nope", column: "qrecc-r10" }), /has no row 'nope'.*use one of: bm25-q/);
  assert.throws(() => resolvePaperPoint({ table: "final-table9", row: "x", column: "y" }), /no paper table 'final-table9'/);
});

const lineSpec: FigureSpec = figureSpecSchema.parse({
  id: "f3",
  chart: "line",
  title: "Iterations",
  caption: "c",
  yLabel: "R@10",
  xLabel: "iteration",
  categories: ["1", "2", "3"],
  series: [{ name: "first", points: [{ input: "i1", metric: "recall@10" }, null, { input: "i3", metric: "recall@10" }] }],
});

test("renderFigure: a line chart with a gap; JSON records the source of every point", () => {
  const r = renderFigure(lineSpec, [[{ source: "ours", value: 0.5, n: 2, stepKey: "k1", input: "i1", metric: "recall@10", group: null }, undefined, { source: "ours", value: 0.75, n: 2, stepKey: "k3", input: "i3", metric: "recall@10", group: null }]]);
  assert.equal((r.svg.match(/<circle class="point"/g) ?? []).length, 2);
  assert.equal((r.svg.match(/<polyline/g) ?? []).length, 0, "a gap splits the line into single points");
  assert.deepEqual(
    r.data.series[0]!.points.map((p) => [p.category, p.source, p.value]),
    [
      ["1", "ours", 0.5],
      ["2", "none", null],
      ["3", "ours", 0.75],
    ],
  );
  assert.equal(r.json, JSON.stringify(r.data, null, 2) + "\n");
});

test("figure specs: one point per category, line charts need an x label, ids are slugs", () => {
  assert.throws(() => renderFigure({ ...lineSpec, categories: ["1", "2"] }, [[]]), /series 'first' has 3 points for 2 categories/);
  const { xLabel: _drop, ...noLabel } = lineSpec;
  assert.throws(() => renderFigure(noLabel as FigureSpec, [[undefined, undefined, undefined]]), /line figure 'f3' has no xLabel/);
  assert.equal(figureSpecSchema.safeParse({ ...lineSpec, id: "Bad Id" }).success, false);
  assert.equal(figureSpecSchema.safeParse({ ...lineSpec, series: [{ name: "x", points: [{ input: "a", metric: "mrr", paper: { table: "t", row: "r", column: "c" } }, null, null] }] }).success, false);
});

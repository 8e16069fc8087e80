import { test } from "node:test";
import assert from "node:assert/strict";
import { describeN, figureData, figureSpecSchema, resolvePaperPoint, type FigurePoint, type FigureSpec } from "../../steps/report/figure.ts";
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

test("paper points: percent values become fractions and keep the printed text, MRR stays, '-' is no point, bad references are errors", () => {
  assert.deepEqual(resolvePaperPoint({ table: "final-table2", row: "bm25-history", column: "qrecc-r100" }), { value: 0.828, printed: "82.8", table: "final-table2", row: "bm25-history", column: "qrecc-r100" });
  assert.equal(resolvePaperPoint({ table: "final-table2", row: "bm25-history", column: "qrecc-mrr" })?.value, 0.467);
  assert.equal(resolvePaperPoint({ table: "early-table1", row: "bm25-without-q", column: "first-r10" }), undefined);
  assert.throws(() => resolvePaperPoint({ table: "final-table2", row: "nope", column: "qrecc-r10" }), /has no row 'nope'.*use one of: bm25-q/);
  assert.throws(() => resolvePaperPoint({ table: "final-table9", row: "x", column: "y" }), /no paper table 'final-table9'/);
});

const pt = (category: string, n: number): FigurePoint => ({ category, ours: { value: 0.5, sd: null, seeds: 1, n, stepKeys: ["k"], metric: "m", group: null }, paper: null, absent: null });

test("N in words: one N, N per category, N per series, or a range", () => {
  const cats = ["first", "switch"];
  assert.equal(describeN(cats, [{ name: "a", points: [pt("first", 7), pt("switch", 7)] }]), "N = 7 turns per point.");
  assert.equal(describeN(cats, [{ name: "a", points: [pt("first", 17), pt("switch", 30)] }, { name: "b", points: [pt("first", 17), pt("switch", 30)] }]), "N (turns) per category: first 17, switch 30.");
  assert.equal(describeN(cats, [{ name: "X_t", points: [pt("first", 17), pt("switch", 17)] }, { name: "b", points: [pt("first", 1200), pt("switch", 1200)] }]), "N (turns) per series: Xₜ 17, b 1,200.");
  assert.equal(describeN(cats, [{ name: "a", points: [pt("first", 1), pt("switch", 2)] }, { name: "b", points: [pt("first", 3), pt("switch", 4)] }]), "N varies by point (1 to 4 turns; see each point's tooltip).");
  assert.equal(describeN(cats, []), "");
});

const lineSpec: FigureSpec = figureSpecSchema.parse({
  id: "f3",
  chart: "line",
  title: "Iterations",
  caption: "c",
  yLabel: "R@10",
  xLabel: "iteration",
  categories: ["1", "2", "3"],
  series: [{ name: "first", points: [{ input: "i1", metric: "recall@10" }, null, { inputs: ["i3a", "i3b"], metric: "recall@10", paper: { table: "final-table2", row: "dpr-ihn", column: "topiocqa-r5" } }] }],
});

test("figure JSON: every point with ours, the paper's and why a number is absent; specs are checked", () => {
  const f = figureData(lineSpec, [[pt("1", 2), { category: "2", ours: null, paper: null, absent: null }, pt("3", 2)]]);
  assert.equal(f.schema, "cspipe.figure/2");
  assert.equal(f.nNote, "N = 2 turns per point.");
  assert.deepEqual(f.valueFormat, { kind: "fixed", digits: 3 });
  assert.deepEqual(f.series[0]!.points.map((p) => [p.category, p.ours?.value ?? null]), [["1", 0.5], ["2", null], ["3", 0.5]]);
  assert.throws(() => figureData({ ...lineSpec, categories: ["1", "2"] }, [[]]), /series 'first' has 3 points for 2 categories/);
  const { xLabel: _drop, ...noLabel } = lineSpec;
  assert.throws(() => figureData(noLabel, [[]]), /line figure 'f3' has no xLabel/);
  assert.equal(figureSpecSchema.safeParse({ ...lineSpec, id: "Bad Id" }).success, false);
  assert.equal(figureSpecSchema.safeParse({ ...lineSpec, series: [{ name: "x", points: [{ input: "a", inputs: ["b"], metric: "mrr" }, null, null] }] }).success, false, "input and inputs together");
  assert.equal(figureSpecSchema.safeParse({ ...lineSpec, series: [{ name: "x", points: [{ metric: "mrr" }, null, null] }] }).success, false, "neither");
  assert.equal(figureSpecSchema.safeParse({ ...lineSpec, series: [{ name: "x", points: [{ noInput: "empty" }, { paper: { table: "t", row: "r", column: "c" } }, null] }] }).success, true);
});

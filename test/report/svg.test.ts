import { test } from "node:test";
import assert from "node:assert/strict";
import { niceScale, renderFigureSvg, tickDigits, wrapLabel } from "../../steps/report/svg.ts";
import { figureData, type FigurePoint, type FigureSpec } from "../../steps/report/figure.ts";
import { labelWidth } from "../../steps/report/label.ts";
import { assertWellFormed } from "./svg-check.ts";

const key = (i: number): string => String(i).repeat(64);
const ours = (value: number, n: number, i: number, sd: number | null = null, seeds = 1) => ({ value, sd, seeds, n, stepKeys: [key(i)], metric: "recall@10", group: null });
const paper = (value: number) => ({ value, printed: (value * 100).toFixed(1), table: "final-table2", row: "r", column: "c" });

function bars(): { spec: FigureSpec; points: FigurePoint[][] } {
  const spec: FigureSpec = {
    id: "f",
    chart: "bar",
    title: "R@10 by query form <QReCC & co>",
    caption: "c",
    yLabel: "Recall@10",
    categories: ["q_t", "X_t \\ {q_t}"],
    series: [
      { name: "BM25", points: [null, null] },
      { name: "DPR^shortcut (X_t \\ {q_t}, IBN), a long name that has to wrap into the next legend row", points: [null, null] },
    ],
    valueFormat: { kind: "percent", digits: 1 },
  };
  const points: FigurePoint[][] = [
    [
      { category: "q_t", ours: ours(0.2, 10, 1), paper: paper(0.25), absent: null },
      { category: "X_t \\ {q_t}", ours: ours(0.1, 7, 2, 0.02, 3), paper: null, absent: null },
    ],
    [
      { category: "q_t", ours: null, paper: null, absent: "no input: empty on a first turn" },
      { category: "X_t \\ {q_t}", ours: ours(0.3, 7, 3), paper: paper(0.35), absent: null },
    ],
  ];
  return { spec, points };
}

test("axis scale: round steps (1, 2, 2.5, 5 x 10^k), at most 6, from 0 to at or above the data", () => {
  assert.deepEqual(niceScale(0.31), { max: 0.4, step: 0.1 });
  assert.deepEqual(niceScale(1), { max: 1, step: 0.2 });
  assert.deepEqual(niceScale(0.05), { max: 0.05, step: 0.01 });
  assert.deepEqual(niceScale(0.26), { max: 0.3, step: 0.05 });
  assert.deepEqual(niceScale(0), { max: 1, step: 0.2 });
  assert.equal(tickDigits(5), 0);
  assert.equal(tickDigits(2.5), 1);
  assert.equal(tickDigits(0.05), 2);
});

test("labels wrap at spaces outside braces, each line within the width (or one word)", () => {
  const lines = wrapLabel("DPR^shortcut (X_t \\ {q_t, C}, IBN) with a long tail", 90, 12);
  assert.ok(lines.length > 2);
  assert.deepEqual(lines, ["DPR^shortcut (X_t", "\\ {q_t, C}, IBN)", "with a long tail"], "a braced group stays whole");
  for (const l of lines) assert.ok(labelWidth(l, 12) <= 90 || !l.includes(" "), l);
  assert.deepEqual(wrapLabel("short", 200, 12), ["short"]);
});

test("bar chart: axis scaled to the data, error bars, paper diamonds, n/a, links and tooltips; stable bytes", () => {
  const { spec, points } = bars();
  const f = figureData(spec, points);
  const svg = renderFigureSvg(f, { href: (p) => (p.ours === null ? undefined : `p/${p.ours.stepKeys[0]!.slice(0, 4)}.html`) });
  assertWellFormed(svg);
  assert.equal(renderFigureSvg(f, { href: (p) => (p.ours === null ? undefined : `p/${p.ours.stepKeys[0]!.slice(0, 4)}.html`) }), svg);
  // data max 0.35 (a paper marker) -> axis 0..40 % in steps of 10, ticks printed without decimals
  assert.deepEqual([...svg.matchAll(/<text x="[\d.]+" y="[\d.]+" font-size="11" text-anchor="end">([^<]*)<\/text>/g)].map((m) => m[1]), ["0", "10", "20", "30", "40"]);
  assert.equal((svg.match(/<rect class="bar"/g) ?? []).length, 3);
  assert.equal((svg.match(/<path class="paper"/g) ?? []).length, 2 + 1, "two markers and the legend's");
  assert.equal((svg.match(/<path class="sd"/g) ?? []).length, 1 + 1, "one error bar and the legend's");
  assert.match(svg, /<a href="p\/1111\.html"><rect class="bar"[^>]*data-keys="1{64}"><title>BM25, qₜ: ours 20\.0; N = 10; paper 25\.0<\/title><\/rect><\/a>/);
  assert.match(svg, /<title>BM25, Xₜ ∖ \{qₜ\}: ours 10\.0 ± 2\.0 \(mean ± sd, 3 seeds\); N = 7<\/title>/);
  assert.match(svg, /<text class="absent"[^>]*>n\/a<title>[^<]*no input: empty on a first turn<\/title><\/text>/);
  assert.match(svg, /<title>R@10 by query form &lt;QReCC &amp; co&gt;<\/title>/);
  assert.match(svg, /Recall@10 \(%\)/);
  // The legend wraps onto more rows, and the canvas grows to hold them.
  const height = Number(/ height="(\d+)"/.exec(svg)![1]);
  const legendYs = [...svg.matchAll(/<g class="legend">[\s\S]*?<\/g>/g)][0]![0].match(/ y="([\d.]+)"/g)!.map((m) => Number(/[\d.]+/.exec(m)![0]));
  assert.ok(Math.max(...legendYs) < height - 4, `legend inside the canvas (${Math.max(...legendYs)} < ${height})`);
  const oneRow = renderFigureSvg(figureData({ ...spec, series: [spec.series[0]!] }, [points[0]!]));
  assert.ok(Number(/ height="(\d+)"/.exec(oneRow)![1]) < height);
});

test("line chart: points at slot centres, gaps break the line, markers in the series colour", () => {
  const spec: FigureSpec = { id: "l", chart: "line", title: "T", caption: "", yLabel: "R@5", xLabel: "iteration", categories: ["0", "1", "2"], series: [{ name: "all", points: [null, null, null] }] };
  const pts: FigurePoint[][] = [
    [
      { category: "0", ours: ours(0.1, 5, 1), paper: null, absent: null },
      { category: "1", ours: null, paper: paper(0.2), absent: null },
      { category: "2", ours: ours(0.3, 5, 3), paper: null, absent: null },
    ],
  ];
  const svg = renderFigureSvg(figureData(spec, pts));
  assertWellFormed(svg);
  assert.equal((svg.match(/<circle class="point"/g) ?? []).length, 2);
  assert.equal((svg.match(/<polyline/g) ?? []).length, 0, "a gap splits the line into single points");
  assert.match(svg, /<path class="paper" d="[^"]+" fill="#ffffff" stroke="#0072B2"/);
  assert.match(svg, />iteration<\/text>/);
});

test("a value label never sits under a paper marker: when the printed number is close to ours the label moves above the marker", () => {
  const spec: FigureSpec = { ...bars().spec, series: [{ name: "BM25", points: [null, null] }] };
  // q_t: the paper's number 1 point above ours (the markers of Figure 2(a) sat on the labels); X_t: far above.
  const points: FigurePoint[][] = [[
    { category: "q_t", ours: ours(0.3, 10, 1), paper: paper(0.31), absent: null },
    { category: "X_t \\ {q_t}", ours: ours(0.3, 7, 2), paper: paper(0.9), absent: null },
  ]];
  const svg = renderFigureSvg(figureData(spec, points));
  const labels = [...svg.matchAll(/<text x="([\d.]+)" y="([\d.]+)" font-size="9" class="value"/g)].map((m) => ({ x: Number(m[1]), y: Number(m[2]) }));
  // the markers on the chart (the legend's has no data-paper)
  const markers = [...svg.matchAll(/<path class="paper" d="M([\d.]+),([\d.]+)L[\d.]+,[\d.]+L[\d.]+,([\d.]+)[^>]*data-paper=/g)].map((m) => ({ x: Number(m[1]), top: Number(m[2]), bottom: Number(m[3]) }));
  assert.equal(labels.length, 2);
  assert.equal(markers.length, 2);
  for (const l of labels) {
    const m = markers.find((d) => Math.abs(d.x - l.x) < 0.01)!;
    assert.ok(m.bottom <= l.y - 7 || m.top >= l.y + 2, `label at y=${l.y} overlaps the marker ${m.top}..${m.bottom}`);
  }
  // Far from the marker, the label stays just above the bar.
  const bar = [...svg.matchAll(/<rect class="bar" x="[\d.]+" y="([\d.]+)"/g)].map((m) => Number(m[1]));
  assert.equal(labels[1]!.y, Math.round((bar[1]! - 3) * 100) / 100);
  assert.ok(labels[0]!.y < bar[0]! - 3, "moved up, above the marker");
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { niceMax, renderBarChartSvg, renderLineChartSvg } from "../../steps/report/svg.ts";

/** Minimal well-formedness check: balanced tags, quoted attributes, escaped text. */
function assertWellFormed(svg: string): void {
  const stack: string[] = [];
  const tag = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/g;
  let last = 0;
  for (let m = tag.exec(svg); m !== null; m = tag.exec(svg)) {
    const text = svg.slice(last, m.index);
    assert.doesNotMatch(text, /[<>]|&(?!(amp|lt|gt|quot|#39);)/, `unescaped text before ${m[0]}`);
    last = tag.lastIndex;
    const [, close, name, , selfClose] = m;
    if (close === "/") assert.equal(stack.pop(), name, `mismatched </${name}>`);
    else if (selfClose !== "/") stack.push(name!);
  }
  assert.equal(svg.slice(last).trim(), "");
  assert.deepEqual(stack, []);
  assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
}

test("grouped bar chart: one bar per non-null value, exact geometry, legend, escaping", () => {
  const svg = renderBarChartSvg({
    title: "R@10 by query form <QReCC & co>",
    yLabel: "Recall@10",
    categories: ["q_t", "X_t \\ {q_t}"],
    series: [
      { name: "BM25", values: [0.5, 0.25] },
      { name: "DPR", values: [null, 1] },
    ],
    yMax: 1,
  });
  assertWellFormed(svg);
  const bars = [...svg.matchAll(/<rect class="bar" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"[^>]*data-series="([^"]+)" data-category="([^"]+)" data-value="([^"]+)"/g)];
  assert.deepEqual(bars.map((b) => [b[5], b[6], b[7]]), [["BM25", "q_t", "0.5"], ["BM25", "X_t \\ {q_t}", "0.25"], ["DPR", "X_t \\ {q_t}", "1"]]);
  // plot area: x 60..490 (430 wide), y 40..300 (260 high); group width 215, bar width 86.
  assert.deepEqual(bars[0]!.slice(1, 5), ["81.5", "170", "86", "130"]);
  assert.deepEqual(bars[2]!.slice(1, 5), ["382.5", "40", "86", "260"]);
  assert.match(svg, /<title>R@10 by query form &lt;QReCC &amp; co&gt;<\/title>/);
  assert.equal((svg.match(/<g class="legend">/g) ?? []).length, 1);
  assert.match(svg, /data-series="DPR">DPR<\/text>/);
  assert.equal(renderBarChartSvg({ title: "t", yLabel: "y", categories: ["a"], series: [{ name: "s", values: [0.3] }] }), renderBarChartSvg({ title: "t", yLabel: "y", categories: ["a"], series: [{ name: "s", values: [0.3] }] }));
});

test("line chart: points per value, null breaks the line", () => {
  const svg = renderLineChartSvg({
    title: "TopiOCQA R@5 by iteration",
    xLabel: "iteration",
    yLabel: "R@5",
    x: ["0", "1", "2", "3"],
    series: [
      { name: "first", values: [0.4, 0.3, null, 0.6] },
      { name: "switch", values: [0.2, 0.4, 0.5, 0.7] },
    ],
    yMax: 1,
    valueFormat: { kind: "percent", digits: 1 },
  });
  assertWellFormed(svg);
  const points = [...svg.matchAll(/<circle class="point" cx="([\d.]+)" cy="([\d.]+)"[^>]*data-series="([^"]+)" data-x="([^"]+)" data-value="([^"]+)"/g)];
  assert.equal(points.length, 7);
  // x step = 430 / 3; y(0.4) = 300 - 104 = 196; y(0.7) = 300 - 182 = 118.
  assert.deepEqual(points[0]!.slice(1, 6), ["60", "196", "first", "0", "0.4"]);
  assert.deepEqual(points[6]!.slice(1, 6), ["490", "118", "switch", "3", "0.7"]);
  const lines = [...svg.matchAll(/<polyline class="line" points="([^"]+)"[^>]*data-series="([^"]+)"/g)];
  assert.deepEqual(lines.map((l) => [l[2], l[1]!.split(" ").length]), [["first", 2], ["switch", 4]]);
  assert.match(svg, /<title>first, 3: 60\.0<\/title>/);
});

test("bad chart input is rejected; nice axis maxima", () => {
  assert.throws(() => renderBarChartSvg({ title: "t", yLabel: "y", categories: ["a", "b"], series: [{ name: "s", values: [1] }] }), /1 values for 2 x positions/);
  assert.throws(() => renderLineChartSvg({ title: "t", yLabel: "y", xLabel: "x", x: ["0"], series: [{ name: "s", values: [Number.NaN] }] }), /holds NaN/);
  assert.equal(niceMax(0.83), 1);
  assert.equal(niceMax(0.42), 0.5);
  assert.equal(niceMax(74.8), 100);
  assert.equal(niceMax(0.19), 0.2);
  assert.equal(niceMax(0), 1);
});

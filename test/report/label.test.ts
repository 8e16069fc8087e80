import { test } from "node:test";
import assert from "node:assert/strict";
import { labelHtml, labelMarkdown, labelSvg, labelText, labelWidth, parseLabel } from "../../steps/report/label.ts";
import { textWidth } from "../../steps/report/text-metrics.ts";

test("the label notation: subscripts, superscripts, the set difference, braces", () => {
  assert.deepEqual(parseLabel("X_t \\ {q_t}"), [
    { text: "X", shift: "base" },
    { text: "t", shift: "sub" },
    { text: " ∖ {q", shift: "base" },
    { text: "t", shift: "sub" },
    { text: "}", shift: "base" },
  ]);
  assert.deepEqual(parseLabel("a_{t-1}"), [
    { text: "a", shift: "base" },
    { text: "t-1", shift: "sub" },
  ]);
  assert.deepEqual(parseLabel("DPR^shortcut (IBN)"), [
    { text: "DPR", shift: "base" },
    { text: "shortcut", shift: "sup" },
    { text: " (IBN)", shift: "base" },
  ]);
  assert.deepEqual(parseLabel("q*_t"), [
    { text: "q*", shift: "base" },
    { text: "t", shift: "sub" },
  ]);
  assert.deepEqual(parseLabel("50_%"), [{ text: "50_%", shift: "base" }], "an underscore before a non-alphanumeric stays");
  assert.deepEqual(parseLabel("x_{unclosed"), [{ text: "x_{unclosed", shift: "base" }]);
  assert.deepEqual(parseLabel(""), []);
});

test("one label, four renderings: HTML, Markdown, plain Unicode, SVG", () => {
  assert.equal(labelHtml("BM25(X_t \\ {q_t}, C) <b>"), "BM25(X<sub>t</sub> ∖ {q<sub>t</sub>}, C) &lt;b&gt;");
  assert.equal(labelMarkdown("DPR_{i-1}(X_t, C) | *x*"), "DPR<sub>i-1</sub>(X<sub>t</sub>, C) \\| \\*x\\*");
  assert.equal(labelText("X_t \\ {q_t}"), "Xₜ ∖ {qₜ}");
  assert.equal(labelText("a_{t-1}"), "aₜ₋₁");
  assert.equal(labelText("DPR^shortcut"), "DPRˢʰᵒʳᵗᶜᵘᵗ");
  assert.equal(labelText("DPR_{iter=i-1}"), "DPRᵢₜₑᵣ₌ᵢ₋₁");
  assert.equal(labelText("x_{by}"), "x_{by}", "no subscript form for every character: the notation stays");
  // SVG: a shifted run is smaller and moved by dy; the next base run moves back.
  assert.equal(labelSvg("X_t & y", 12), 'X<tspan dy="3.36" font-size="8.64">t</tspan><tspan dy="-3.36"> &amp; y</tspan>');
  assert.equal(labelSvg("plain", 12), "plain");
});

test("widths come from the font's advance widths; shifted runs are measured smaller", () => {
  assert.equal(textWidth("0", 2048), 1303);
  assert.equal(textWidth("M", 12), (1767 / 2048) * 12);
  assert.ok(textWidth("M", 12, true) > textWidth("M", 12));
  assert.ok(labelWidth("X_t", 12) < textWidth("Xt", 12));
  assert.equal(textWidth("\u{1F600}", 10), (1767 / 2048) * 10, "unknown characters count as wide as M");
});

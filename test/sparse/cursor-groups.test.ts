// The block groups of the pruned searcher's cursors (steps/sparse/cursors.ts): `shallow` lands on
// the same block as a block-by-block walk, and `windowMax` gives the same maximum as the blocks'
// own maxima, for random targets and windows over terms long enough to have whole groups at every
// level, starting from blocks on and off group boundaries.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Cursors, GROUP, GROUP_LEVELS } from "../../steps/sparse/cursors.ts";
import { buildIndexSync } from "../../steps/sparse/index.ts";
import { mulberry32 } from "../../steps/lib/prng.ts";
import { averageLength, normInverseCache } from "../../steps/sparse/similarity.ts";
import { collection } from "./random-collection.ts";

const index = buildIndexSync(collection(6000, 21), { blockSize: 2 });
const normCache = normInverseCache({ k1: 0.82, b: 0.68 }, averageLength(index.sumTotalTermFreq, index.docCount));
const last = index.blockLastDoc;

/** Terms with the most blocks (the frequent ones span several groups of the largest level). */
const longTerms = Array.from({ length: index.numTerms }, (_, t) => t)
  .sort((a, b) => index.termBlockOffsets[b + 1]! - index.termBlockOffsets[b]! - (index.termBlockOffsets[a + 1]! - index.termBlockOffsets[a]!) || a - b)
  .slice(0, 6);

test("the generated terms span whole groups of every level", () => {
  const blocks = index.termBlockOffsets[longTerms[0]! + 1]! - index.termBlockOffsets[longTerms[0]!]!;
  assert.ok(blocks >= 3 * GROUP ** GROUP_LEVELS, `the longest term has ${blocks} blocks`);
});

test("shallow lands on the first block that can hold the target, as block by block", () => {
  const r = mulberry32(3);
  const c = new Cursors(index, normCache);
  let checked = 0;
  for (const t of longTerms) {
    const first = index.termBlockOffsets[t]!;
    const end = index.termBlockOffsets[t + 1]!;
    const maxDoc = last[end - 1]! + 5;
    for (let rep = 0; rep < 300; rep++) {
      c.reset([{ term: t, weight: 1 }]);
      // from a random start (on or off a group boundary) to a random target after it
      const from = Math.floor(r() * maxDoc);
      const to = from + Math.floor(r() * r() * (maxDoc - from + 1));
      let expected = first;
      for (const target of [from, to]) {
        while (expected < end && last[expected]! < target) expected++;
        assert.equal(c.shallow(0, target), expected, `term ${t}, target ${target}`);
        checked++;
      }
    }
  }
  assert.ok(checked > 3000);
});

test("windowMax equals the largest block maximum over the window's blocks", () => {
  const r = mulberry32(4);
  const c = new Cursors(index, normCache);
  let wide = 0;
  for (const t of longTerms) {
    const first = index.termBlockOffsets[t]!;
    const end = index.termBlockOffsets[t + 1]!;
    const maxDoc = last[end - 1]! + 5;
    for (let rep = 0; rep < 300; rep++) {
      c.reset([{ term: t, weight: 1.75 }]);
      const lo = Math.floor(r() * maxDoc);
      const hi = lo + 1 + Math.floor(r() * r() * (maxDoc - lo));
      let b = first;
      while (b < end && last[b]! < lo) b++;
      let expected = 0;
      let blocks = 0;
      for (; b < end; b++) {
        expected = Math.max(expected, c.blockMax(0, b));
        blocks++;
        if (last[b]! >= hi - 1) break;
      }
      if (blocks > GROUP ** GROUP_LEVELS) wide++;
      c.reset([{ term: t, weight: 1.75 }]);
      assert.equal(c.windowMax(0, lo, hi), expected, `term ${t}, window [${lo}, ${hi})`);
    }
  }
  assert.ok(wide > 100, `only ${wide} windows wider than a group of the largest level`);
});

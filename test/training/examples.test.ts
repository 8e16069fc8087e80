import { test } from "node:test";
import assert from "node:assert/strict";
import { buildExamples } from "../../steps/training/examples.ts";

const rowOf = new Map(["p0", "p1", "p2", "p3", "p4", "p5"].map((p, i) => [p, i]));
const goldOf = new Map<string, string[]>([
  ["t1", ["p2", "p4"]],
  ["t2", []],
  ["t3", ["missing", "p1"]],
  ["d1", ["p5"]],
  ["d2", ["nowhere"]],
]);

test("examples: positive = first gold present, all gold listed, turns without gold dropped", () => {
  const ex = buildExamples({ trainQids: ["t1", "t2", "t3"], devQids: ["d1", "d2"], trainGold: goldOf, devGold: goldOf, rowOf, passages: 6, k: 100, devPassages: 0, seed: 1 });
  assert.deepEqual(ex.trainRows, [0, 2]);
  assert.deepEqual([...ex.pos], [2, 1]);
  assert.equal(ex.gold.cols, 2);
  assert.deepEqual([...ex.gold.data], [2, 4, 1, -1]);
  assert.equal(ex.neg, null);
  assert.equal(ex.counts.train_no_gold, 1);
  assert.equal(ex.counts.gold_missing, 1);
  // devPassages 0: the whole collection; d2's gold is not in it, so d2 is not a dev query.
  assert.deepEqual(ex.devRows, [0]);
  assert.deepEqual(ex.devPassageRows, [0, 1, 2, 3, 4, 5]);
  assert.deepEqual([...ex.devGold.data], [5]);
});

test("examples: train and dev gold come from their own split (qids repeat across splits)", () => {
  const train = new Map([["1_1", ["p0"]]]);
  const dev = new Map([["1_1", ["p3"]]]);
  const ex = buildExamples({ trainQids: ["1_1"], devQids: ["1_1"], trainGold: train, devGold: dev, rowOf, passages: 6, k: 1, devPassages: 0, seed: 1 });
  assert.deepEqual([...ex.pos], [0]);
  assert.deepEqual([...ex.devGold.data], [3]);
});

test("examples: mined negatives keep rank order, cut at k, drop unknown ids, -1 pad", () => {
  const negatives = new Map([
    ["t1", ["p3", "zz", "p0", "p5", "p1"]],
    ["t3", ["p4"]],
  ]);
  const ex = buildExamples({ trainQids: ["t1", "t3"], devQids: ["d1"], trainGold: goldOf, devGold: goldOf, rowOf, passages: 6, k: 3, devPassages: 0, seed: 1, negatives });
  assert.equal(ex.neg!.cols, 3);
  assert.deepEqual([...ex.neg!.data], [3, 0, 5, 4, -1, -1]);
  assert.equal(ex.counts.negatives_missing_ids, 1);
});

test("examples: the dev collection is the dev gold plus a seeded sample, in collection order", () => {
  const a = buildExamples({ trainQids: ["t1"], devQids: ["d1"], trainGold: goldOf, devGold: goldOf, rowOf, passages: 6, k: 1, devPassages: 3, seed: 7 });
  const b = buildExamples({ trainQids: ["t1"], devQids: ["d1"], trainGold: goldOf, devGold: goldOf, rowOf, passages: 6, k: 1, devPassages: 3, seed: 7 });
  assert.equal(a.devPassageRows.length, 3);
  assert.ok(a.devPassageRows.includes(5));
  assert.deepEqual(a.devPassageRows, [...a.devPassageRows].sort((x, y) => x - y));
  assert.deepEqual(a.devPassageRows, b.devPassageRows);
  assert.equal(a.devGold.data[0], a.devPassageRows.indexOf(5));
});

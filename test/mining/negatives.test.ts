import { test } from "node:test";
import assert from "node:assert/strict";
import { mineNegatives } from "../../steps/mining/negatives.ts";

const run = [
  { qid: "q2", pid: "b", rank: 2, score: 3 },
  { qid: "q1", pid: "g", rank: 1, score: 9 },
  { qid: "q1", pid: "x", rank: 2, score: 8 },
  { qid: "q1", pid: "y", rank: 3, score: 7 },
  { qid: "q2", pid: "a", rank: 1, score: 4 },
  { qid: "q1", pid: "z", rank: 4, score: 6 },
];
const gold = new Map([["q1", ["g"]], ["q2", ["c"]]]);

test("mining excludes gold passages by default and keeps k in rank order", () => {
  const { lists, goldDropped } = mineNegatives(run, gold, { k: 2, excludeGold: true });
  assert.equal(goldDropped, 1);
  assert.deepEqual(lists, [
    { qid: "q1", pids: ["x", "y"], scores: [8, 7] },
    { qid: "q2", pids: ["a", "b"], scores: [4, 3] },
  ]);
});

test("mining can keep gold, as the authors' code does", () => {
  const { lists, goldDropped } = mineNegatives(run, gold, { k: 2, excludeGold: false });
  assert.equal(goldDropped, 0);
  assert.deepEqual(lists[0], { qid: "q1", pids: ["g", "x"], scores: [9, 8] });
});

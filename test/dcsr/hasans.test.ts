/** HasAns passage ranking on hand-computed cases: softmax over the retrieved sentences, product over a passage's sentences. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { hasAnsRanking, softmaxLogs } from "../../steps/dcsr/hasans.ts";

const close = (a: number, b: number, tol = 1e-12) => assert.ok(Math.abs(a - b) <= tol * Math.max(1, Math.abs(b)), `${a} vs ${b}`);

test("softmax over the retrieved sentences, HasAns(P) = 1 - prod (1 - p_i) over P's sentences, ranked best first", () => {
  // scores: A#0 = 2, B#0 = 1, A#1 = 0, C#0 = 0  ->  Z = e^2 + e + 2
  const hits = [
    { pid: "A", slot: 0, score: 2 },
    { pid: "B", slot: 0, score: 1 },
    { pid: "A", slot: 1, score: 0 },
    { pid: "C", slot: 0, score: 0 },
  ];
  const e = Math.E;
  const Z = e * e + e + 2;
  const [pA0, pB, pA1, pC] = [(e * e) / Z, e / Z, 1 / Z, 1 / Z];
  const ranked = hasAnsRanking(hits, 10);
  assert.deepEqual(ranked.map((p) => [p.pid, p.sentences]), [["A", 2], ["B", 1], ["C", 1]]);
  close(ranked[0]!.hasAns, 1 - (1 - pA0) * (1 - pA1));
  close(ranked[0]!.hasAns, 0.642483, 1e-6);
  close(ranked[1]!.hasAns, pB);
  close(ranked[2]!.hasAns, pC);
  for (const p of ranked) close(p.logHasAns, Math.log(p.hasAns));
  assert.deepEqual(hasAnsRanking(hits, 2).map((p) => p.pid), ["A", "B"]);
});

test("equal HasAns ties break by passage id; one sentence covering all mass stays finite", () => {
  const tie = hasAnsRanking([{ pid: "z", slot: 0, score: 1 }, { pid: "b", slot: 2, score: 1 }, { pid: "m", slot: 1, score: 1 }], 10);
  assert.deepEqual(tie.map((p) => p.pid), ["b", "m", "z"]);
  close(tie[0]!.hasAns, 1 / 3);
  // p(A) = 1 / (1 + e^-800) rounds to 1 in float64: ln HasAns(A) = ln(1 - e^-800) ~ -e^-800, B's ~ -800
  const peaked = hasAnsRanking([{ pid: "A", slot: 0, score: 800 }, { pid: "B", slot: 0, score: 0 }], 10);
  assert.deepEqual(peaked.map((p) => p.pid), ["A", "B"]);
  assert.ok(Number.isFinite(peaked[0]!.logHasAns) && peaked[0]!.logHasAns <= 0 && peaked[0]!.logHasAns > -1e-300);
  close(peaked[1]!.logHasAns, -800);
  // passages far down the list keep distinct scores (HasAns itself underflows to 0 there)
  const far = hasAnsRanking([{ pid: "A", slot: 0, score: 0 }, { pid: "B", slot: 0, score: -900 }, { pid: "C", slot: 0, score: -950 }], 10);
  assert.deepEqual(far.map((p) => p.pid), ["A", "B", "C"]);
  assert.equal(far[1]!.hasAns, 0);
  close(far[1]!.logHasAns, -900);
  close(far[2]!.logHasAns, -950);
  const { logP, logNotP } = softmaxLogs([0, 0]);
  close(logP[0]!, Math.log(0.5));
  close(logNotP[0]!, Math.log(0.5));
  assert.deepEqual(hasAnsRanking([], 5), []);
  assert.equal(hasAnsRanking([{ pid: "only", slot: 0, score: 3 }], 5)[0]!.logHasAns, 0);
});

/**
 * The claims checker on hand-made evaluations: exact statistics per seed, mean, sample sd,
 * and the verdict rule (mean - t-margin against the threshold; "at most" mirrored; a rise at every step).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { checkClaim, findingsMarkdown, inputsOf, lookupIn, margin95, sampleSd, verdictOf, type ClaimSpec } from "../../steps/findings/claims.ts";
import type { MetricsFile } from "../../steps/eval/steps.ts";

function metrics(r10: number, bySwitch?: { switch: number; "no-switch": number }): MetricsFile {
  const group = (g: string, v: number) => ({ group: g, n: 10, metrics: { "recall@10": v } });
  return {
    split: "test",
    aggregate: { metrics: { "recall@10": r10 }, n: 100 } as unknown as MetricsFile["aggregate"],
    byQuestionType: { groups: bySwitch === undefined ? [] : [group("switch", bySwitch.switch), group("no-switch", bySwitch["no-switch"])] } as unknown as MetricsFile["byQuestionType"],
    byDomain: { groups: [] } as unknown as MetricsFile["byDomain"],
  };
}

const files = new Map<string, MetricsFile>([
  ["ibn_1", metrics(0.5, { switch: 0.4, "no-switch": 0.8 })], ["ibn_2", metrics(0.6, { switch: 0.5, "no-switch": 0.8 })], ["ibn_3", metrics(0.55, { switch: 0.45, "no-switch": 0.8 })],
  ["ihn_1", metrics(0.6, { switch: 0.6, "no-switch": 0.85 })], ["ihn_2", metrics(0.62, { switch: 0.6, "no-switch": 0.82 })], ["ihn_3", metrics(0.64, { switch: 0.65, "no-switch": 0.85 })],
  ["bm25", metrics(0.58)],
]);
const look = lookupIn(files);
const seeds = (p: string) => [1, 2, 3].map((s) => `${p}_${s}`);
const spec = (rule: ClaimSpec["rule"], threshold: number, direction: ClaimSpec["direction"] = "at-least", unit: ClaimSpec["unit"] = "points"): ClaimSpec =>
  ({ id: "c", title: "t", paper: "p", measure: "m", rule, threshold, direction, unit });

test("sample sd uses n - 1, and none for one value", () => {
  assert.equal(sampleSd([1, 2, 3]), 1);
  assert.equal(sampleSd([5]), null);
});

test("the 95% t-margin: t(0.95, n-1) * sd / sqrt(n); none without a spread", () => {
  assert.equal(Math.round(margin95(1, 3) * 1e6) / 1e6, 1.685863); // 2.920 / sqrt(3)
  assert.equal(Math.round(margin95(1, 5) * 1e6) / 1e6, 0.953459); // 2.132 / sqrt(5)
  assert.equal(Math.round(margin95(2, 2) * 1e6) / 1e6, 8.929344); // 6.314 * 2 / sqrt(2)
  assert.equal(Math.round(margin95(1, 40) * 1e6) / 1e6, 0.260097); // past 31 values: the normal's 1.645
  assert.equal(margin95(null, 1), 0);
  assert.equal(margin95(3, 1), 0);
});

test("verdicts: mean - t-margin against the threshold, mirrored for 'at most'", () => {
  // 3 seeds, sd 2: the margin is 3.37
  assert.equal(verdictOf(5, 2, 3, 0, "at-least"), "holds");
  assert.equal(verdictOf(3, 2, 3, 0, "at-least"), "inconclusive", "mean - sd = 1 would have said holds");
  assert.equal(verdictOf(-4, 2, 3, 0, "at-least"), "does-not-hold");
  assert.equal(verdictOf(-3, 2, 3, 0, "at-least"), "inconclusive");
  // 5 seeds of the same spread: the margin shrinks to 1.91
  assert.equal(verdictOf(3, 2, 5, 0, "at-least"), "holds");
  assert.equal(verdictOf(0.3, 0.1, 3, 0.5, "at-most"), "holds");
  assert.equal(verdictOf(0.45, 0.1, 3, 0.5, "at-most"), "inconclusive");
  assert.equal(verdictOf(0.7, 0.1, 3, 0.5, "at-most"), "does-not-hold");
  assert.equal(verdictOf(0.5, null, 1, 0.5, "at-least"), "holds");
  // "above": a tie does not hold; the spread decides as for "at least".
  assert.equal(verdictOf(0, null, 1, 0, "above"), "does-not-hold");
  assert.equal(verdictOf(0.1, null, 1, 0, "above"), "holds");
  assert.equal(verdictOf(1, 2, 3, 0, "above"), "inconclusive");
  assert.equal(verdictOf(-4, 2, 3, 0, "above"), "does-not-hold");
});

test("a gain paired by seed, in points: IHN - IBN = 10, 2, 9 -> 7 ± 4.36: inconclusive (7 - 7.35 < 0)", () => {
  const f = checkClaim(spec({ kind: "gain", better: { inputs: seeds("ihn"), metric: "recall@10" }, worse: { inputs: seeds("ibn"), metric: "recall@10" } }, 0), look, []);
  assert.deepEqual(f.perSeed.map((x) => Math.round(x * 1e9) / 1e9), [10, 2, 9]);
  assert.equal(Math.round(f.value! * 1e9) / 1e9, 7);
  assert.equal(Math.round(f.sd! * 1e4) / 1e4, 4.3589);
  assert.equal(f.verdict, "inconclusive", "three seeds this far apart do not settle the sign");
  assert.equal(f.seeds, 3);
});

test("a single value is used for every seed of the other side (dense against BM25): 2, 4, 6 points over BM25", () => {
  const f = checkClaim(spec({ kind: "gain", better: { inputs: seeds("ihn"), metric: "recall@10" }, worse: { inputs: ["bm25"], metric: "recall@10" } }, 0), look, []);
  assert.deepEqual(f.perSeed.map((x) => Math.round(x * 1e9) / 1e9), [2, 4, 6]);
  assert.equal(f.verdict, "holds");
  const g = checkClaim(spec({ kind: "gain", better: { inputs: seeds("ibn"), metric: "recall@10" }, worse: { inputs: ["bm25"], metric: "recall@10" } }, 0), look, []);
  assert.equal(g.verdict, "inconclusive", "-8, 2, -3: the seeds disagree");
});

test("ratio in a breakdown group, at most: IBN switch / no-switch = 0.5, 0.625, 0.5625", () => {
  const sw = (g: string) => ({ inputs: seeds("ibn"), metric: "recall@10", group: { by: "questionType" as const, value: g } });
  const f = checkClaim(spec({ kind: "ratio", num: sw("switch"), den: sw("no-switch") }, 0.5, "at-most", "ratio"), look, []);
  assert.deepEqual(f.perSeed.map((x) => Math.round(x * 1e9) / 1e9), [0.5, 0.625, 0.5625]);
  // mean 0.5625, sd 0.0625, margin 0.105: 0.457 .. 0.668 straddles 0.5
  assert.equal(f.verdict, "inconclusive");
  assert.equal(checkClaim(spec({ kind: "ratio", num: sw("switch"), den: sw("no-switch") }, 0.4, "at-most", "ratio"), look, []).verdict, "does-not-hold");
});

test("gain difference: IHN's gain on switch turns minus its gain on no-switch turns", () => {
  const g = (grp: string) => ({ better: { inputs: seeds("ihn"), metric: "recall@10", group: { by: "questionType" as const, value: grp } }, worse: { inputs: seeds("ibn"), metric: "recall@10", group: { by: "questionType" as const, value: grp } } });
  const f = checkClaim(spec({ kind: "gain-difference", a: g("switch"), b: g("no-switch") }, 0), look, []);
  // switch gains 20, 10, 20; no-switch gains 5, 2, 5
  assert.deepEqual(f.perSeed.map((x) => Math.round(x * 1e9) / 1e9), [15, 8, 15]);
  assert.equal(f.verdict, "holds");
});

test("rise over iterations: last - first, and every step must hold on its own", () => {
  const its = new Map<string, MetricsFile>([
    ["a_1", metrics(0.5)], ["a_2", metrics(0.52)], ["a_3", metrics(0.54)],
    ["b_1", metrics(0.6)], ["b_2", metrics(0.63)], ["b_3", metrics(0.66)],
    ["up_1", metrics(0.7)], ["up_2", metrics(0.74)], ["up_3", metrics(0.76)],
    ["flat_1", metrics(0.61)], ["flat_2", metrics(0.62)], ["flat_3", metrics(0.68)],
    ["down_1", metrics(0.5)], ["down_2", metrics(0.53)], ["down_3", metrics(0.55)],
  ]);
  const op = (p: string) => ({ inputs: seeds(p), metric: "recall@10" });
  const rise = (last: string) => checkClaim(spec({ kind: "rise", steps: [op("a"), op("b"), op(last)] }, 0), lookupIn(its), []);
  // steps +10, +11, +12 and +10, +11, +10 points: each settles "> 0" (11 - 1.69, 10.3 - 0.97)
  const up = rise("up");
  assert.deepEqual(up.perSeed.map((x) => Math.round(x * 1e9) / 1e9), [20, 22, 22]);
  assert.equal(up.verdict, "holds");
  // a saturated last step (+1, -1, +2: mean 0.67, sd 1.53, margin 2.58) leaves the claim open, though last - first holds
  const flat = rise("flat");
  assert.deepEqual(flat.perSeed.map((x) => Math.round(x * 1e9) / 1e9), [11, 10, 14]);
  assert.equal(flat.verdict, "inconclusive", "a step whose sign is noise does not hold");
  assert.equal(flat.note, "step 2 -> 3: +0.7 ± 1.5 points is not settled (every step must hold on its own)");
  // each step's gains per seed are recorded, so claim-seeds can simulate the rule
  assert.deepEqual(flat.steps?.map((xs) => xs.map((x) => Math.round(x * 1e9) / 1e9)), [[10, 11, 12], [1, -1, 2]]);
  // a step that falls for sure (-10, -10, -11) refutes the claim, though last - first is only inconclusive
  const down = rise("down");
  assert.equal(down.verdict, "does-not-hold");
  assert.equal(down.note, "step 2 -> 3: -10.3 ± 0.6 points does not hold");
  assert.deepEqual(inputsOf({ rule: { kind: "rise", steps: [op("a"), { inputs: ["bm25"], metric: "recall@10" }] } }), [...seeds("a"), "bm25"]);
});

test("units: one θ0's fine-tunings are averaged first, and the rule runs over the θ0s", () => {
  // better per position (points over BM25's 0.58): 2, -8 | 4, 2 | 6, -3 -> per θ0 -3, 3, 1.5
  const positions = ["ihn_1", "ibn_1", "ihn_2", "ibn_2", "ihn_3", "ibn_3"];
  const gain = (units?: number[]) => ({ ...spec({ kind: "gain", better: { inputs: positions, metric: "recall@10" }, worse: { inputs: ["bm25"], metric: "recall@10" } }, 0), ...(units === undefined ? {} : { units }) });
  const f = checkClaim(gain([1, 1, 2, 2, 3, 3]), look, []);
  assert.deepEqual(f.perSeed.map((x) => Math.round(x * 1e9) / 1e9), [-3, 3, 1.5]);
  assert.equal(f.seeds, 3);
  assert.equal(Math.round(f.value! * 1e9) / 1e9, 0.5);
  assert.equal(Math.round(f.sd! * 1e4) / 1e4, 3.1225);
  assert.deepEqual(f.units?.map((u) => [u.seed, u.values.map((x) => Math.round(x * 1e9) / 1e9)]), [[1, [2, -8]], [2, [4, 2]], [3, [6, -3]]]);
  assert.match(findingsMarkdown({ schema: "cspipe.findings/1", data: "mini", claims: [f] }), /\(3 θ0s × 2 fine-tunings, averaged per θ0\).*\| >= 0\.0 points \(mean - t-margin over θ0s\) \|/);
  // without units each value is its own seed
  assert.equal(checkClaim(gain(), look, []).seeds, 6);
  assert.throws(() => checkClaim(gain([1, 1, 2]), look, []), /names 3 units for 6 values/);
  // a rise's steps are averaged per θ0 too: steps +10, +11 | +12 and +10, +11 | +10
  const its = new Map<string, MetricsFile>([["a_1", metrics(0.5)], ["a_2", metrics(0.52)], ["a_3", metrics(0.54)], ["b_1", metrics(0.6)], ["b_2", metrics(0.63)], ["b_3", metrics(0.66)], ["c_1", metrics(0.7)], ["c_2", metrics(0.74)], ["c_3", metrics(0.76)]]);
  const op = (p: string) => ({ inputs: seeds(p), metric: "recall@10" });
  const rise = checkClaim({ ...spec({ kind: "rise", steps: [op("a"), op("b"), op("c")] }, 0), units: [1, 1, 2] }, lookupIn(its), []);
  assert.deepEqual(rise.steps?.map((xs) => xs.map((x) => Math.round(x * 1e9) / 1e9)), [[10.5, 12], [10.5, 10]]);
  assert.deepEqual(rise.perSeed.map((x) => Math.round(x * 1e9) / 1e9), [21, 22]);
});

test("a claim on a group without turns is not measured; the Markdown lists every claim", () => {
  const empty = checkClaim(spec({ kind: "gain", better: { inputs: ["bm25"], metric: "recall@10", group: { by: "questionType", value: "first" } }, worse: { inputs: ["bm25"], metric: "recall@10" } }, 0), look, []);
  assert.equal(empty.verdict, "not-measured");
  const md = findingsMarkdown({ schema: "cspipe.findings/1", data: "mini", claims: [empty] });
  assert.match(md, /\| t \| p \| -: m \| .* \| not-measured \(no turns/);
});

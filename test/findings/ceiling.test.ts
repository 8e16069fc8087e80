/**
 * A gain claim's ceiling (steps/findings/claims.ts, CeilingCheck): whether a difference between
 * two readers could be measured at the share of their ceilings (the oracle reader on each side's
 * passages) that they reach, against the smallest gain the seeds' spread resolves. Hand-made
 * numbers with exact expected values.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { checkClaim, claimSpecSchema, findingsMarkdown, inputsOf, lookupIn, type ClaimSpec } from "../../steps/findings/claims.ts";
import { parseFindings, findingsMarkdown as reportMarkdown } from "../../steps/report/findings.ts";
import type { MetricsFile } from "../../steps/eval/steps.ts";

const em = (v: number): MetricsFile => ({ split: "test", aggregate: { metrics: { em: v, "oracle-em@10": v }, n: 100 } }) as unknown as MetricsFile;

const files = new Map<string, MetricsFile>();
const put = (name: string, vs: readonly number[]) => vs.forEach((v, i) => files.set(`${name}_${i + 1}`, em(v)));
// Weak readers far under their ceilings: gains +0.5, -1.0, +1.0 points.
put("weak_ibn", [0.02, 0.03, 0.025]);
put("weak_ihn", [0.025, 0.02, 0.035]);
// Strong readers near theirs: gains +10, +8, +12 points.
put("strong_ibn", [0.3, 0.31, 0.29]);
put("strong_ihn", [0.4, 0.39, 0.41]);
// The ceilings: IHN's passages allow 10 points more than IBN's, for every seed.
put("ceil_ibn", [0.4, 0.4, 0.4]);
put("ceil_ihn", [0.5, 0.5, 0.5]);
const look = lookupIn(files);
const op = (name: string, metric = "em") => ({ inputs: [1, 2, 3].map((s) => `${name}_${s}`), metric });
const claim = (reader: string): ClaimSpec => ({
  id: `c-${reader}`, title: "t", paper: "p", measure: "m", threshold: 0, direction: "above", unit: "points",
  rule: { kind: "gain", better: op(`${reader}_ihn`), worse: op(`${reader}_ibn`) },
  ceiling: { better: op("ceil_ihn", "oracle-em@10"), worse: op("ceil_ibn", "oracle-em@10"), label: "oracle EM@10" },
});
const round = (x: number | null | undefined, d = 6) => (x == null ? x : Math.round(x * 10 ** d) / 10 ** d);

test("readers at 5.7% of their ceilings: a 10-point ceiling gap would show as +0.57 points, under the 1.75 that 3 seeds resolve", () => {
  const f = checkClaim(claim("weak"), look, []);
  assert.equal(f.verdict, "inconclusive");
  const c = f.ceiling!;
  assert.equal(round(c.gap), 10);
  // shares 0.045 / 0.9, 0.05 / 0.9, 0.06 / 0.9; expected gains 0.5, 0.5556, 0.6667 points
  assert.equal(round(c.share), round((0.05 + 0.05 / 0.9 + 0.06 / 0.9) / 3));
  assert.equal(round(c.expected), round((0.5 + 0.5 / 0.9 + 0.6 / 0.9) / 3));
  // the gains' sd is sqrt(13/12) = 1.040833; 2.920 x 1.040833 / sqrt(3) = 1.754702
  assert.equal(round(c.resolvable), 1.754702);
  assert.equal(c.measurable, false);
  assert.equal(c.text, "ceiling (oracle EM@10): the better side's +10.0 points over the other's; the two reach 5.7% of their ceilings, so a gain in that proportion would be +0.6 points, below the 1.8 points that 3 seeds resolve: not measurable at this ceiling");
});

test("readers at 78% of their ceilings: the same gap would show as +7.8 points, above the 3.4 that 3 seeds resolve", () => {
  const c = checkClaim(claim("strong"), look, []).ceiling!;
  assert.equal(round(c.share), round(0.7 / 0.9));
  assert.equal(round(c.expected), round((10 * 0.7) / 0.9));
  assert.equal(round(c.resolvable), round((2.92 * 2) / Math.sqrt(3))); // sd of 10, 8, 12 is 2
  assert.equal(c.measurable, true);
  assert.match(c.text, /above the 3\.4 points that 3 seeds resolve: measurable at this ceiling$/);
});

test("one seed: no spread to compare with; the ceiling inputs are the claim's inputs; the text reaches both Markdown renderings", () => {
  const one: ClaimSpec = { ...claim("weak"), rule: { kind: "gain", better: { inputs: ["weak_ihn_1"], metric: "em" }, worse: { inputs: ["weak_ibn_1"], metric: "em" } }, ceiling: { better: { inputs: ["ceil_ihn_1"], metric: "oracle-em@10" }, worse: { inputs: ["ceil_ibn_1"], metric: "oracle-em@10" }, label: "L" } };
  const f = checkClaim(one, look, []);
  assert.equal(f.ceiling!.resolvable, null);
  assert.equal(f.ceiling!.measurable, null);
  assert.match(f.ceiling!.text, /no spread over seeds to compare it with$/);
  assert.deepEqual(inputsOf(one), ["weak_ihn_1", "weak_ibn_1", "ceil_ihn_1", "ceil_ibn_1"]);
  const file = { schema: "cspipe.findings/1" as const, data: "mini", claims: [f] };
  assert.match(findingsMarkdown(file), /\| holds \(ceiling \(L\): .*no spread over seeds to compare it with\) \|$/m);
  const parsed = parseFindings(JSON.stringify({ ...file, claims: [{ ...f, evidence: [] }] }), "findings.json");
  assert.match(reportMarkdown(parsed, () => undefined), /^- Ceiling: ceiling \(L\): /m);
});

test("only a gain claim takes a ceiling", () => {
  const bad = { ...claim("weak"), rule: { kind: "ratio", num: op("weak_ihn"), den: op("weak_ibn") } };
  const r = claimSpecSchema.safeParse(bad);
  assert.equal(r.success, false);
  assert.deepEqual(r.error!.issues[0]!.path, ["ceiling"]);
  assert.equal(claimSpecSchema.safeParse(claim("weak")).success, true);
});

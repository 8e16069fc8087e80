/**
 * table-dcsr's and ablation-dcsr's findings (pipeline/definitions/dcsr/findings.ts): the claims
 * read the very evaluations the tables' cells are made of, over the DCSR setup's seeds; a
 * gain-difference claim on hand-made metrics gives the exact value.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { AnyStep } from "../../pipeline/engine/step.ts";
import { buildTargets } from "../../pipeline/definitions/index.ts";
import { checkClaim, lookupIn } from "../../steps/findings/claims.ts";
import type { MetricsFile } from "../../steps/eval/steps.ts";
import type { ClaimSpec } from "../../steps/findings/claims.ts";
import { wiredInputs } from "../../pipeline/engine/wiring.ts";

const inputsOf = (s: AnyStep) => new Set(wiredInputs(s).map((w) => w.ref.step));

for (const [target, table, findings, ids] of [
  ["table-dcsr", "render-table-dcsr", "check-findings-table-dcsr", ["qrecc", "topiocqa", "orquac"].flatMap((d) => [`dcsr-beats-dpr-ibn-${d}`, `dcsr-ihn-beats-dcsr-${d}`, ...(d === "orquac" ? [] : [`dcsr-gain-larger-on-switch-${d}`])])],
  ["ablation-dcsr", "render-ablation-dcsr", "check-findings-ablation-dcsr", ["nq", "qrecc", "topiocqa", "orquac"].flatMap((d) => [`in-passage-helps-${d}`, ...(d === "qrecc" || d === "topiocqa" ? [`in-passage-helps-switch-most-${d}`] : [])])],
] as const) {
  test(`${target} checks its findings over the evaluations its table reads`, () => {
    const steps = buildTargets().get(target)!.steps({ data: "mini", overrides: { "dcsr.seeds": [1, 2] } });
    const f = steps.find((s) => s.name === findings)!;
    const cells = inputsOf(steps.find((s) => s.name === table)!);
    for (const e of inputsOf(f)) assert.ok(cells.has(e), `${e.name} is a ${target} cell`);
    assert.deepEqual((f.params as { claims: ClaimSpec[] }).claims.map((c) => c.id), ids);
    // every conversational operand pairs two seeds; mini-nq has θ0's one
    for (const c of (f.params as { claims: ClaimSpec[] }).claims) {
      const r = c.rule as { better?: { inputs: string[] }; a?: { better: { inputs: string[] } } };
      const n = (r.better ?? r.a!.better).inputs.length;
      assert.equal(n, c.id.endsWith("-nq") ? 1 : 2, c.id);
    }
  });
}

test("the blind-spot claim is the switch-turn gain minus the no-switch gain, paired by seed", () => {
  const steps = buildTargets().get("table-dcsr")!.steps({ data: "mini", overrides: { "dcsr.seeds": [1, 2] } });
  const claim = (steps.find((s) => s.name === "check-findings-table-dcsr")!.params as { claims: ClaimSpec[] }).claims.find((c) => c.id === "dcsr-gain-larger-on-switch-qrecc")!;
  const m = (sw: number, no: number): MetricsFile =>
    ({ split: "test", aggregate: { metrics: { "recall@10": 0 }, n: 10 }, byQuestionType: { groups: [{ group: "switch", metrics: { "recall@10": sw }, n: 5 }, { group: "no-switch", metrics: { "recall@10": no }, n: 5 }] } }) as unknown as MetricsFile;
  // seed 1: DCSR - IBN = 0.1 on switch, -0.1 on no-switch -> 20 points; seed 2: 0 and 0 -> 0 points
  const files = new Map<string, MetricsFile>([
    ["qrecc_dcsr_s1", m(0.3, 0.4)], ["qrecc_dpr_ibn_s1", m(0.2, 0.5)],
    ["qrecc_dcsr_s2", m(0.3, 0.5)], ["qrecc_dpr_ibn_s2", m(0.3, 0.5)],
  ]);
  const r = checkClaim(claim, lookupIn(files), []);
  assert.ok(Math.abs(r.value! - 10) < 1e-9, String(r.value));
  assert.equal(r.verdict, "inconclusive");
});

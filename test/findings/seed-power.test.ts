/**
 * The seed-count simulation (steps/findings/seed-power.ts) against what the verdict rule implies
 * analytically, and scripts/claim-seeds.ts and scripts/compare-findings.ts on hand-written findings files.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { agreementAt, pooledNoise, seedsFor } from "../../steps/findings/seed-power.ts";
import { averaged, claimSeedsReport } from "../../scripts/claim-seeds.ts";
import { parseFindings, type Claim } from "../../steps/report/findings.ts";
import { compareFindings, readClaims } from "../../scripts/compare-findings.ts";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../tmp.ts";

test("no spread: every run reaches the verdict of the mean itself", () => {
  assert.deepEqual(agreementAt({ mean: 0.6, sd: 0, threshold: 0.5, direction: "at-most" }, 4, 100, 1), { n: 4, agree: 1, conclusive: 1 });
});

test("a mean on its threshold: each side's one-sided 5% error, so 10% conclusive and 0.9² + 2·0.05² agreement", () => {
  const a = agreementAt({ mean: 0, sd: 1, threshold: 0, direction: "at-least" }, 5, 40000, 7);
  assert.ok(Math.abs(a.conclusive - 0.1) < 0.01, `conclusive ${a.conclusive}`);
  assert.ok(Math.abs(a.agree - 0.815) < 0.01, `agree ${a.agree}`);
});

test("seeded: the same seed gives the same figures; more seeds settle a claim one sd from its threshold", () => {
  const noise = { mean: 1, sd: 1, threshold: 0, direction: "above" as const };
  assert.deepEqual(agreementAt(noise, 6, 500, 3), agreementAt(noise, 6, 500, 3));
  const { fewest, table } = seedsFor(noise, 0.95, 3, 18, 4000, 1);
  assert.ok(table[0]!.agree < 0.6 && table[table.length - 1]!.agree > 0.95, table.map((a) => a.agree).join(" "));
  assert.equal(fewest, table.find((a) => a.agree >= 0.95)!.n);
  assert.throws(() => agreementAt(noise, 1, 10, 1), /at least 2 seeds/);
});

test("pooled noise: the runs' means averaged and their sample variances pooled", () => {
  const p = pooledNoise([[1, 2, 3], [2, 4, 6]], 0.5, "at-most");
  assert.equal(p.mean, 3);
  assert.equal(p.sd, Math.sqrt(2.5));
  assert.throws(() => pooledNoise([[1]], 0, "above"), /two or more seeds/);
});

const claim = (id: string, perSeed: number[], verdict: Claim["verdict"], decision?: object): Claim =>
  ({ id, title: id, paper: "p", measure: "m", value: null, sd: null, seeds: perSeed.length, unit: "ratio", threshold: "<= 0.50", verdict, evidence: [], perSeed, ...(decision === undefined ? {} : { decision }) }) as Claim;
const run = (file: string, claims: Claim[]) => ({ file, claims: new Map(claims.map((c) => [c.id, c])) });
const atMost = { rule: "ratio", threshold: 0.5, direction: "at-most" };

test("a rise: every step must hold, so a clear rise with one step on its threshold is conclusive as seldom as that step", () => {
  const clear = { mean: 10, sd: 1, threshold: 0, direction: "above" as const };
  assert.deepEqual(agreementAt({ steps: [clear, clear] }, 5, 200, 3), { n: 5, agree: 1, conclusive: 1 });
  // Step 2 -> 3 at 0 ± 1: holds 5% of the time, does not hold 5%: 10% conclusive, as for that step alone.
  const a = agreementAt({ steps: [clear, { ...clear, mean: 0 }] }, 5, 40000, 11);
  assert.ok(Math.abs(a.conclusive - 0.1) < 0.01, `conclusive ${a.conclusive}`);
  assert.ok(Math.abs(a.agree - 0.815) < 0.01, `agree ${a.agree}`);
});

test("claim-seeds sizes a rise step by step, and names a file whose rise has no steps", () => {
  const rise = { rule: "rise", threshold: 0, direction: "above" };
  const withSteps = (steps: number[][], verdict: Claim["verdict"]): Claim => ({ ...claim("iterations", steps[0]!.map((_, i) => steps.reduce((t, xs) => t + xs[i]!, 0)), verdict, rise), steps }) as Claim;
  const a = run("a.json", [withSteps([[12, 13, 11], [-2.1, 0.5, 3.2]], "inconclusive")]);
  const b = run("b.json", [withSteps([[10, 11, 12], [2.5, 4.4, 4.4]], "holds")]);
  const md = claimSeedsReport([a, b], { target: 0.95, max: 8, trials: 2000 });
  assert.match(md, /## iterations/);
  assert.match(md, /each step simulated on its own \(every step must hold\), step 1 -> 2: mean 11\.50, sd 1\.00; step 2 -> 3: mean 2\.150, sd 2\.03;/);
  assert.match(md, /\| 8 \| 0\.[0-9]+ \|/);
  const old = run("old.json", [claim("iterations", [10, 12], "inconclusive", rise)]);
  assert.throws(() => claimSeedsReport([old, b], { target: 0.95, max: 5, trials: 10 }), /old\.json: claim iterations is a rise without "steps".*Fix: rerun its check-findings step/);
});

test("claim-seeds sizes the claims whose verdicts differ, and names a file without the rule in numbers", () => {
  const a = run("a.json", [claim("flips", [0.62, 0.68, 0.5], "inconclusive", atMost), claim("same", [0.3, 0.31, 0.29], "holds", atMost)]);
  const b = run("b.json", [claim("flips", [0.59, 0.66, 0.6], "does-not-hold", atMost), claim("same", [0.3, 0.32, 0.3], "holds", atMost)]);
  const md = claimSeedsReport([a, b], { target: 0.95, max: 12, trials: 2000 });
  assert.match(md, /## flips/);
  assert.doesNotMatch(md, /## same/);
  assert.match(md, /verdicts inconclusive \/ does-not-hold/);
  assert.match(md, /\| 12 \| 1\.00 \|/);
  const old = run("old.json", [claim("flips", [0.6, 0.7], "inconclusive")]);
  assert.throws(() => claimSeedsReport([old, b], { target: 0.95, max: 5, trials: 10 }), /old\.json: claim flips has no "decision".*Fix: rerun its check-findings step/);
  assert.match(claimSeedsReport([b, b], { target: 0.95, max: 5, trials: 10 }), /No claim's verdict differs/);
});

test("claim-seeds --replicates: M fine-tunings per θ0 divide each value's sd by sqrt(M), and n counts θ0s", () => {
  const noise = { mean: 0.56, sd: 0.08, threshold: 0.5, direction: "at-most" as const };
  assert.deepEqual(averaged(noise, 4), { ...noise, sd: 0.04 });
  assert.deepEqual(averaged({ steps: [noise, { ...noise, sd: 2 }] }, 4), { steps: [{ ...noise, sd: 0.04 }, { ...noise, sd: 1 }] });
  const a = run("a.json", [claim("flips", [0.62, 0.68, 0.5], "inconclusive", atMost)]);
  const b = run("b.json", [claim("flips", [0.59, 0.66, 0.6], "does-not-hold", atMost)]);
  const agreeAt = (md: string, n: number): number => Number(new RegExp(`\\| ${n} \\| ([0-9.]+) \\|`).exec(md)![1]);
  const one = claimSeedsReport([a, b], { target: 0.95, max: 6, trials: 4000 });
  const three = claimSeedsReport([a, b], { target: 0.95, max: 6, trials: 4000, replicates: 3 });
  assert.match(three, /Simulated as 3 fine-tunings per θ0, averaged \(sd \/ sqrt\(3\); θ0's own variance taken as 0\): n counts θ0s\./);
  assert.match(three, /\| θ0s \| P\(two runs agree\) \|/);
  assert.ok(agreeAt(three, 4) > agreeAt(one, 4), `${agreeAt(three, 4)} > ${agreeAt(one, 4)}`);
});

test("a findings file whose rule is malformed is refused by the findings schema, naming the file and the field", () => {
  const file = (decision: object) => JSON.stringify({ schema: "cspipe.findings/1", data: "mini", claims: [{ ...claim("flips", [0.6, 0.7], "inconclusive"), decision }] });
  assert.equal(parseFindings(file(atMost), "ok.json").claims[0]!.decision?.threshold, 0.5);
  assert.throws(() => parseFindings(file({ ...atMost, threshold: "0.5" }), "bad.json"), (e: Error) => /bad\.json/.test(e.message) && /decision\.threshold/.test(e.message));
  assert.throws(() => parseFindings(file({ ...atMost, direction: "below" }), "bad.json"), (e: Error) => /decision\.direction/.test(e.message));
});

test("compare-findings: values as the findings print them, each flip counted; files read through the findings schema", () => {
  const dir = tempDir("compare-findings-");
  const write = (name: string, claims: object[]) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify({ schema: "cspipe.findings/1", data: "mini", claims }));
    return path;
  };
  const valued = (id: string, unit: Claim["unit"], value: number, sd: number | null, verdict: Claim["verdict"]) => ({ ...claim(id, [value], verdict), unit, value, sd });
  const a = write("a.json", [valued("ratio", "ratio", 0.591, 0.07, "does-not-hold"), valued("gain", "fraction", 0.0244, 0.0391, "holds"), valued("pct", "percent", 58.25, null, "holds")]);
  const b = write("b.json", [valued("ratio", "ratio", 0.594, 0.11, "does-not-hold"), valued("gain", "fraction", -0.0012, 0.02, "inconclusive")]);
  const r = compareFindings(readClaims(a), readClaims(b), ["pinned", "Prescott"]);
  assert.equal(r.flips, 2);
  assert.equal(r.markdown, [
    "| claim | pinned | Prescott | verdict pinned | verdict Prescott | same verdict |",
    "|---|---:|---:|---|---|---|",
    "| ratio | 0.59 ± 0.07 | 0.59 ± 0.11 | does-not-hold | does-not-hold | yes |",
    "| gain | +0.024 ± 0.039 | -0.001 ± 0.020 | holds | inconclusive | **no** |",
    "| pct | 58.3 | - | holds | - | **no** |",
    "",
    "3 claims, 2 verdicts differ.",
  ].join("\n"));
  const bad = write("bad.json", [{ ...valued("ratio", "ratio", 0.5, null, "holds"), verdict: "maybe" }]);
  assert.throws(() => readClaims(bad), (e: Error) => /bad\.json/.test(e.message) && /verdict/.test(e.message));
});

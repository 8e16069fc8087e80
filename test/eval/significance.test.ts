import { test } from "node:test";
import assert from "node:assert/strict";
import { logGamma, regularizedIncompleteBeta, studentTCdf, studentTTwoSided } from "../../steps/eval/special-functions.ts";
import { bootstrapInterval, holm, pairedRandomizationTest, pairedTTest } from "../../steps/eval/significance.ts";

const near = (actual: number, expected: number, tol: number, what = ""): void => {
  assert.ok(Math.abs(actual - expected) <= tol, `${what} expected ${expected}, got ${actual} (tolerance ${tol})`);
};

test("log gamma: factorials and Γ(1/2) = √π", () => {
  near(logGamma(1), 0, 1e-14);
  near(logGamma(5), Math.log(24), 1e-13);
  near(logGamma(0.5), 0.5 * Math.log(Math.PI), 1e-14);
  near(logGamma(10.5), Math.log(1133278.38894878), 1e-12); // Γ(10.5) = 9.5 · 8.5 · ... · 0.5 · √π
  near(logGamma(171), 706.5730622457874, 1e-9);
});

test("regularized incomplete beta against closed forms", () => {
  for (const x of [0, 1e-8, 0.1, 0.37, 0.5, 0.9, 0.999999, 1]) {
    near(regularizedIncompleteBeta(x, 1, 1), x, 1e-14, `I_${x}(1,1)`);
    near(regularizedIncompleteBeta(x, 3, 1), x ** 3, 1e-14, `I_${x}(3,1)`);
    near(regularizedIncompleteBeta(x, 1, 4), 1 - (1 - x) ** 4, 1e-14, `I_${x}(1,4)`);
    // I_x(2, 2) = 3x² - 2x³.
    near(regularizedIncompleteBeta(x, 2, 2), 3 * x ** 2 - 2 * x ** 3, 1e-14, `I_${x}(2,2)`);
  }
  near(regularizedIncompleteBeta(0.5, 7.5, 7.5), 0.5, 1e-14);
  near(regularizedIncompleteBeta(0.3, 200, 0.5), 0, 1e-30); // far tail: no underflow trouble
  assert.throws(() => regularizedIncompleteBeta(1.5, 1, 1), RangeError);
  assert.throws(() => regularizedIncompleteBeta(0.5, 0, 1), RangeError);
});

test("Student's t: closed forms for 1, 2 and 3 degrees of freedom, and printed quantiles", () => {
  for (const t of [0, 0.3, 1, 2.5, 12.7]) {
    near(studentTTwoSided(t, 1), 1 - (2 / Math.PI) * Math.atan(t), 1e-14, `ν=1 t=${t}`);
    near(studentTTwoSided(t, 2), 1 - t / Math.sqrt(2 + t * t), 1e-14, `ν=2 t=${t}`);
    const u = t / Math.sqrt(3);
    near(studentTTwoSided(t, 3), 1 - (2 / Math.PI) * (Math.atan(u) + u / (1 + u * u)), 1e-14, `ν=3 t=${t}`);
  }
  // Two-sided 5% and 1% critical values of t tables.
  near(studentTTwoSided(2.2281388519649385, 10), 0.05, 1e-10);
  near(studentTTwoSided(2.042272456301238, 30), 0.05, 1e-10);
  near(studentTTwoSided(4.032142983557536, 5), 0.01, 1e-10);
  near(studentTTwoSided(1.959963984540054, 1e9), 0.05, 1e-7); // large ν tends to the normal
  near(studentTCdf(-1, 1), 0.25, 1e-15);
  near(studentTCdf(1, 1), 0.75, 1e-15);
});

// Tiny paired sample: a = [1, 2, 3, 4], b = [2, 4, 5, 4] -> d = [1, 2, 2, 0].
const A = [1, 2, 3, 4];
const B = [2, 4, 5, 4];

test("paired t-test, hand-computed", () => {
  // mean 1.25, sd = sqrt(2.75 / 3), t = 1.25 / (sd / 2) = 2.6111648..., ν = 3.
  const r = pairedTTest(A, B);
  const sd = Math.sqrt(2.75 / 3);
  near(r.t, 1.25 / (sd / 2), 1e-12);
  assert.equal(r.df, 3);
  const u = r.t / Math.sqrt(3);
  near(r.p, 1 - (2 / Math.PI) * (Math.atan(u) + u / (1 + u * u)), 1e-13);
  near(r.p, 0.0796, 5e-5); // 0.07959...
  near(pairedTTest(B, A).p, r.p, 1e-15); // symmetric
  assert.equal(pairedTTest([1, 2], [1, 2]).p, 1); // no difference at all
  assert.equal(pairedTTest([1, 2], [2, 3]).p, 0); // constant non-zero difference
  assert.ok(Number.isNaN(pairedTTest([1], [2]).p)); // one pair: no test
});

test("randomization test: exact enumeration on a tiny sample, seeded Monte Carlo otherwise", () => {
  // Sign flips of d = [1, 2, 2, 0]: sums ±1 ±2 ±2 (the 0 doubles every case) = 5, 1, 1, -3, 3, -1, -1, -5;
  // |sum| >= 5 in 2 of 8: p = 0.25.
  const r = pairedRandomizationTest(A, B);
  assert.equal(r.exact, true);
  assert.equal(r.trials, 16);
  assert.equal(r.p, 0.25);
  assert.equal(r.meanDiff, 1.25);
  // 14 pairs: exact needs 16,384 assignments; with 5,000 random ones the estimate is close.
  const a = [0.1, 0.5, 0.2, 0.9, 0.3, 0.4, 0.8, 0.0, 0.6, 0.7, 0.2, 0.1, 0.5, 0.3];
  const b = [0.3, 0.5, 0.4, 1.0, 0.2, 0.7, 0.9, 0.1, 0.6, 0.9, 0.5, 0.0, 0.8, 0.4];
  const exact = pairedRandomizationTest(a, b, { trials: 20_000 });
  assert.equal(exact.exact, true);
  const mc = pairedRandomizationTest(a, b, { trials: 5000, seed: 7 });
  assert.equal(mc.exact, false);
  near(mc.p, exact.p, 0.01);
  assert.equal(pairedRandomizationTest(a, b, { trials: 5000, seed: 7 }).p, mc.p); // same seed, same p
  assert.ok(mc.p > 0);
});

test("Holm: step-down adjustment, monotone, NaN left out", () => {
  assert.deepEqual(holm([0.01, 0.04, 0.03, Number.NaN]).map((p) => (Number.isNaN(p) ? "NaN" : Number(p.toFixed(10)))), [0.03, 0.06, 0.06, "NaN"]);
  assert.deepEqual(holm([0.5, 0.6]), [1, 1]);
  assert.deepEqual(holm([]), []);
});

test("bootstrap percentile interval is seeded and brackets the statistic", () => {
  const xs = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  const meanOf = (idx: Uint32Array) => idx.reduce((s, i) => s + xs[i]!, 0) / idx.length;
  const ci = bootstrapInterval(xs.length, meanOf, { samples: 2000, seed: 3 });
  assert.ok(ci.low < 5.5 && ci.high > 5.5 && ci.low > 3 && ci.high < 8, JSON.stringify(ci));
  assert.deepEqual(bootstrapInterval(xs.length, meanOf, { samples: 2000, seed: 3 }), ci);
  assert.equal(ci.kept, 2000);
});

// The pruned scorer adds a document's clause scores in the order it meets them, the exhaustive
// scorer in clause order: sumsAreOrderFree decides, per query, when both give the same double.
// Checked: the ulp bound against float32 bit patterns, sums in many orders whenever the check
// passes, a case where the order does change the sum (the check must refuse it), and the searcher
// falling back to exhaustive scoring for such a query with the same hits.
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildIndexSync } from "../../steps/sparse/index.ts";
import { Searcher } from "../../steps/sparse/search.ts";
import { float32UlpFloor, maxNormByte, sumsAreOrderFree } from "../../steps/sparse/sum-order.ts";
import { mulberry32 as rng } from "../../steps/lib/prng.ts";

const f = Math.fround;

/** The exact ulp of a positive float32 value, from its bits. */
function ulp32(x: number): number {
  const b = new Float32Array([x]);
  const u = new Uint32Array(b.buffer);
  const next = new Float32Array(new Uint32Array([u[0]! + 1]).buffer)[0]!;
  return next - b[0]!;
}

test("float32UlpFloor is a power of two no larger than the ulp of any float32 >= x", () => {
  const r = rng(3);
  const xs = [2 ** -149, 2 ** -126, 1, 2, f(2 - 2 ** -23), 0.5, f(1 / 3), 3e38];
  for (let i = 0; i < 20_000; i++) xs.push(f(2 ** (r() * 250 - 140)));
  for (const x of xs) {
    if (!(x > 0)) continue;
    const u = float32UlpFloor(x);
    assert.equal(2 ** Math.round(Math.log2(u)), u, `power of two for ${x}`);
    assert.ok(u <= ulp32(x), `ulp floor ${u} > ulp ${ulp32(x)} of ${x}`);
    assert.ok(u * 4 >= ulp32(x) || u === 2 ** -149, `bound ${u} far below ${ulp32(x)} for ${x}`);
  }
});

test("when the check passes, clause scores sum to the same double in every order", () => {
  const r = rng(11);
  let passed = 0;
  for (let trial = 0; trial < 3000; trial++) {
    const m = 1 + Math.floor(r() * 16);
    const weights = Array.from({ length: m }, () => f(2 ** (r() * 30 - 20)));
    const minNormInverse = f(2 ** (r() * 24 - 20));
    if (!sumsAreOrderFree(weights, m, minNormInverse)) continue;
    passed++;
    const y = f(1 + minNormInverse);
    // clause scores anywhere between the clause's smallest and largest score (float32)
    const scores = weights.map((w) => {
      const lo = f(w - f(w / y));
      return r() < 0.3 ? lo : r() < 0.1 ? w : f(lo + (w - lo) * r());
    });
    const inOrder = scores.reduce((a, s) => a + s, 0);
    for (let p = 0; p < 5; p++) {
      const shuffled = [...scores].sort(() => r() - 0.5);
      assert.equal(
        shuffled.reduce((a, s) => a + s, 0),
        inOrder,
        `${JSON.stringify(weights)} ${minNormInverse}`,
      );
    }
  }
  assert.ok(passed > 1000, `only ${passed} passing trials`);
});

test("the check refuses clause scores whose sum depends on the order", () => {
  // 1 + 2^-53 + 2^-53: left to right 1 (each addition rounds to even), the small ones first 1 + 2^-52
  assert.notEqual(1 + 2 ** -53 + 2 ** -53, 2 ** -53 + 2 ** -53 + 1);
  // weights 1 and a clause whose smallest score is about 2^-53
  const tiny = 2 ** -52;
  assert.equal(sumsAreOrderFree([1, tiny], 2, 1), false);
  assert.equal(sumsAreOrderFree([1, 0.5], 2, 1), true);
  assert.equal(sumsAreOrderFree([0, 0], 2, 1), true);
  assert.equal(sumsAreOrderFree([1, NaN], 2, 1), false);
  // a norm factor so small that 1 + it rounds to 1: the smallest score is 0, nothing bounds the others
  assert.equal(sumsAreOrderFree([3], 1, 2 ** -30), false);
  assert.equal(maxNormByte(new Uint8Array([3, 200, 7])), 200);
  assert.equal(maxNormByte(new Uint8Array(0)), 0);
});

test("a query whose sums depend on the order is scored exhaustively, with the same hits", () => {
  // a term in every passage (idf ~ 1e-3) and k1 = 1e6 (norm factors ~ 1e-6): clause scores ~ 1e-9 beside ~ 10
  const r = rng(5);
  const words = ["common", "alpha", "beta", "gamma", "delta", "rare"];
  const docs = Array.from({ length: 400 }, (_, i) => ({
    id: `d${i}`,
    text: ["common", ...Array.from({ length: 1 + Math.floor(r() * 30) }, () => words[Math.floor(r() * 5) + (r() < 0.02 ? 1 : 0)]!)].join(" "),
  }));
  const index = buildIndexSync(docs, { blockSize: 8 });
  const odd = new Searcher(index, { k1: 1e6, b: 0.75 });
  assert.ok(odd.prunes);
  for (const q of ["common rare", "common alpha beta", "rare gamma common delta"]) {
    for (const k of [1, 5, 50]) assert.deepEqual(odd.search(q, k), odd.searchExhaustive(q, k), `${q} k=${k}`);
  }
  assert.ok(odd.stats!.orderFallbacks > 0, JSON.stringify(odd.stats));
  const usual = new Searcher(index, { k1: 0.82, b: 0.68 });
  for (const q of ["common rare", "common alpha beta"]) assert.deepEqual(usual.search(q, 10), usual.searchExhaustive(q, 10));
  assert.equal(usual.stats!.orderFallbacks, 0);
});

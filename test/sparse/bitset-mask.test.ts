// The bitset mask of the pruned search (steps/sparse/window-mask.ts, WindowMask.build): documents
// that lack a required clause, or hold too few of the other clauses to reach θ, are not made
// candidates. The hits stay exactly the exhaustive scorer's, and the mask does rule documents out.
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildIndexSync } from "../../steps/sparse/index.ts";
import { Searcher } from "../../steps/sparse/search.ts";
import { collection, queries } from "./random-collection.ts";

const params = { k1: 0.82, b: 0.68 };

test("with the bitset mask, pruned search returns the exhaustive hits and rules out postings", () => {
  const index = buildIndexSync(collection(4000, 21), { blockSize: 16 });
  const withSets = new Searcher(index, params);
  const without = new Searcher(index, params, { bitsetBudgetBytes: 0 });
  // each query twice: the first pass makes the lookups that build the bitsets, the second uses them
  const qs = queries(200, 23);
  for (const pass of [0, 1]) {
    for (const [qi, q] of qs.entries()) {
      const k = [1, 10, 100][qi % 3]!;
      const exact = without.searchExhaustive(q, k);
      assert.deepEqual(withSets.search(q, k), exact, `pass ${pass} k=${k} "${q}"`);
      assert.deepEqual(without.search(q, k), exact, `no bitsets, pass ${pass} k=${k} "${q}"`);
    }
  }
  const a = withSets.stats!;
  const b = without.stats!;
  assert.equal(b.masked, 0, "no bitsets, no mask");
  assert.ok(a.masked > 1000, `${a.masked} postings masked`);
  assert.ok(a.candidates < b.candidates, `candidates ${a.candidates} with the mask, ${b.candidates} without`);
});

test("a document that ties θ without a clause is kept: the mask rules out only scores strictly below θ", () => {
  // every document has three tokens (one norm), so a clause's window maximum is its score in any
  // document, and documents of one kind tie: x y z (400), x y (400), x z (400), y z (400), x (400).
  // At k = 450, θ is the y z score, which is exactly the maxima of the clauses other than x: x is not
  // required, and the y z documents that win the tie on their ids must stay candidates. At k = 850,
  // θ is the x y (= x z) score, with the same tie for z (and y).
  const kinds = ["x y z", "x y pad", "x z pad", "y z pad", "x pad pad"];
  const n = 2000;
  const docs = Array.from({ length: n }, (_, i) => ({ id: `p${String((i * 7919) % n).padStart(4, "0")}`, text: kinds[i % 5]! }));
  const index = buildIndexSync(docs, { blockSize: 8 });
  const s = new Searcher(index, params);
  const plain = new Searcher(index, params, { bitsetBudgetBytes: 0 });
  for (let pass = 0; pass < 4; pass++) {
    for (const q of ["x y z", "z y x", "x y z z"]) {
      for (const k of [10, 450, 850, 1300]) assert.deepEqual(s.search(q, k), plain.searchExhaustive(q, k), `pass ${pass} k=${k} "${q}"`);
    }
  }
  assert.ok(s.stats!.masked > 0, `${s.stats!.masked} postings masked`);
});

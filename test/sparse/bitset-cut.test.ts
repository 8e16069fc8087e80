// The bitset bound of new candidates (steps/sparse/bitset-cut.ts): a posting whose document is not
// yet a candidate makes none when its score plus the maxima of the later clauses the document holds
// (by their bitsets) is below θ. The hits stay exactly the exhaustive scorer's, the rule does cut,
// and (the rule as numbered cases) a document that reaches θ exactly through the clauses it holds
// is kept.
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildIndexSync } from "../../steps/sparse/index.ts";
import { BitsetCut } from "../../steps/sparse/bitset-cut.ts";
import { Searcher } from "../../steps/sparse/search.ts";
import { collection, queries } from "./random-collection.ts";

const params = { k1: 0.82, b: 0.68 };

test("with the bitset cut, pruned search returns the exhaustive hits and cuts postings", () => {
  for (const blockSize of [8, 128]) {
    const index = buildIndexSync(collection(4000, 31), { blockSize });
    const withSets = new Searcher(index, params);
    const without = new Searcher(index, params, { bitsetBudgetBytes: 0 });
    // each query twice: the first pass makes the lookups that build the bitsets, the second uses them
    const qs = queries(200, 33);
    for (const pass of [0, 1]) {
      for (const [qi, q] of qs.entries()) {
        const k = [1, 10, 100, 1000][qi % 4]!;
        const exact = without.searchExhaustive(q, k);
        assert.deepEqual(withSets.search(q, k), exact, `block size ${blockSize}, pass ${pass} k=${k} "${q}"`);
        assert.deepEqual(without.search(q, k), exact, `no bitsets, block size ${blockSize}, pass ${pass} k=${k} "${q}"`);
      }
    }
    const a = withSets.stats!;
    const b = without.stats!;
    assert.equal(b.bitsetCut, 0, "no bitsets, no bitset cut");
    assert.ok(a.bitsetCut > 1000, `block size ${blockSize}: ${a.bitsetCut} postings cut by bitsets`);
    assert.ok(a.candidates < b.candidates, `candidates ${a.candidates} with bitsets, ${b.candidates} without`);
  }
});

// The rule as cases, on BitsetCut alone. Four clauses, θ = 5:
//   clause 0: window max 1, non-essential, bitset A;   clause 1: window max 2, non-essential, no bitset;
//   clause 2: window max 3, essential rank 0, bitset B; clause 3: window max 4, essential rank 1, bitset C.
// Document d holds the clauses whose bitsets have bit d (documents 0..63).
const wmax = Float64Array.from([1, 2, 3, 4]);
const ord = Int32Array.from([0, 1, 2, 3]); // ascending window max
const eOrd = Int32Array.from([2, 3]); // scan order
const sets = (docs: number[]): Int32Array => {
  const bits = new Int32Array(2);
  for (const d of docs) bits[d >>> 5]! |= 1 << (d & 31);
  return bits;
};
const A = sets([1, 3, 5, 40]);
const B = sets([3, 4, 5]);
const C = sets([1, 2, 40]);
const filters = [A, undefined, B, C];
const cursors = { filter: (i: number) => filters[i] };

function cutter(): BitsetCut {
  const bc = new BitsetCut();
  bc.ensure(4);
  assert.equal(bc.window(cursors, wmax, ord, eOrd, 2, 4), true);
  return bc;
}

test("bitset cut, rank 0: the later clauses are C, A and the bitset-less clause 1 (counted as held)", () => {
  const bc = cutter();
  assert.equal(bc.rank(0, 5), true);
  // 1. holds C and A: 0.5 + 2 + 4 >= 5 at once
  assert.equal(bc.mayReach(1, 0.5, 5), true);
  // 2. lacks C, holds A, s = 2: 2 + 2 + 1 = 5 ties θ: kept
  assert.equal(bc.mayReach(3, 2, 5), true);
  // 3. lacks C, holds A, s = 1.5: 1.5 + 2 + 1 < 5: cut (after C's bit, 1.5 + 2 + 1 is all it can hold)
  assert.equal(bc.mayReach(3, 1.5, 5), false);
  // 4. lacks C and A, s = 2.5: 2.5 + 2 < 5: cut
  assert.equal(bc.mayReach(0, 2.5, 5), false);
  // 5. lacks C and A, s = 3: 3 + 2 ties θ before any bit is read: kept
  assert.equal(bc.mayReach(0, 3, 5), true);
  // 6. holds C only, s = 0: 0 + 2 + 4 >= 5: kept
  assert.equal(bc.mayReach(2, 0, 5), true);
});

test("bitset cut, rank 1: the essential clause before it (B) is not counted, held or not", () => {
  const bc = cutter();
  assert.equal(bc.rank(1, 5), true);
  // 7. holds B, lacks A, s = 2.5: 2.5 + 2 < 5 (B's score is not the document's to gain here): cut
  assert.equal(bc.mayReach(4, 2.5, 5), false);
  // 8. holds A and B, s = 2: 2 + 2 + 1 ties θ: kept
  assert.equal(bc.mayReach(5, 2, 5), true);
  // 9. holds A, s = 1.9: 1.9 + 2 + 1 < 5: cut
  assert.equal(bc.mayReach(40, 1.9, 5), false);
});

test("bitset cut: no cut where the bitset-less clauses alone reach θ, nor without bitsets", () => {
  const bc = cutter();
  // 10. θ = 2: clause 1's maximum alone ties it, no posting can be cut
  assert.equal(bc.rank(0, 2), false);
  assert.equal(bc.rank(1, 2.5), true);
  // 11. no clause with a bitset (or only with window max 0): nothing to cut by
  const none = new BitsetCut();
  none.ensure(4);
  assert.equal(none.window({ filter: () => undefined }, wmax, ord, eOrd, 2, 4), false);
  assert.equal(none.window({ filter: () => A }, Float64Array.from([0, 0, 0, 0]), ord, eOrd, 2, 4), false);
});

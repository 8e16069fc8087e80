// Block-max MaxScore (Searcher.search) returns exactly what exhaustive scoring returns: the same
// passages, the same float32 scores, the same order (ties by passage id), on many random queries
// over a generated collection, for several block sizes, k and (k1, b), including b = 0 where
// every document has the same length norm and scores tie massively at the k-th place.
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildIndexSync } from "../../steps/sparse/index.ts";
import { Searcher } from "../../steps/sparse/search.ts";
import { collection, queries } from "./random-collection.ts";

const docs = collection(4000, 5);
const qs = queries(250, 9);

for (const blockSize of [4, 32, 128]) {
  test(`pruned search equals exhaustive search (block size ${blockSize})`, () => {
    const index = buildIndexSync(docs, { blockSize });
    let compared = 0;
    let prunedAway = 0;
    let tiesAtK = 0;
    let fallbacks = 0;
    let cut = 0;
    for (const params of [
      { k1: 0.82, b: 0.68 },
      { k1: 0.9, b: 0.4 },
      { k1: 1.2, b: 1 },
      { k1: 0.9, b: 0 },
    ]) {
      const s = new Searcher(index, params);
      assert.ok(s.prunes, `pruning enabled for ${JSON.stringify(params)}`);
      for (const [qi, q] of qs.entries()) {
        const k = [1, 3, 10, 100, 1000][qi % 5]!;
        const before = s.stats!.scored;
        const pruned = s.search(q, k);
        const scored = s.stats!.scored - before;
        const exact = s.searchExhaustive(q, k);
        assert.deepEqual(pruned, exact, `${JSON.stringify(params)} k=${k} "${q}"`);
        compared += exact.length;
        if (exact.length === k && k < 1000) {
          // documents the exhaustive scorer saw: every match of any term
          const matching = s.searchExhaustive(q, index.numDocs).length;
          if (scored < matching) prunedAway++;
          if (exact.length > 1 && exact[k - 1]!.score === exact[k - 2]!.score) tiesAtK++;
        }
      }
      fallbacks += s.stats!.orderFallbacks;
      cut += s.stats!.cut;
    }
    assert.equal(fallbacks, 0, "no query fell back to exhaustive scoring for its sums' order");
    assert.ok(compared > 50_000, `only ${compared} hits compared`);
    assert.ok(prunedAway > 300, `pruning skipped documents in only ${prunedAway} queries`);
    assert.ok(tiesAtK > 20, `only ${tiesAtK} queries with a tie at the k-th place`);
    assert.ok(cut > 1000, `only ${cut} postings made no new candidate`);
  });
}

test("pruned search equals exhaustive search with blocks of 1, 2 and 3 postings (lookup pointers at block edges)", () => {
  // Tiny blocks put every lookup next to a block boundary: a lookup block of one posting, a
  // document between two blocks, a pointer that passed over the document at the block's end.
  for (const blockSize of [1, 2, 3]) {
    const index = buildIndexSync(docs.slice(0, 1500), { blockSize });
    const s = new Searcher(index, { k1: 0.82, b: 0.68 });
    for (const [qi, q] of qs.slice(0, 80).entries()) {
      const k = [1, 5, 20, 100][qi % 4]!;
      assert.deepEqual(s.search(q, k), s.searchExhaustive(q, k), `block size ${blockSize} k=${k} "${q}"`);
    }
    assert.ok(s.stats!.lookups > 1000 && s.stats!.windowsSkipped > 0, JSON.stringify(s.stats));
  }
});

test("parameters that break the block bounds' premise fall back to exhaustive scoring", () => {
  const index = buildIndexSync(docs.slice(0, 500));
  // b > 1 makes the length normalisation negative for short documents: scores no longer fall with the norm
  const s = new Searcher(index, { k1: 0.9, b: 1.5 });
  assert.equal(s.prunes, false);
  assert.equal(s.stats, undefined);
  for (const q of qs.slice(0, 20)) assert.deepEqual(s.search(q, 10), s.searchExhaustive(q, 10));
});

test("k = 0, unknown terms and stop words only give no hits", () => {
  const s = new Searcher(buildIndexSync(docs.slice(0, 200)), { k1: 0.9, b: 0.4 });
  assert.deepEqual(s.search(qs[0]!, 0), []);
  assert.deepEqual(s.search("zzz qqq", 10), []);
  assert.deepEqual(s.search("the of and", 10), []);
});

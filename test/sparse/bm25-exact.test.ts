// Exact BM25 scores on a three-document corpus, computed by hand (k1 = 0.9, b = 0.4).
//
//   d1 "The cat sat on the mat."     -> [cat, sat, mat]          dl = 3  ("the", "on" are stop words)
//   d2 "Cats chase the dog's ball"   -> [cat, chase, dog, ball]  dl = 4  (cats -> cat, dog's -> dog)
//   d3 "A dog"                       -> [dog]                    dl = 1
//   N = docCount = 3, sumTotalTermFreq = 8, avgdl = 8/3
//   idf(cat) = idf(dog) = ln(1 + (3 - 2 + 0.5) / (2 + 0.5)) = ln(1.6) = 0.4700036292
//   K(dl) = k1 (1 - b + b dl / avgdl):  K(3) = 0.9 (0.6 + 0.45) = 0.945
//                                       K(4) = 0.9 (0.6 + 0.6)  = 1.08
//                                       K(1) = 0.9 (0.6 + 0.15) = 0.675
//   score(tf = 1) = idf * 1 / (1 + K)   (Lucene 8: no (k1 + 1) factor)
//   query "cat dog":  d2 = 0.4700036 / 2.08 * 2 = 0.4519265666
//                     d3 = 0.4700036 / 1.675    = 0.2805991816
//                     d1 = 0.4700036 / 1.945    = 0.2416471102
// All lengths are below 24, so SmallFloat stores them exactly; float32 rounding moves the
// scores by < 1e-7, hence the 1e-6 tolerance.
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildIndexSync } from "../../steps/sparse/index.ts";
import { search } from "../../steps/sparse/search.ts";
import { bm25Idf, normInverseCache, averageLength, bm25TermScore } from "../../steps/sparse/similarity.ts";
import { intToByte4 } from "../../steps/sparse/smallfloat.ts";

const docs = [
  { id: "d1", text: "The cat sat on the mat." },
  { id: "d2", text: "Cats chase the dog's ball" },
  { id: "d3", text: "A dog" },
];
const params = { k1: 0.9, b: 0.4, k: 10 };

function close(actual: number, expected: number, what: string): void {
  assert.ok(Math.abs(actual - expected) < 1e-6, `${what}: ${actual} != ${expected}`);
}

test("index statistics of the three-document corpus", () => {
  const index = buildIndexSync(docs);
  assert.equal(index.numDocs, 3);
  assert.equal(index.docCount, 3);
  assert.equal(index.sumTotalTermFreq, 8);
  assert.deepEqual([...index.norms], [3, 4, 1]);
  assert.equal(index.numTerms, 6); // ball cat chase dog mat sat
});

test("hand-computed scores for 'cat dog'", () => {
  const hits = search(buildIndexSync(docs), "cat dog", params);
  assert.deepEqual(hits.map((h) => h.pid), ["d2", "d3", "d1"]);
  close(hits[0]!.score, 0.4519265666, "d2");
  close(hits[1]!.score, 0.2805991816, "d3");
  close(hits[2]!.score, 0.2416471102, "d1");
});

test("a repeated query term counts once per occurrence (Anserini boosts the clause by its count)", () => {
  const hits = search(buildIndexSync(docs), "cat cat", params);
  assert.deepEqual(hits.map((h) => h.pid), ["d1", "d2"]);
  close(hits[0]!.score, 2 * 0.2416471102, "d1"); // 2 * idf / (1 + 0.945)
  close(hits[1]!.score, 2 * 0.4700036292 / 2.08, "d2");
});

test("stop-word-only and unknown queries return nothing; k limits the hits", () => {
  const index = buildIndexSync(docs);
  assert.deepEqual(search(index, "the and of", params), []);
  assert.deepEqual(search(index, "zebra", params), []);
  assert.deepEqual(search(index, "cat dog", { ...params, k: 1 }).map((h) => h.pid), ["d2"]);
  assert.deepEqual(search(index, "cat dog", { ...params, k: 0 }), []);
});

test("ties are broken by passage id, not by insertion order", () => {
  const index = buildIndexSync([
    { id: "b", text: "apple pie" },
    { id: "c", text: "apple pie" },
    { id: "a", text: "apple pie" },
  ]);
  const hits = search(index, "apple", params);
  assert.deepEqual(hits.map((h) => h.pid), ["a", "b", "c"]);
  assert.equal(hits[0]!.score, hits[2]!.score);
});

test("documents with no indexed term count neither in N nor in avgdl (Lucene's docCount)", () => {
  // d1 "cat" (dl 1), d2 "the a" (no terms), d3 "dog" (dl 1): N = 2, avgdl = 1
  // idf(cat) = ln(1 + 1.5 / 1.5) = ln 2; K = 0.9; score = ln 2 / 1.9 = 0.3648143
  const index = buildIndexSync([
    { id: "d1", text: "cat" },
    { id: "d2", text: "the a" },
    { id: "d3", text: "dog" },
  ]);
  assert.equal(index.docCount, 2);
  assert.equal(index.numDocs, 3);
  close(search(index, "cat", params)[0]!.score, Math.LN2 / 1.9, "d1");
});

test("the stored length is lossy above 23 terms: 100 terms score as 96", () => {
  // one doc of 100 distinct-ish terms plus a short one; the norm byte of 100 is 57, decoding to 96
  const long = Array.from({ length: 100 }, (_, i) => `w${i}`).join(" ");
  const index = buildIndexSync([
    { id: "long", text: long },
    { id: "short", text: "w1" },
  ]);
  assert.equal(index.norms[0], intToByte4(100));
  assert.equal(index.norms[0], 57);
  // N = 2, sumTTF = 101, avgdl = 50.5; idf(w1) = ln(1 + 0.5/2.5) = ln 1.2
  // K(96) = 0.9 (0.6 + 0.4 * 96 / 50.5) = 1.2243564; score = ln 1.2 / 2.2243564 = 0.0819647
  // (with the exact length 100 it would be ln 1.2 / 2.2530693 = 0.0809202)
  const hit = search(index, "w1", params).find((h) => h.pid === "long")!;
  close(hit.score, Math.log(1.2) / (1 + 0.9 * (0.6 + (0.4 * 96) / 50.5)), "long");
  // the float32 formula agrees
  const cache = normInverseCache(params, averageLength(101, 2));
  assert.equal(hit.score, bm25TermScore(bm25Idf(2, 2), 1, cache[57]!));
});

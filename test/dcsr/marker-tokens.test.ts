/** Marker placement: one marker before each of the first 10 sentences, positions through truncation (with and without a title). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { assembleMarkedPassage } from "../../steps/dcsr/marker-tokens.ts";

const special = { pad: 0, unk: 1, cls: 2, sep: 3, mask: 4 };
const M = 4;
const sentences = [[10, 11], [12], [13, 14, 15]];

test("without a title: [CLS] <m> s1 <m> s2 <m> s3 [SEP], markers at their token positions", () => {
  const p = assembleMarkedPassage(null, sentences, special, { marker: M, maxLength: 20 });
  assert.deepEqual(p.ids, [2, 4, 10, 11, 4, 12, 4, 13, 14, 15, 3]);
  assert.deepEqual(p.typeIds, new Array(11).fill(0));
  assert.deepEqual(p.markers, [1, 4, 6]);
  assert.equal(p.placed, 3);
  assert.equal(p.truncated, false);
});

test("right truncation drops the markers it cuts off; a marker whose sentence is cut keeps its vector", () => {
  const keepAll = assembleMarkedPassage(null, sentences, special, { marker: M, maxLength: 8 });
  assert.deepEqual(keepAll.ids, [2, 4, 10, 11, 4, 12, 4, 3]);
  assert.deepEqual(keepAll.markers, [1, 4, 6]);
  assert.equal(keepAll.truncated, true);
  const lose = assembleMarkedPassage(null, sentences, special, { marker: M, maxLength: 7 });
  assert.deepEqual(lose.ids, [2, 4, 10, 11, 4, 12, 3]);
  assert.deepEqual(lose.markers, [1, 4]);
  assert.equal(lose.placed, 3);
});

test("with a title: [CLS] title [SEP] <m> s1 ... [SEP], longest-first truncation as DPR passages", () => {
  const p = assembleMarkedPassage([20, 21], sentences, special, { marker: M, maxLength: 20 });
  assert.deepEqual(p.ids, [2, 20, 21, 3, 4, 10, 11, 4, 12, 4, 13, 14, 15, 3]);
  assert.deepEqual(p.markers, [4, 7, 9]);
  // budget 7 = title 2 + text 5 (the longer text segment loses 4 tokens): two markers survive
  const t = assembleMarkedPassage([20, 21], sentences, special, { marker: M, maxLength: 10 });
  assert.deepEqual(t.ids, [2, 20, 21, 3, 4, 10, 11, 4, 12, 3]);
  assert.deepEqual(t.markers, [4, 7]);
  const bert = assembleMarkedPassage([20, 21], sentences, special, { marker: M, maxLength: 20, segmentIds: "bert" });
  assert.deepEqual(bert.typeIds, [0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
});

test("at most 10 markers: sentences after the tenth follow without one (and have no vector)", () => {
  const twelve = Array.from({ length: 12 }, (_, i) => [100 + i]);
  const p = assembleMarkedPassage(null, twelve, special, { marker: M, maxLength: 64 });
  assert.equal(p.placed, 10);
  assert.deepEqual(p.markers, [1, 3, 5, 7, 9, 11, 13, 15, 17, 19]);
  assert.deepEqual(p.ids.slice(19), [4, 109, 110, 111, 3]);
  assert.equal(p.ids.filter((id) => id === M).length, 10);
  const three = assembleMarkedPassage(null, twelve, special, { marker: M, maxLength: 64, maxMarkers: 3 });
  assert.deepEqual(three.markers, [1, 3, 5]);
  assert.deepEqual(assembleMarkedPassage(null, [], special, { marker: M, maxLength: 8 }), { ids: [2, 3], typeIds: [0, 0], truncated: false, markers: [], placed: 0 });
});

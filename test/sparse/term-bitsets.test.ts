// Document bitsets of frequent terms (steps/sparse/term-bitsets.ts): each bit says exactly whether
// the term occurs in the document (checked against the postings read one by one), a term gets one
// only after enough lookups, rare terms and terms past the budget get none, and the pruned search gives the exhaustive scorer's hits with
// bitsets, with a budget that holds only a few of them, and without them.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildIndexSync, forEachPostingOf } from "../../steps/sparse/index.ts";
import { writeIndex } from "../../steps/sparse/index-file.ts";
import { searchBatchParallel } from "../../steps/sparse/parallel.ts";
import { Searcher, type RunRow } from "../../steps/sparse/search.ts";
import { tempDir } from "../tmp.ts";
import { BUILD_AFTER_LOOKUPS, MIN_DEFAULT_BITSET_BUDGET_BYTES, bitsetPool, defaultBitsetBudget, TermBitsets, termBitset } from "../../steps/sparse/term-bitsets.ts";
import { collection, queries } from "./random-collection.ts";

const docs = collection(3000, 11);
const qs = queries(150, 13);

const hasBit = (bits: Int32Array, d: number): boolean => (bits[d >>> 5]! & (1 << (d & 31))) !== 0;

for (const blockSize of [3, 128]) {
  test(`a term's bitset holds exactly the documents of its postings (block size ${blockSize})`, () => {
    const index = buildIndexSync(docs, { blockSize });
    let checked = 0;
    for (let t = 0; t < index.numTerms; t += 7) {
      const bits = termBitset(index, t);
      assert.equal(bits.length, Math.ceil(index.numDocs / 32));
      const expected = new Uint8Array(index.numDocs);
      forEachPostingOf(index, t, (d) => (expected[d] = 1));
      for (let d = 0; d < index.numDocs; d++) assert.equal(hasBit(bits, d), expected[d] === 1, `term ${t} document ${d}`);
      // no bit beyond the last document
      for (let d = index.numDocs; d < bits.length * 32; d++) assert.equal(hasBit(bits, d), false);
      checked++;
    }
    assert.ok(checked > 50, `only ${checked} terms checked`);
  });
}

test("a frequent term gets its bitset once looked up df / 8 times, within the byte budget; a rare term never", () => {
  const index = buildIndexSync(docs);
  const setBytes = Math.ceil(index.numDocs / 32) * 4;
  const frequent: number[] = [];
  let rare = -1;
  for (let t = 0; t < index.numTerms; t++) {
    if (index.df[t]! * 32 >= index.numDocs) frequent.push(t);
    else if (rare < 0 && index.df[t]! > 1) rare = t;
  }
  assert.ok(frequent.length >= 3 && rare >= 0, `${frequent.length} frequent terms, rare term ${rare}`);
  const due = (t: number): number => Math.ceil(index.df[t]! / BUILD_AFTER_LOOKUPS);

  const all = new TermBitsets(index);
  assert.equal(defaultBitsetBudget(index), MIN_DEFAULT_BITSET_BUDGET_BYTES, "a small index gets the least default");
  assert.equal(defaultBitsetBudget({ postings: new Uint8Array(2 ** 29) }), 2 ** 27, "a large one a quarter of its postings");
  assert.equal(all.pool.capacity, frequent.length, "the default holds every frequent term of a small index");
  all.countLookups(rare, 1_000_000);
  assert.equal(all.get(rare), undefined, "a rare term has no bitset");
  const t0 = frequent[0]!;
  all.countLookups(t0, due(t0) - 2);
  assert.equal(all.get(t0), undefined, "not yet: fewer lookups than df / 8");
  all.countLookups(t0, 1);
  assert.equal(all.get(t0), undefined);
  assert.equal(all.size, 0);
  all.countLookups(t0, 1);
  const first = all.get(t0);
  assert.ok(first !== undefined, "due: df / 8 lookups");
  assert.equal(all.get(t0), first, "the same bitset on the second request");
  assert.equal(all.size, setBytes);

  // a budget of two bitsets: the first two frequent terms that come due get one, the third none
  const two = new TermBitsets(index, 2 * setBytes);
  for (const t of frequent.slice(0, 3)) two.countLookups(t, due(t));
  assert.ok(two.get(frequent[2]!) !== undefined && two.get(frequent[0]!) !== undefined);
  assert.equal(two.get(frequent[1]!), undefined);
  assert.equal(two.size, 2 * setBytes);
  assert.ok(two.get(frequent[2]!) !== undefined, "a kept bitset stays");

  const none = new TermBitsets(index, 0);
  none.countLookups(t0, due(t0));
  assert.equal(none.get(t0), undefined);
  assert.equal(none.size, 0);
});

test("searchers sharing a pool build each bitset once; one being built elsewhere is not waited for", () => {
  const index = buildIndexSync(docs);
  const setBytes = Math.ceil(index.numDocs / 32) * 4;
  const frequent = Array.from({ length: index.numTerms }, (_, t) => t).filter((t) => index.df[t]! * 32 >= index.numDocs);
  const due = (t: number): number => Math.ceil(index.df[t]! / BUILD_AFTER_LOOKUPS);
  const pool = bitsetPool(index, 10 * setBytes, true);
  assert.ok(pool.words.buffer instanceof SharedArrayBuffer && pool.state.buffer instanceof SharedArrayBuffer);
  const [a, b] = [new TermBitsets(index, pool), new TermBitsets(index, pool)];
  const [t0, t1] = [frequent[0]!, frequent[1]!];
  a.countLookups(t0, due(t0));
  const built = a.get(t0)!;
  assert.deepEqual(built, termBitset(index, t0));
  // b has not looked t0 up often enough: none for it yet, though the pool has one
  assert.equal(b.get(t0), undefined);
  b.countLookups(t0, due(t0));
  const seen = b.get(t0)!;
  assert.equal(seen.buffer, built.buffer, "the same memory");
  assert.equal(seen.byteOffset, built.byteOffset);
  assert.equal(a.size, setBytes);
  assert.equal(b.size, setBytes, "counted once for the pool");
  // t1 being built by a third searcher: b goes on without it, and gets it once it is published
  const k1 = frequent.indexOf(t1);
  Atomics.store(pool.state, 1 + k1, -1);
  b.countLookups(t1, due(t1));
  assert.equal(b.get(t1), undefined);
  Atomics.store(pool.state, 1 + k1, 0);
  assert.deepEqual(b.get(t1), termBitset(index, t1));
  assert.equal(a.size, 2 * setBytes);
});

test("a pool made for another index is refused", () => {
  const index = buildIndexSync(docs);
  const other = buildIndexSync(docs.slice(0, 1000));
  assert.throws(() => new TermBitsets(index, bitsetPool(other)), /a bitset pool for another index/);
});

test("pruned search with full, partial and no bitsets equals exhaustive search", () => {
  const index = buildIndexSync(docs, { blockSize: 16 });
  const setBytes = Math.ceil(index.numDocs / 32) * 4;
  const params = { k1: 0.82, b: 0.68 };
  const searchers = {
    full: new Searcher(index, params),
    partial: new Searcher(index, params, { bitsetBudgetBytes: 3 * setBytes }),
    none: new Searcher(index, params, { bitsetBudgetBytes: 0 }),
  };
  for (const [qi, q] of qs.entries()) {
    const k = [1, 10, 100][qi % 3]!;
    const exact = searchers.none.searchExhaustive(q, k);
    for (const [name, s] of Object.entries(searchers)) assert.deepEqual(s.search(q, k), exact, `${name} k=${k} "${q}"`);
  }
  const stats = Object.fromEntries(Object.entries(searchers).map(([name, s]) => [name, s.stats!]));
  assert.ok(stats.full!.bitsetMisses > 1000, `full: ${stats.full!.bitsetMisses} lookups answered by a bitset`);
  assert.ok(stats.full!.lookups < stats.none!.lookups, "bitsets replace postings lookups");
  assert.equal(stats.partial!.bitsetBytes, 3 * setBytes);
  assert.ok(stats.partial!.bitsetMisses > 0 && stats.partial!.bitsetMisses < stats.full!.bitsetMisses);
  assert.equal(stats.none!.bitsetMisses, 0);
  assert.equal(stats.none!.bitsetBytes, 0);
  // a clear bit also lowers the candidate's bound to its partial score (the term adds 0), so no
  // more documents are scored in full than without bitsets
  assert.ok(stats.full!.scored <= stats.none!.scored, `scored ${stats.full!.scored} with bitsets, ${stats.none!.scored} without`);
});

test("worker threads sharing one pool return the rows of a searcher without bitsets", async () => {
  const dir = tempDir("cspipe-bitsets-");
  try {
    const index = buildIndexSync(docs, { blockSize: 16 });
    const path = join(dir, "i.bm25");
    writeIndex(index, path);
    const params = { k1: 0.82, b: 0.68 };
    const plain = new Searcher(index, params, { bitsetBudgetBytes: 0 });
    const topics = qs.map((text, i) => ({ qid: `q${i}`, text }));
    const expected = topics.flatMap((t) => plain.search(t.text, 50).map((h, r) => ({ qid: t.qid, pid: h.pid, rank: r + 1, score: h.score })));
    const rows: RunRow[] = [];
    for await (const batch of searchBatchParallel(path, topics, { ...params, k: 50, threads: 2, batchSize: 10 })) rows.push(...batch);
    assert.deepEqual(rows, expected);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// Index file round trip, corrupted files, id/term edge cases and parallel search determinism.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../../pipeline/engine/errors.ts";
import { buildIndex, buildIndexSync, compareCodePoints, docId, findTerm, forEachPostingOf, termAt } from "../../steps/sparse/index.ts";
import { readIndex, writeIndex } from "../../steps/sparse/index-file.ts";
import { searchBatchParallel } from "../../steps/sparse/parallel.ts";
import { search, searchBatch } from "../../steps/sparse/search.ts";
import type { RunRow } from "../../steps/sparse/search.ts";
import { tempDir } from "../tmp.ts";

const dir = tempDir("cspipe-bm25-");
test.after(() => rmSync(dir, { recursive: true, force: true }));

const docs = Array.from({ length: 500 }, (_, i) => ({
  id: `p${(i * 7919) % 500}`,
  text: `topic${i % 13} word${i % 7} ${"music ".repeat(1 + (i % 150))} number ${i} ${i % 3 === 0 ? "Zürich 東京" : ""}`,
}));

test("write -> read gives back identical arrays and identical search results", async () => {
  const progress: number[] = [];
  const index = await buildIndex(docs, { onProgress: (d) => progress.push(d), progressEvery: 200 });
  assert.deepEqual(progress, [200, 400, 500]);
  const path = join(dir, "a.bm25");
  const size = writeIndex(index, path);
  assert.equal(readFileSync(path).length, size);
  for (const shared of [true, false]) {
    const back = readIndex(path, { shared });
    for (const key of Object.keys(index) as (keyof typeof index)[]) {
      const a = index[key];
      const b = back[key];
      if (ArrayBuffer.isView(a)) assert.deepEqual([...(b as typeof a)], [...a], key);
      else assert.equal(b, a, key);
    }
    assert.equal(back.postings.buffer instanceof SharedArrayBuffer, shared);
    assert.deepEqual(search(back, "music topic3 Zürich", { k: 20, k1: 0.82, b: 0.68 }), search(index, "music topic3 Zürich", { k: 20, k1: 0.82, b: 0.68 }));
  }
});

test("postings decode to the document term frequencies; terms are sorted by UTF-8 bytes", () => {
  const index = buildIndexSync([
    { id: "x", text: "b dd dd \u{1F600} \uFF21y" },
    { id: "y", text: "dd c" },
  ]);
  const terms = Array.from({ length: index.numTerms }, (_, t) => termAt(index, t));
  // fullwidth ａ (U+FF41) sorts before U+1F600 in UTF-8 (= Lucene) order, after it in UTF-16 order
  assert.deepEqual(terms, ["b", "c", "dd", "\uFF41y", "\u{1F600}"]);
  const a = findTerm(index, "dd");
  const got: [string, number][] = [];
  forEachPostingOf(index, a, (d, tf) => got.push([docId(index, d), tf]));
  assert.deepEqual(got, [["x", 2], ["y", 1]]);
  assert.equal(findTerm(index, "zzz"), -1);
  // tf > 255 takes the builder's three-word form; 255 still fits its one-word form
  const many = buildIndexSync([
    { id: "p", text: `${"e ".repeat(255)}f ${"g ".repeat(256)}h` },
    { id: "q", text: `${"g ".repeat(300)}e h` },
  ]);
  const tfs = (t: string): [string, number][] => {
    const out: [string, number][] = [];
    forEachPostingOf(many, findTerm(many, t), (d, tf) => out.push([docId(many, d), tf]));
    return out;
  };
  assert.deepEqual([tfs("e"), tfs("f"), tfs("g"), tfs("h")], [[["p", 255], ["q", 1]], [["p", 1]], [["p", 256], ["q", 300]], [["p", 1], ["q", 1]]]);
  assert.ok(compareCodePoints("\uFF41", "\u{1F600}") < 0 && "\uFF41" > "\u{1F600}");
});

test("bad input and bad files throw InputError naming the problem", () => {
  assert.throws(() => buildIndexSync([{ id: "a", text: "x" }, { id: "a", text: "y" }]), (e: unknown) => e instanceof InputError && /duplicate passage id 'a'/.test(e.message));
  assert.throws(() => buildIndexSync([{ id: "", text: "x" }]), InputError);
  const junk = join(dir, "junk.bm25");
  writeFileSync(junk, "not an index at all, just text");
  assert.throws(() => readIndex(junk), (e: unknown) => e instanceof InputError && e.file === junk && /bad magic/.test(e.message));
  const good = join(dir, "trunc.bm25");
  writeIndex(buildIndexSync(docs), good);
  const bytes = readFileSync(good);
  writeFileSync(good, bytes.subarray(0, bytes.length - 100));
  assert.throws(() => readIndex(good), (e: unknown) => e instanceof InputError && /truncated/.test(e.message));
});

test("searchBatchParallel returns the single-thread rows, in input order, for any thread count", async () => {
  const index = buildIndexSync(docs);
  const path = join(dir, "p.bm25");
  writeIndex(index, path);
  const queries = Array.from({ length: 101 }, (_, i) => ({ qid: `q${i}`, text: `topic${i % 13} music number ${i}` }));
  const opts = { k: 10, k1: 0.9, b: 0.4 };
  const expected = searchBatch(index, queries, opts);
  for (const threads of [1, 2, 3]) {
    const rows: RunRow[] = [];
    const progress: number[] = [];
    for await (const batch of searchBatchParallel(path, queries, { ...opts, threads, batchSize: 8, onProgress: (d) => progress.push(d) })) rows.push(...batch);
    assert.deepEqual(rows, expected, `threads=${threads}`);
    assert.equal(progress.at(-1), 101);
  }
  assert.equal(expected.length, 1010);
  assert.deepEqual(expected.slice(0, 2).map((r) => r.rank), [1, 2]);
});

test("buildIndexFile: segments merged on disk give the same bytes as the in-memory build", async () => {
  const { buildIndexFile } = await import("../../steps/sparse/index-merge.ts");
  const inMemory = join(dir, "mem.bm25");
  writeIndex(buildIndexSync(docs), inMemory);
  const merged = join(dir, "merged.bm25");
  const progress: number[] = [];
  const r = await buildIndexFile(docs, merged, { maxPostingsInMemory: 300, tmpDir: dir, progressEvery: 250, onProgress: (d) => progress.push(d) });
  assert.ok(r.segments > 3, `only ${r.segments} segments`);
  assert.equal(r.numDocs, 500);
  assert.deepEqual(progress, [250, 500, 500]);
  assert.deepEqual(readFileSync(merged), readFileSync(inMemory));
  const single = join(dir, "single.bm25");
  assert.equal((await buildIndexFile(docs, single)).segments, 1);
  assert.deepEqual(readFileSync(single), readFileSync(inMemory));
  // a duplicate id in different segments is still caught (at merge time)
  await assert.rejects(
    buildIndexFile([...docs, { id: docs[0]!.id, text: "again" }], join(dir, "dup.bm25"), { maxPostingsInMemory: 300, tmpDir: dir }),
    (e: unknown) => e instanceof InputError && /duplicate passage id/.test(e.message),
  );
});

test("text rules: Pyserini's contents, or title + text", async () => {
  const { passageText } = await import("../../steps/sparse/text-rules.ts");
  assert.equal(passageText({ id: "a", contents: "C", title: "T", text: "X" }, "contents"), "C");
  assert.equal(passageText({ id: "a", title: "T", text: "X" }, "title-text"), "T X");
  assert.equal(passageText({ id: "a", text: "X" }, "title-text"), "X");
  assert.throws(() => passageText({ id: "a" }, "contents", { file: "c.jsonl", line: 3 }), (e: unknown) => e instanceof InputError && /c\.jsonl:3/.test(e.message));
});

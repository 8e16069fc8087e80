// The bit-packed postings blocks and their impact frontiers: round trips at the widths' edges,
// random access equal to sequential decoding, frontiers equal to a brute-force Pareto frontier,
// block bounds never below a real score, and segment merges byte-identical to one-segment builds.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { decodeImpacts, maxImpactScore } from "../../steps/sparse/blocks.ts";
import { buildIndexSync, forEachPostingOf } from "../../steps/sparse/index.ts";
import { writeIndex } from "../../steps/sparse/index-file.ts";
import { BlockReader, PADDING, bitWidth, blockLength, postingsView, writeBlock } from "../../steps/sparse/postings.ts";
import { averageLength, bm25Idf, bm25TermScore, normInverseCache } from "../../steps/sparse/similarity.ts";
import { mulberry32 as rng } from "../../steps/lib/prng.ts";
import { tempDir } from "../tmp.ts";

function roundTrip(prev: number, docs: number[], tfs: number[]): void {
  const buf = new Uint8Array(4096);
  const end = writeBlock(buf, 3, prev, docs, tfs, docs.length);
  const maxOff = Math.max(...docs.map((d) => d - docs[0]!));
  assert.equal(end - 3, blockLength(docs[0]! - prev - 1, docs.length, bitWidth(maxOff), bitWidth(Math.max(...tfs) - 1)));
  const r = new BlockReader().open(buf, 3, prev);
  assert.equal(r.n, docs.length);
  assert.equal(r.end, end);
  const d = new Int32Array(256);
  const t = new Int32Array(256);
  r.decode(postingsView(buf), d, t);
  assert.deepEqual([...d.subarray(0, r.n)], docs);
  assert.deepEqual([...t.subarray(0, r.n)], tfs);
  for (let j = 0; j < r.n; j++) {
    assert.equal(r.doc(buf, j), docs[j]);
    assert.equal(r.docIn(postingsView(buf), j), docs[j]);
    assert.equal(r.tf(buf, j), tfs[j]);
  }
}

test("blocks round-trip at the edges: one posting, 256 postings, 31-bit gaps, huge tfs, tf all 1", () => {
  roundTrip(-1, [0], [1]);
  roundTrip(41, [42], [7]);
  roundTrip(-1, Array.from({ length: 256 }, (_, i) => i), Array.from({ length: 256 }, () => 1));
  roundTrip(5, [2 ** 30, 2 ** 31 - 2], [1, 2 ** 31 - 1]);
  roundTrip(-1, [0, 2 ** 31 - 2], [3, 1]);
  const r = rng(3);
  for (let rep = 0; rep < 300; rep++) {
    const n = 1 + Math.floor(r() * 256);
    const gap = 2 ** Math.floor(r() * 24);
    const docs: number[] = [];
    let d = Math.floor(r() * 1000);
    for (let j = 0; j < n; j++) docs.push((d += 1 + Math.floor(r() * gap)));
    const tfs = docs.map(() => (r() < 0.7 ? 1 : 1 + Math.floor(r() ** 4 * 2 ** Math.floor(r() * 20))));
    roundTrip(Math.floor(r() * docs[0]!) - 1, docs, tfs);
  }
});

const docs = Array.from({ length: 700 }, (_, i) => ({
  id: `d${i}`,
  text: `${"alpha ".repeat(1 + (i % 5))}${i % 3 === 0 ? "beta " : ""}${"gamma ".repeat((i * 7) % 11)}${"pad ".repeat((i * 13) % 60)}`,
}));

test("every block's frontier is the Pareto frontier of its (norm, tf) pairs, and bounds every score", () => {
  const index = buildIndexSync(docs, { blockSize: 16 });
  assert.equal(index.postings.length, index.blockStart[index.blockStart.length - 1]! + PADDING);
  const cache = normInverseCache({ k1: 0.9, b: 0.4 }, averageLength(index.sumTotalTermFreq, index.docCount));
  let blocks = 0;
  for (let t = 0; t < index.numTerms; t++) {
    const postings: [number, number][] = [];
    forEachPostingOf(index, t, (d, tf) => postings.push([d, tf]));
    assert.equal(postings.length, index.df[t]);
    const weight = Math.fround(2 * bm25Idf(index.docCount, index.df[t]!));
    const first = index.termBlockOffsets[t]!;
    const end = index.termBlockOffsets[t + 1]!;
    assert.equal(end - first, Math.ceil(postings.length / 16));
    for (let b = first; b < end; b++) {
      const inBlock = postings.slice((b - first) * 16, (b - first + 1) * 16);
      assert.equal(index.blockLastDoc[b], inBlock.at(-1)![0]);
      const pairs = inBlock.map(([d, tf]) => ({ norm: index.norms[d]!, tf }));
      const frontier = pairs
        .filter((p) => !pairs.some((q) => q !== p && q.tf >= p.tf && q.norm <= p.norm && (q.tf > p.tf || q.norm < p.norm)))
        .filter((p, i, all) => all.findIndex((q) => q.norm === p.norm && q.tf === p.tf) === i)
        .sort((x, y) => x.norm - y.norm);
      assert.deepEqual(decodeImpacts(index.impacts, index.blockImpactOffsets[b]!), frontier);
      const bound = maxImpactScore(index.impacts, index.blockImpactOffsets[b]!, weight, cache);
      const best = Math.max(...pairs.map((p) => bm25TermScore(weight, p.tf, cache[p.norm]!)));
      assert.equal(bound, best, "the bound is attained: it is the block's best score exactly");
      blocks++;
    }
  }
  assert.ok(blocks > 100, `${blocks} blocks`);
});

test("segments merged on disk equal a one-segment build byte for byte, at any block size", async () => {
  const { buildIndexFile } = await import("../../steps/sparse/index-merge.ts");
  const dir = tempDir("cspipe-blocks-");
  try {
    for (const blockSize of [1, 7, 128]) {
      const one = join(dir, `one-${blockSize}.bm25`);
      writeIndex(buildIndexSync(docs, { blockSize }), one);
      const merged = join(dir, `merged-${blockSize}.bm25`);
      const r = await buildIndexFile(docs, merged, { blockSize, maxPostingsInMemory: 400, tmpDir: dir });
      assert.ok(r.segments >= 4, `${r.segments} segments`);
      assert.deepEqual(readFileSync(merged), readFileSync(one), `block size ${blockSize}`);
    }
    assert.throws(() => buildIndexSync(docs, { blockSize: 257 }), /block size/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

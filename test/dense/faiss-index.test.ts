/**
 * faiss-node backend vs the TypeScript brute force. The faiss tests skip (with the reason)
 * when faiss-node is not built; CI runs `bash scripts/setup-faiss.sh` first.
 * Float ties: faiss sums in float32 BLAS, the brute force in float64 rounded to float32, so
 * scores are compared with a tolerance and ids exactly where scores are well separated.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { faissAvailability, resolveBackend } from "../../steps/dense/backend.ts";
import type { FaissModule } from "../../steps/dense/backend.ts";
import { bruteForceSearch } from "../../steps/dense/brute-force.ts";
import { buildFlatIP, loadFlatIP, readFlatIPFile, writeFlatIPFile } from "../../steps/dense/faiss-index.ts";
import type { FaissLoadMethod } from "../../steps/dense/faiss-index.ts";
import { mergeShardTopK, shardRanges, topKToHits } from "../../steps/dense/merge.ts";
import { searchIndexes, searchShardFiles } from "../../steps/dense/sharded-search.ts";
import { assertSameTopK, randomMatrix } from "./fixtures.ts";
import { tempDir } from "../tmp.ts";

const avail = faissAvailability();
const skipFaiss = avail.available ? false : `faiss-node unavailable: ${avail.reason}`;
const dim = 32;
const corpus = randomMatrix(600, dim, 21);
const queries = randomMatrix(40, dim, 22);
const reference = bruteForceSearch(corpus, queries, dim, 25);

function tmp(): string {
  return tempDir("cspipe-dense-test-");
}

test("backend resolution: auto picks faiss when present, else brute force, and says why", (t) => {
  t.diagnostic(`this machine: auto -> ${resolveBackend("auto").backend} (${resolveBackend("auto").reason})`);
  const fake = { available: true, faiss: {} as FaissModule } as const;
  const none = { available: false, reason: "faiss-node is not usable (x)" } as const;
  assert.equal(resolveBackend("auto", fake).backend, "faiss");
  assert.equal(resolveBackend("auto", none).backend, "brute-force");
  assert.match(resolveBackend("auto", none).reason, /faiss-node is not usable \(x\).*brute force/);
  assert.equal(resolveBackend("brute-force", fake).backend, "brute-force");
  assert.throws(() => resolveBackend("faiss", none), /backend "faiss" requested but faiss-node is not usable/);
  assert.throws(() => resolveBackend("gpu" as "faiss", fake), /unknown dense backend "gpu"/);
});

test("brute-force index: search equals bruteForceSearch; save/load round trip is byte-exact", () => {
  const ix = buildFlatIP(corpus, dim, { backend: "brute-force" });
  assert.equal(ix.backend, "brute-force");
  assert.equal(ix.ntotal, 600);
  assert.deepEqual(ix.search(queries, 25), reference);
  const dir = tmp();
  try {
    ix.save(join(dir, "a.faiss"));
    const back = readFlatIPFile(join(dir, "a.faiss"));
    assert.equal(back.dim, dim);
    assert.deepEqual(back.vectors, corpus);
    assert.deepEqual(loadFlatIP(join(dir, "a.faiss"), { backend: "brute-force" }).search(queries, 25), reference);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("invalid vectors are rejected in TypeScript before reaching faiss", () => {
  const bad = corpus.slice();
  bad[5 * dim + 3] = Infinity;
  assert.throws(() => buildFlatIP(bad, dim, { backend: "auto", source: { file: "emb.npy" } }), /emb.npy: non-finite value Infinity at row 5, column 3/);
  assert.throws(() => buildFlatIP(corpus, 31, { backend: "auto" }), /not a whole number of 31-d vectors/);
  const ix = buildFlatIP(corpus, dim, { backend: "auto" });
  assert.throws(() => ix.search(new Float32Array(dim).fill(NaN), 3), /non-finite value NaN/);
  assert.throws(() => ix.search(queries, 0), /k must be a positive integer/);
});

test("loading a file that is not an IndexFlatIP fails with the file name", () => {
  const dir = tmp();
  try {
    writeFileSync(join(dir, "junk.faiss"), "IxF2" + "\0".repeat(60));
    assert.throws(() => loadFlatIP(join(dir, "junk.faiss"), { backend: "auto" }), /junk.faiss: not a faiss IndexFlatIP file/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

for (const method of ["read-file", "from-buffer", "add"] as FaissLoadMethod[]) {
  test(`faiss (${method}) flat search equals the brute force`, { skip: skipFaiss }, (t) => {
    const ix = buildFlatIP(corpus, dim, { backend: "faiss", faissMethod: method, addChunkRows: 128 });
    t.diagnostic(`backend: ${ix.backend} (${ix.reason})`);
    assert.equal(ix.backend, "faiss");
    assert.equal(ix.ntotal, 600);
    assert.equal(ix.dim, dim);
    assertSameTopK(ix.search(queries, 25, { batchSize: 7 }), reference);
  });
}

test("faiss: k larger than the index is clamped and padded like the brute force", { skip: skipFaiss }, () => {
  const small = corpus.subarray(0, 3 * dim);
  const f = buildFlatIP(small, dim, { backend: "faiss" }).search(queries.subarray(0, 2 * dim), 5);
  const b = bruteForceSearch(small, queries.subarray(0, 2 * dim), dim, 5);
  assertSameTopK(f, b);
  assert.deepEqual([...f.rows.subarray(3, 5)], [-1, -1]);
});

test("faiss: equal scores come back ordered by row", { skip: skipFaiss }, () => {
  // Integer vectors: exact float32 dot products, many ties.
  const c = new Float32Array([1, 0, 2, 0, 1, 0, 0, 1, 2, 0, 1, 0]);
  const f = buildFlatIP(c, 2, { backend: "faiss" }).search(new Float32Array([1, 0]), 6);
  assert.deepEqual([...f.rows], [1, 4, 0, 2, 5, 3]);
  assert.deepEqual([...f.scores], [2, 2, 1, 1, 1, 0]);
});

test("faiss: persistence round trip, and files interchange with the brute force", { skip: skipFaiss }, () => {
  const dir = tmp();
  try {
    const f = buildFlatIP(corpus, dim, { backend: "faiss" });
    f.save(join(dir, "f.faiss"));
    assert.deepEqual(readFlatIPFile(join(dir, "f.faiss")).vectors, corpus);
    assertSameTopK(loadFlatIP(join(dir, "f.faiss"), { backend: "faiss" }).search(queries, 25), reference);
    writeFlatIPFile(join(dir, "b.faiss"), corpus, dim);
    const g = loadFlatIP(join(dir, "b.faiss"), { backend: "faiss" });
    assert.equal(g.backend, "faiss");
    assertSameTopK(g.search(queries, 25), reference);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

for (const backend of ["faiss", "brute-force"] as const) {
  test(`sharded search (${backend}) merged equals the unsharded search`, { skip: backend === "faiss" ? skipFaiss : false }, (t) => {
    const ids = Array.from({ length: 600 }, (_, i) => `doc${String(i).padStart(4, "0")}`);
    const ranges = shardRanges([250, 200, 150]);
    const dir = tmp();
    try {
      const shards = ranges.map(({ start, end }, s) => {
        const path = join(dir, `shard-${s}.faiss`);
        writeFlatIPFile(path, corpus.subarray(start * dim, end * dim), dim);
        return { path, ids: ids.slice(start, end) };
      });
      const progress: number[] = [];
      const r = searchShardFiles(shards, queries, 25, { backend, onProgress: (d) => progress.push(d) });
      t.diagnostic(`backend: ${r.backend} (${r.reason})`);
      assert.equal(r.backend, backend);
      assert.equal(progress.at(-1), 3 * 40);
      const expected = topKToHits(reference, ids);
      for (let q = 0; q < 40; q++) {
        assert.equal(r.hits[q]!.length, 25);
        r.hits[q]!.forEach((h, j) => assert.ok(Math.abs(h.score - expected[q]![j]!.score) <= 1e-4));
      }
      if (backend === "brute-force") assert.deepEqual(r.hits, expected);
      else assert.deepEqual(r.hits.map((l) => l.slice(0, 10).map((h) => h.id)), expected.map((l) => l.slice(0, 10).map((h) => h.id)));
      const inMemory = searchIndexes(
        ranges.map(({ start, end }) => ({ index: buildFlatIP(corpus.subarray(start * dim, end * dim), dim, { backend }), ids: ids.slice(start, end) })),
        queries,
        25,
      );
      assert.deepEqual(inMemory.hits, r.hits);
      assert.throws(() => searchShardFiles([{ path: shards[0]!.path, ids: ids.slice(0, 10) }], queries, 5, { backend }), /shard-0.faiss: field 'ids': shard has 250 vectors but 10 passage ids/);
      assert.equal(mergeShardTopK([], 3).length, 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

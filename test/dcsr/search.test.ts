/** search-dcsr: exact top-M sentences over shards (ties in collection order), passages by HasAns, on a hand-made two-shard index. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeFlatIPFile } from "../../steps/dense/faiss-index.ts";
import { writeNpy } from "../../steps/lib/npy.ts";
import { readParquetRows } from "../../steps/lib/parquet.ts";
import { exactTopSentences, searchDcsr } from "../../steps/dcsr/search.ts";
import { SENTENCE_INDEX_FILE } from "../../steps/dcsr/encode.ts";
import { hasAnsRanking } from "../../steps/dcsr/hasans.ts";
import type { TopK } from "../../steps/dense/topk.ts";

test("exactTopSentences: union of the shards' candidates, exact scores, (-score, global row), cut at m", () => {
  // dim 2, query (1, 0): scores are the first coordinate.
  const a = { found: { nq: 1, k: 3, rows: Int32Array.from([1, 0, -1]), scores: new Float32Array(3) } as TopK, vectors: Float32Array.from([2, 9, 1, 9]), offset: 0 };
  const b = { found: { nq: 1, k: 3, rows: Int32Array.from([0, 2, 1]), scores: new Float32Array(3) } as TopK, vectors: Float32Array.from([2, 0, 0.5, 0, 3, 0]), offset: 2 };
  const top = exactTopSentences([a, b], Float32Array.from([1, 0]), 0, 2, 4);
  // global rows: 0 -> 2, 1 -> 1, 2 -> 2, 3 -> 0.5, 4 -> 3; row 2 ties row 0 and comes after it.
  assert.deepEqual([...top.ids], [4, 0, 2, 1]);
  assert.deepEqual([...top.scores], [3, 2, 2, 1]);
  assert.deepEqual([...exactTopSentences([a, b], Float32Array.from([1, 0]), 0, 2, 10).ids], [4, 0, 2, 1, 3]);
});

test("search-dcsr ranks passages by HasAns over the top-M sentences of all shards and keeps the top sentences", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cspipe-search-dcsr-"));
  try {
    const shard = (name: string, vectors: number[], pids: string[], slots: number[]) => {
      mkdirSync(join(dir, name));
      writeFlatIPFile(join(dir, name, SENTENCE_INDEX_FILE), Float32Array.from(vectors), 2);
      writeFileSync(join(dir, name, "pids.txt"), pids.join("\n") + "\n");
      writeNpy(join(dir, name, "slots.npy"), { dtype: "int32", shape: [slots.length], data: Int32Array.from(slots) });
    };
    // Shards partition the passages; A has two sentences.
    shard("s0", [2, 0, 0, 0, 1, 0], ["A", "A", "B"], [0, 1, 0]);
    shard("s1", [0, 0, -1, 0], ["C", "D"], [0, 0]);
    mkdirSync(join(dir, "q"));
    writeNpy(join(dir, "q", "embeddings.npy"), { dtype: "float32", shape: [2, 2], data: Float32Array.from([1, 0, 0, 0]) });
    writeFileSync(join(dir, "q", "qids.txt"), "q1\nq2\n");
    writeFileSync(join(dir, "q", "empty_qids.txt"), "q2\n");
    const out = (f: string) => join(dir, f);
    const runtime = searchDcsr.runtime;
    if (runtime.type !== "in-process") throw new Error("search-dcsr runs in process");
    await runtime.run({
      params: { k: 3, m: 4, keepSentences: 2, tag: "t" },
      inputs: { queries: join(dir, "q"), shards: [join(dir, "s0"), join(dir, "s1")] },
      outputs: { run: out("run.parquet"), trec: out("run.trec"), sentences: out("sentences.parquet") },
      log: () => {}, progress: () => {}, signal: new AbortController().signal, settings: {}, workDir: dir, scratchDir: dir, datasets: {}, inputKeys: { queries: { key: "k", stepId: "encode-dcsr-queries", kind: "embeddings:queries" }, shards: [] },
    });
    // q1's scores: A#0 2, A#1 0, B#0 1, C#0 0, D#0 -1; top 4 = A#0, B#0, A#1, C#0 (A#1 before C#0: collection order).
    const expected = hasAnsRanking([{ pid: "A", slot: 0, score: 2 }, { pid: "B", slot: 0, score: 1 }, { pid: "A", slot: 1, score: 0 }, { pid: "C", slot: 0, score: 0 }], 3);
    const trec = readFileSync(out("run.trec"), "utf8").trim().split("\n").map((l) => l.split(" "));
    assert.deepEqual(trec.map((t) => [t[0], t[2], t[3]]), [["q1", "A", "1"], ["q1", "B", "2"], ["q1", "C", "3"]]);
    trec.forEach((t, j) => assert.equal(Math.fround(Number(t[4])), Math.fround(expected[j]!.logHasAns)));
    const kept: { qid: string; pid: string; slot: number; rank: number; score: number; log_prob: number }[] = [];
    for await (const r of readParquetRows<(typeof kept)[number]>(out("sentences.parquet"))) kept.push(r);
    const z = Math.log(Math.exp(2) + Math.exp(1) + 2);
    assert.deepEqual(kept.map((r) => [r.qid, r.pid, r.slot, r.rank, r.score]), [["q1", "A", 0, 1, 2], ["q1", "B", 0, 2, 1]]);
    assert.ok(Math.abs(kept[0]!.log_prob - (2 - z)) < 1e-12 && Math.abs(kept[1]!.log_prob - (1 - z)) < 1e-12);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

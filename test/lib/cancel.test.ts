/**
 * In-process steps observe their AbortSignal: a loop with Checkpoints yields to the event loop
 * and throws once the signal is aborted; the BM25 index build and both search paths (in-thread,
 * worker threads) stop at the next batch instead of running to the end.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { Checkpoints, cancellable } from "../../steps/lib/cancel.ts";
import { buildIndexFile } from "../../steps/sparse/index-merge.ts";
import { searchBatchParallel } from "../../steps/sparse/parallel.ts";
import { inThread } from "../../steps/files/steps.ts";
import { tempDir } from "../tmp.ts";
import { collection, queries } from "../sparse/random-collection.ts";

const stopped = (e: unknown) => e instanceof Error && e.message === "stop";

test("Checkpoints: a loop of resolved awaits yields to the event loop, so an abort from a timer is observed", async () => {
  const ac = new AbortController();
  setTimeout(() => ac.abort(new Error("stop")), 20);
  const cp = new Checkpoints(ac.signal, 5);
  let iterations = 0;
  await assert.rejects(async () => {
    for (;;) {
      await cp.pass();
      iterations++;
    }
  }, stopped);
  assert.ok(iterations > 0);
  // Without a signal nothing is checked; with an aborted one the first pass throws.
  await new Checkpoints(undefined).pass();
  const aborted = AbortSignal.abort(new Error("stop"));
  await assert.rejects(new Checkpoints(aborted).pass(), stopped);
  await assert.rejects(async () => {
    for await (const _ of cancellable([1, 2, 3], aborted)) assert.fail("no item after the stop");
  }, stopped);
});

test("buildIndexFile stops at its next document once its signal is aborted, leaving no index", async () => {
  const dir = tempDir("cspipe-cancel-");
  const ac = new AbortController();
  let seen = 0;
  async function* docs() {
    for (const d of collection(3000, 3)) {
      if (++seen === 100) ac.abort(new Error("stop"));
      yield d;
    }
  }
  await assert.rejects(buildIndexFile(docs(), join(dir, "bm25.idx"), { signal: ac.signal, tmpDir: dir }), stopped);
  assert.ok(seen < 3000, `read ${seen} documents of 3000`);
});

test("both search paths stop after the batch during which the signal was aborted", async () => {
  const dir = tempDir("cspipe-cancel-");
  const index = join(dir, "bm25.idx");
  await buildIndexFile(collection(2000, 4), index, { tmpDir: dir });
  const topics = queries(640, 5).map((text, i) => ({ qid: `q${String(i).padStart(3, "0")}`, text }));
  for (const [name, search] of [
    ["in-thread", (signal: AbortSignal) => inThread(index, topics, { k: 10, k1: 0.9, b: 0.4, onProgress: () => {}, signal })],
    ["workers", (signal: AbortSignal) => searchBatchParallel(index, topics, { k: 10, k1: 0.9, b: 0.4, threads: 2, batchSize: 64, signal })],
  ] as const) {
    const ac = new AbortController();
    let batches = 0;
    await assert.rejects(async () => {
      for await (const _ of search(ac.signal)) if (++batches === 1) ac.abort(new Error("stop"));
    }, stopped);
    assert.ok(batches >= 1 && batches < 10, `${name}: ${batches} of 10 batches`);
  }
});

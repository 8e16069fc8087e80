/**
 * The scale path: collections larger than the pool are streamed entity by entity (memory
 * O(pool)); here with a small scale. The 1M-passage run is measured, not tested (see report).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { generateWorld, resolveParams, streamCollection, writeMiniDataset } from "../../../steps/data/mini/index.ts";
import { tempDir } from "../../tmp.ts";

const PARAMS = { seed: 9, entities: 20, trainTurns: 20, devTurns: 10, testTurns: 10, scale: 1234 };

test("streamCollection yields exactly `scale` passages, pool first, ordinals in order, unique ids", () => {
  const w = generateWorld(resolveParams("mini-orquac", PARAMS));
  const all = [...streamCollection(w)];
  assert.equal(all.length, 1234);
  all.forEach((p, i) => assert.equal(p.ordinal, i));
  assert.equal(new Set(all.map((p) => p.id)).size, 1234);
  assert.deepEqual(all.slice(0, w.passages.length), w.passages);
  // the same world streams the same passages again (pure)
  assert.deepEqual([...streamCollection(w)].slice(-3), all.slice(-3));
});

test("written collections hold `scale` passages and every gold passage, with progress reported", async () => {
  const dir = tempDir("mini-scale-");
  try {
    const progress: [number, number | undefined][] = [];
    await writeMiniDataset("mini-topiocqa", PARAMS, join(dir, "t"), { onProgress: (d, t) => progress.push([d, t]) });
    const tsv = (await readFile(join(dir, "t", "data/wikipedia_split/full_wiki_segments.tsv"), "utf8")).split("\n").filter((l) => l);
    assert.equal(tsv.length, 1 + 1234);
    assert.deepEqual(progress.at(-1), [1234, 1234]);
    assert.ok(progress.every(([d], i) => i === 0 || d > (progress[i - 1]?.[0] ?? 0)), "progress increases");
    const ids = new Set(tsv.slice(1).map((l) => l.split("\t")[0]));
    const dev = JSON.parse(await readFile(join(dir, "t", "data/retriever/all_history/dev.json"), "utf8")) as { positive_ctxs: { passage_id: string }[] }[];
    for (const d of dev) assert.ok(ids.has(d.positive_ctxs[0]?.passage_id));

    await writeMiniDataset("mini-qrecc", PARAMS, join(dir, "q"));
    const lines = (await readFile(join(dir, "q", "collection-paragraph/wayback/mini-00000.jsonl"), "utf8")).split("\n").filter((l) => l);
    assert.equal(lines.length, 1234);
    assert.equal(new Set(lines.map((l) => (JSON.parse(l) as { id: string }).id)).size, 1234);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/**
 * scripts/compare-stores.ts on two hand-built stores: an entry both hold under one key must have
 * the same output digests; the broken ones are named with the files that differ, and the keys one
 * store holds alone are counted, not failed.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { brokenFiles, compareStores, storeDigests } from "../../scripts/compare-stores.ts";
import { outputDigest } from "../../pipeline/engine/digest.ts";
import { tempDir } from "../tmp.ts";

/** A published entry: `files` under outputs/<output>/ (a directory output) or, for `file`, one file. */
async function entry(root: string, stepId: string, key: string, outputs: Record<string, Record<string, string> | string>): Promise<void> {
  const dir = join(root, "entries", stepId, key);
  const records: Record<string, unknown> = {};
  for (const [name, content] of Object.entries(outputs)) {
    const path = join(dir, "outputs", name);
    if (typeof content === "string") {
      mkdirSync(join(dir, "outputs"), { recursive: true });
      writeFileSync(path, content);
    } else {
      for (const [rel, text] of Object.entries(content)) {
        mkdirSync(join(path, rel, ".."), { recursive: true });
        writeFileSync(join(path, rel), text);
      }
    }
    const isDir = typeof content !== "string";
    records[name] = { path: name, kind: "k", dir: isDir, ...(await outputDigest(path, isDir)) };
  }
  writeFileSync(join(dir, "fingerprint.json"), "{}");
  writeFileSync(join(dir, "manifest.json"), JSON.stringify({
    schema: 1, key, step: { id: stepId, version: 1, name: `${stepId}.x` }, outputs: records, timings: { started: "2026-12-01T00:00:00Z", finished: "2026-12-01T00:00:01Z", seconds: 1 },
    host: { hostname: "h", platform: "linux", arch: "x64", cpus: 2 }, tools: {}, executor: "local", log: "log.txt",
  }));
}

const key = (n: number) => n.toString(16).padStart(64, "0");

test("one key, one digest: broken entries are named with the files that differ; keys held by one store are counted", async () => {
  const [a, b] = [tempDir("cmp-stores-a-"), tempDir("cmp-stores-b-")];
  // The same bytes under one key.
  await entry(a, "tokenize", key(1), { tokens: { "ids.npy": "I", "meta.json": "{}" } });
  await entry(b, "tokenize", key(1), { tokens: { "ids.npy": "I", "meta.json": "{}" } });
  // One key, a result.json that recorded the clock: broken.
  await entry(a, "train", key(2), { model: { "w.safetensors": "W", "result.json": "{\"seconds\":1.5}" } });
  await entry(b, "train", key(2), { model: { "w.safetensors": "W", "result.json": "{\"seconds\":1.7}" } });
  // A file output, and an output only one side has.
  await entry(a, "evaluate", key(3), { metrics: "{\"mrr\":0.5}", report: "r" });
  await entry(b, "evaluate", key(3), { metrics: "{\"mrr\":0.5}" });
  // Downstream of the broken entry: other keys on each side.
  await entry(a, "encode", key(4), { vectors: "A" });
  await entry(b, "encode", key(5), { vectors: "A" });
  const r = compareStores(await storeDigests(a), await storeDigests(b));
  assert.equal(r.same, 1);
  assert.deepEqual(r.broken.map((x) => [x.id, x.name, x.outputs]), [
    [`evaluate/${key(3)}`, "evaluate.x", ["report"]],
    [`train/${key(2)}`, "train.x", ["model"]],
  ]);
  assert.deepEqual([r.onlyA, r.onlyB], [[`encode/${key(4)}`], [`encode/${key(5)}`]]);
  assert.deepEqual(await brokenFiles([a, b], r.broken[1]!), ["model/result.json"]);
  assert.deepEqual(await brokenFiles([a, b], r.broken[0]!), ["report"]);
});

test("a directory that is no store is refused with the fix", async () => {
  await assert.rejects(storeDigests(tempDir("cmp-stores-empty-")), /no store here.*Fix: pass a store directory/);
});

/**
 * scripts/compare-models.ts on two hand-built stores: weight files compared by bytes, the rest of a
 * model directory ignored, the newest entry of a step name compared, and models one side lacks listed.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { compareModels, storeWeights } from "../../scripts/compare-models.ts";
import { tempDir } from "../tmp.ts";

let keys = 0;
function entry(root: string, stepId: string, name: string, finished: string, files: Record<string, string>): void {
  const key = (++keys).toString(16).padStart(64, "0");
  const dir = join(root, "entries", stepId, key);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, "outputs", path, ".."), { recursive: true });
    writeFileSync(join(dir, "outputs", path), text);
  }
  writeFileSync(join(dir, "fingerprint.json"), "{}");
  writeFileSync(join(dir, "manifest.json"), JSON.stringify({
    schema: 1, key, step: { id: stepId, version: 1, name }, outputs: {}, timings: { started: finished, finished, seconds: 1 },
    host: { hostname: "h", platform: "linux", arch: "x64", cpus: 2 }, tools: {}, executor: "local", log: "log.txt",
  }));
}

test("models compare by their weight files' bytes; result.json may differ; the newest entry of a name counts", async () => {
  const [a, b] = [tempDir("cmp-models-a-"), tempDir("cmp-models-b-")];
  entry(a, "train-dpr", "train-dpr.m1", "2026-11-29T10:00:00Z", { "model/q.safetensors": "W1", "model/q.onnx": "O1", "model/result.json": "{\"dev\":1}" });
  entry(b, "train-dpr", "train-dpr.m1", "2026-11-29T11:00:00Z", { "model/q.safetensors": "W1", "model/q.onnx": "O1", "model/result.json": "{\"dev\":2}" });
  entry(a, "train-dpr", "train-dpr.m2", "2026-11-29T10:00:00Z", { "model/q.safetensors": "W2" });
  entry(b, "train-dpr", "train-dpr.m2", "2026-11-29T09:00:00Z", { "model/q.safetensors": "W2" });
  entry(b, "train-dpr", "train-dpr.m2", "2026-11-29T12:00:00Z", { "model/q.safetensors": "W2-other" });
  entry(a, "pretrain-dpr", "pretrain-dpr.t0", "2026-11-29T10:00:00Z", { "model/p.safetensors": "T", "model/parity/x.onnx": "P" });
  entry(b, "pretrain-dpr", "pretrain-dpr.t0", "2026-11-29T10:00:00Z", { "model/p.safetensors": "T" });
  entry(a, "train-dpr", "train-dpr.only-a", "2026-11-29T10:00:00Z", { "model/q.safetensors": "W3" });
  entry(b, "evaluate-run", "evaluate.x", "2026-11-29T10:00:00Z", { "metrics.json": "{}" });
  const ids = new Set(["train-dpr", "pretrain-dpr"]);
  const { rows, onlyA, onlyB } = compareModels(await storeWeights(a, ids), await storeWeights(b, ids));
  assert.deepEqual(rows, [
    { name: "pretrain-dpr.t0", same: false, differing: ["model/parity/x.onnx"] },
    { name: "train-dpr.m1", same: true, differing: [] },
    { name: "train-dpr.m2", same: false, differing: ["model/q.safetensors"] },
  ]);
  assert.deepEqual([onlyA, onlyB], [["train-dpr.only-a"], []]);
});

test("a model without weight files is never 'the same'; a directory that is no store is refused with the fix", async () => {
  const none = new Map([["m", new Map<string, string>()]]);
  assert.deepEqual(compareModels(none, none).rows, [{ name: "m", same: false, differing: ["(no weight files)"] }]);
  await assert.rejects(storeWeights(tempDir("cmp-models-empty-"), new Set(["train-dpr"])), /no store here.*Fix: pass a store directory/);
});

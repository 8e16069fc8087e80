/**
 * An in-process step's native numerics (onnxruntime's kernels and CUDA provider, looked up on
 * disk) enter its key; the project asks once per package list and command (project.ts), since
 * the default target has 230 steps that load onnxruntime. Each list keeps its own answer.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { Project } from "../../pipeline/project.ts";
import { serializeLockFile } from "../../pipeline/engine/datasets-lock.ts";
import type { AnyStep } from "../../pipeline/engine/step.ts";
import { registry, ROOT, tempDir } from "./helpers.ts";

test("native numerics are found once per package list, each list with its own answer", () => {
  const dir = tempDir();
  const lockPath = join(dir, "datasets.lock");
  writeFileSync(lockPath, serializeLockFile({ version: 1, entries: {} }));
  const asked: string[][] = [];
  const nativeNumerics = (packages: readonly string[]) => {
    asked.push([...packages]);
    return packages.length === 0 ? null : { native: packages.join("+") };
  };
  const p = new Project({ root: ROOT, store: join(dir, "store"), lockPath, targets: registry({}), env: {}, nativeNumerics });
  const step = { name: "s", def: { runtime: { type: "in-process" } } } as unknown as AnyStep;
  const numerics = p.keyContext("local").numerics!;
  assert.deepEqual(numerics(step, ["onnxruntime-node"]), { native: "onnxruntime-node" });
  assert.deepEqual(numerics(step, ["onnxruntime-node"]), { native: "onnxruntime-node" });
  assert.deepEqual(numerics(step, ["onnxruntime-node", "parquet-wasm"]), { native: "onnxruntime-node+parquet-wasm" });
  assert.equal(numerics(step, []), null);
  assert.equal(numerics(step, []), null);
  // Another key context of the same project (the plan's, then the run's) asks nothing again.
  assert.deepEqual(p.keyContext("local").numerics!(step, ["onnxruntime-node"]), { native: "onnxruntime-node" });
  assert.deepEqual(p.keyContext("local").numerics!(step, ["onnxruntime-node", "parquet-wasm"]), { native: "onnxruntime-node+parquet-wasm" });
  assert.deepEqual(asked, [["onnxruntime-node"], ["onnxruntime-node", "parquet-wasm"], []]);
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { batchRanges, splitRows } from "../../../steps/encoding/onnx/shards.ts";
import { makeBatch, realLength, tokenMatrixFromNpy } from "../../../steps/encoding/onnx/batch.ts";
import { chooseProviders } from "../../../steps/encoding/onnx/session.ts";
import { InputError } from "../../../pipeline/engine/errors.ts";

test("splitRows: contiguous, near-equal, first N % S shards one larger", () => {
  assert.deepEqual(splitRows(10, 3), [
    { start: 0, end: 4 },
    { start: 4, end: 7 },
    { start: 7, end: 10 },
  ]);
  assert.deepEqual(splitRows(2, 4), [
    { start: 0, end: 1 },
    { start: 1, end: 2 },
    { start: 2, end: 2 },
    { start: 2, end: 2 },
  ]);
  assert.deepEqual(splitRows(0, 1), [{ start: 0, end: 0 }]);
  assert.throws(() => splitRows(5, 0), /shard count must be a positive integer, got 0/);
  assert.throws(() => splitRows(-1, 2), InputError);
});

test("batchRanges covers [start, end) in order", () => {
  assert.deepEqual(batchRanges({ start: 3, end: 10 }, 3), [
    { start: 3, end: 6 },
    { start: 6, end: 9 },
    { start: 9, end: 10 },
  ]);
  assert.deepEqual(batchRanges({ start: 4, end: 4 }, 8), []);
});

// 3 rows, L = 5: real lengths 3, 1, 4 (an inner 0 counts as padding in the mask but not for the length).
const ids = new Int32Array([101, 7, 102, 0, 0, 101, 0, 0, 0, 0, 101, 8, 0, 102, 0]);
const types = new Int8Array([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0]);
const tokens = tokenMatrixFromNpy({ dtype: "int32", shape: [3, 5], data: ids }, { dtype: "int8", shape: [3, 5], data: types });

test("realLength is the last non-pad position + 1", () => {
  assert.deepEqual([0, 1, 2].map((r) => realLength(tokens, r)), [3, 1, 4]);
});

test("makeBatch trims to the batch's longest row and builds mask and types", () => {
  const b = makeBatch(tokens, { start: 0, end: 2 });
  assert.equal(b.batch, 2);
  assert.equal(b.seq, 3);
  assert.deepEqual([...b.inputIds], [101n, 7n, 102n, 101n, 0n, 0n]);
  assert.deepEqual([...b.attentionMask], [1n, 1n, 1n, 1n, 0n, 0n]);
  assert.deepEqual([...b.tokenTypeIds], [0n, 0n, 0n, 0n, 0n, 0n]);
  const c = makeBatch(tokens, { start: 2, end: 3 });
  assert.equal(c.seq, 4);
  assert.deepEqual([...c.attentionMask], [1n, 1n, 0n, 1n]);
  assert.deepEqual([...c.tokenTypeIds], [0n, 1n, 1n, 1n]);
  assert.equal(makeBatch(tokens, { start: 0, end: 3 }, false).seq, 5);
  const allPad = tokenMatrixFromNpy({ dtype: "int32", shape: [1, 4], data: new Int32Array(4) });
  assert.throws(() => makeBatch(allPad, { start: 0, end: 1 }), /row 0 has no tokens \(all pad id 0\)/);
  assert.throws(() => makeBatch(tokens, { start: 2, end: 4 }), /row range \[2, 4\) is outside \[0, 3\)/);
});

test("tokenMatrixFromNpy names the file and the fix", () => {
  assert.throws(
    () => tokenMatrixFromNpy({ dtype: "int64", shape: [1, 2], data: new BigInt64Array(2) }, undefined, { ids: "t.npy" }),
    /t.npy: token ids must be int32, got int64 Fix: save them with numpy as np.int32/,
  );
  assert.throws(() => tokenMatrixFromNpy({ dtype: "int32", shape: [2], data: new Int32Array(2) }), /must be 2-d/);
  assert.throws(() => tokenMatrixFromNpy({ dtype: "int32", shape: [1, 2], data: new Int32Array([5, -1]) }), /negative token id -1 at row 0, position 1/);
  assert.throws(
    () => tokenMatrixFromNpy({ dtype: "int32", shape: [1, 2], data: new Int32Array(2) }, { dtype: "int8", shape: [1, 3], data: new Int8Array(3) }, { types: "ty.npy" }),
    /ty.npy: token type ids have shape \[1,3\], token ids \[1,2\]/,
  );
});

test("chooseProviders: cuda + cpu only when the CUDA EP library and a device are present", () => {
  assert.deepEqual(chooseProviders("auto", { cudaLibrary: true, nvidiaDevice: true }).providers, ["cuda", "cpu"]);
  assert.deepEqual(chooseProviders("auto", { cudaLibrary: false, nvidiaDevice: true }), {
    providers: ["cpu"],
    reason: "auto: cpu (onnxruntime-node's CUDA EP library is not installed (install without onnxruntime-node-install=skip on a CUDA machine))",
  });
  assert.deepEqual(chooseProviders("auto", { cudaLibrary: true, nvidiaDevice: false }).reason, "auto: cpu (no NVIDIA device is visible)");
  assert.deepEqual(chooseProviders("cpu", { cudaLibrary: true, nvidiaDevice: true }).providers, ["cpu"]);
  assert.throws(() => chooseProviders("cuda", { cudaLibrary: true, nvidiaDevice: false }), /"cuda" requested but no NVIDIA device/);
});

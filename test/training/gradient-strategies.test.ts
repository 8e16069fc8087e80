/**
 * The memory-saving training paths give the gradients of the plain one-graph step (tiny model,
 * float64 so that only the algorithm can differ): the gradient cache, activation checkpointing
 * (with dropout), both together; the similarities and the loss stay float32 under bf16 autocast;
 * the step loop makes no tensor-to-host call (no per-step host sync).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { selftest } from "./python.ts";

interface GradResult {
  max_abs_diff: number;
  max_abs_grad: number;
  loss: number;
  loss_ref: number;
}

// One Python process for the three gradient comparisons.
const [cached, checkpointing, both] = selftest<{ cases: GradResult[] }>("gradients", {
  cases: [
    { strategy: "cached", chunk: 2 },
    { strategy: "checkpointing", dropout: 0.1 },
    // The reference encodes the same chunks in one graph, so both draw the same dropout masks.
    { strategy: "cached+checkpointing", chunk: 4, ref_chunk: 4, dropout: 0.1 },
  ],
}).cases as [GradResult, GradResult, GradResult];

test("gradient cache (chunks of 2) gives the one-graph gradients exactly to 1e-6", () => {
  assert.ok(cached.max_abs_grad > 1, `gradients are not trivial (${cached.max_abs_grad})`);
  assert.ok(cached.max_abs_diff < 1e-6, `max abs diff ${cached.max_abs_diff}`);
  assert.ok(Math.abs(cached.loss - cached.loss_ref) < 1e-9);
});

test("activation checkpointing gives the same gradients, dropout included (the random state is replayed)", () => {
  assert.ok(checkpointing.max_abs_grad > 1);
  assert.ok(checkpointing.max_abs_diff < 1e-6, `max abs diff ${checkpointing.max_abs_diff}`);
});

test("gradient cache with checkpointing and dropout replays each chunk's dropout masks", () => {
  assert.ok(both.max_abs_diff < 1e-6, `max abs diff ${both.max_abs_diff}`);
  assert.ok(Math.abs(both.loss - both.loss_ref) < 1e-9);
});

test("similarities and loss are float32 under bf16 autocast (a matmul left inside autocast is not)", () => {
  const r = selftest<{ dtype: string; loss_dtype: string; max_abs_diff: number; loss_diff: number; bf16_matmul_diff: number }>("autocast-loss", {});
  assert.equal(r.dtype, "torch.float32");
  assert.equal(r.loss_dtype, "torch.float32");
  assert.equal(r.max_abs_diff, 0);
  assert.equal(r.loss_diff, 0);
  assert.ok(r.bf16_matmul_diff > 0.01, `the bf16 matmul the loss avoids is visibly off (${r.bf16_matmul_diff})`);
});

test("the training step makes no tensor-to-host call (item, float, tolist, numpy, cpu, bool), with and without the cache", () => {
  const r = selftest<{ runs: { calls: Record<string, number>; loss_sum: number }[] }>("host-syncs", { steps: 3, chunks: [null, 3] });
  assert.equal(r.runs.length, 2);
  for (const run of r.runs) {
    assert.deepEqual(Object.values(run.calls), [0, 0, 0, 0, 0, 0, 0], JSON.stringify(run.calls));
    assert.ok(run.loss_sum > 0);
  }
  // The same steps: the cache changes the computation, not the numbers.
  assert.ok(Math.abs(r.runs[0]!.loss_sum - r.runs[1]!.loss_sum) < 1e-4);
});

test("the bi-encoder's vector runs the last layer for [CLS] only: the whole sequence's first row and its gradients, one and two layers, with checkpointing", () => {
  interface FirstToken { max_abs_diff: number; max_abs_grad_diff: number; max_abs_grad: number; last_ffn_rows: number; last_ffn_rows_whole: number }
  for (const arg of [{ layers: 2 }, { layers: 1 }, { layers: 2, checkpointing: true }]) {
    const r = selftest<FirstToken>("first-token", arg);
    const what = JSON.stringify(arg);
    assert.equal(r.last_ffn_rows, 12, `${what}: the last layer's feed-forward ran for the 12 passages' first tokens only`);
    assert.ok(r.last_ffn_rows_whole > 12 * 10, `${what}: the whole-sequence pass ran it for every token (${r.last_ffn_rows_whole})`);
    assert.ok(r.max_abs_grad > 0.01, `${what}: gradients are not trivial (${r.max_abs_grad})`);
    assert.ok(r.max_abs_diff < 1e-12, `${what}: vectors differ by ${r.max_abs_diff}`);
    assert.ok(r.max_abs_grad_diff < 1e-12 * Math.max(1, r.max_abs_grad), `${what}: gradients differ by ${r.max_abs_grad_diff}`);
  }
});

/**
 * Every trainer has the GPU features DPR has (pytrain/checks.py, run on CPU by each program's
 * own self-test): a step in chunks (DCSR: the gradient cache; the readers and span pre-training,
 * whose losses are sums over examples: one chunk's share at a time) and the same step over two
 * gloo processes give the one-graph gradients; activation checkpointing recomputes layers and
 * gives the same gradients; the step loop makes no tensor-to-host call. FiD's fused attention
 * (torch >= 2.0) is checked against the float32 softmax where torch has the kernel.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { PYTHON, program } from "./python.ts";

interface Features {
  max_abs_grad: number;
  loss_ref: number;
  chunks: { chunk: number | null; max_abs_diff: number }[];
  checkpointing: { max_abs_diff: number; forward_calls: number; forward_calls_without: number };
  ddp: { chunk: number | null; max_abs_diff: number; loss: number }[];
  syncs: Record<string, number>;
}

function selftest<T>(argv: string[], arg: unknown): T {
  const r = spawnSync(PYTHON, argv, { input: JSON.stringify(arg), encoding: "utf8", timeout: 300_000 });
  const line = r.stdout.split("\n").find((l) => l.startsWith("RESULT "));
  assert.ok(r.status === 0 && line !== undefined, `${argv.join(" ")} (exit ${r.status}): ${r.stderr}`);
  return JSON.parse(line.slice(7)) as T;
}

const TRAINERS: [string, string[]][] = [
  ["DCSR", program("dcsr.python.train_dcsr", ["--selftest", "features"])],
  ["DPR reader", program("qa.dpr_reader.train_reader", ["--selftest", "features"])],
  ["FiD", program("qa.fid.fid", ["selftest", "features"])],
  ["span pre-training", program("qa.fid.fid", ["selftest", "span-features"])],
];

for (const [name, argv] of TRAINERS) {
  test(`${name}: chunked and data-parallel steps give the one-graph gradients; checkpointing recomputes; no host sync`, () => {
    const r = selftest<Features>(argv, { chunks: [null, 2], world: 2, seed: 3 });
    assert.ok(r.max_abs_grad > 0.01, `gradients are not trivial (${r.max_abs_grad})`);
    const tol = 1e-5 * Math.max(1, r.max_abs_grad);
    assert.deepEqual(r.chunks.map((c) => c.chunk), [null, 2]);
    for (const c of r.chunks) assert.ok(c.max_abs_diff <= tol, `chunks of ${c.chunk}: max abs diff ${c.max_abs_diff}`);
    assert.ok(r.checkpointing.forward_calls > r.checkpointing.forward_calls_without, "checkpointed layers run again in the backward pass");
    assert.ok(r.checkpointing.max_abs_diff <= tol, `checkpointing: ${r.checkpointing.max_abs_diff}`);
    for (const d of r.ddp) {
      assert.ok(d.max_abs_diff <= tol, `2 processes, chunks of ${d.chunk}: max abs diff ${d.max_abs_diff}`);
      assert.ok(Math.abs(d.loss - r.loss_ref) <= 1e-5 * Math.abs(r.loss_ref), `the processes' losses add up to the batch's (${d.loss} vs ${r.loss_ref})`);
    }
    assert.deepEqual(Object.values(r.syncs), [0, 0, 0, 0, 0, 0, 0], JSON.stringify(r.syncs));
  });
}

test("FiD's fused attention gives the float32 softmax's loss and generations (where torch has the kernel)", (t) => {
  const r = selftest<{ has_sdpa: boolean; loss_diff?: number; same_generations?: boolean }>(program("qa.fid.fid", ["selftest", "attention"]), {});
  if (!r.has_sdpa) {
    t.skip("this torch has no scaled_dot_product_attention (torch < 2.0): attention 'auto' runs the explicit softmax");
    return;
  }
  assert.ok(r.loss_diff! < 1e-5, `loss diff ${r.loss_diff}`);
  assert.equal(r.same_generations, true);
});

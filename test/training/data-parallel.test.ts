/**
 * Data-parallel training (distributed.py) on CPU with the gloo backend: two processes give the
 * one-process gradients at the same global batch (each process encodes its slice, the
 * embeddings are all-gathered, gradients summed), in one graph and with the gradient cache;
 * and the trainer launched with world_size 2 runs as two workers whose loss is the
 * one-process loss.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readTrainingResult, trainerArgv, trainingConfig } from "../../steps/training/contract.ts";
import { TEST_BERT, runTrainer, selftest, writeSyntheticInputs } from "./python.ts";
import { tempDir } from "../tmp.ts";

test("2 gloo processes: the gradients of one step equal the one-process gradients (one graph and gradient cache)", () => {
  const r = selftest<{ runs: { chunk: number | null; max_abs_diff: number; loss: number }[]; max_abs_grad: number; loss_ref: number }>("ddp", { world: 2, chunks: [null, 2] });
  assert.ok(r.max_abs_grad > 1);
  assert.deepEqual(r.runs.map((x) => x.chunk), [null, 2]);
  for (const run of r.runs) {
    assert.ok(run.max_abs_diff < 1e-6, `chunk ${run.chunk}: max abs diff ${run.max_abs_diff}`);
    assert.ok(Math.abs(run.loss - r.loss_ref) < 1e-9, `chunk ${run.chunk}: loss ${run.loss} vs ${r.loss_ref}`);
  }
});

test("train.py with world_size 2 launches two workers; rank 0 writes the outputs and the loss is the one-process loss", () => {
  const dir = tempDir("cspipe-ddp-");
  const inputs = join(dir, "in");
  writeSyntheticInputs(inputs);
  const results = [1, 2].map((world) => {
    const cfg = join(dir, `cfg${world}.json`);
    writeFileSync(cfg, JSON.stringify(trainingConfig({ lr: 2e-3, epochs: 1, batch_size: 16, n_hard_negatives: 1, seed: 7, world_size: world, eval_before_training: false, export_onnx: false, parity_check_transformers: false, init: { kind: "random", bert_config: TEST_BERT } })));
    const out = join(dir, `out${world}`);
    const r = runTrainer(trainerArgv(cfg, inputs, out));
    assert.equal(r.status, 0, r.stderr);
    if (world === 2) {
      assert.match(r.stderr, /data-parallel: 2 worker processes/);
      assert.match(r.stderr, /rank 1 of 2 \(gloo\)/);
      assert.equal(r.stdout.split("\n").filter((l) => l.startsWith("EPOCH ")).length, 1, "only rank 0 prints EPOCH lines");
    }
    const metrics = readFileSync(join(out, "metrics.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as { train_loss: number });
    return { result: readTrainingResult(out), loss: metrics[0]!.train_loss };
  });
  const [one, two] = results as [(typeof results)[0], (typeof results)[0]];
  assert.equal(one.result["world_size"], 1);
  assert.equal(two.result["world_size"], 2);
  assert.equal(two.result.steps, one.result.steps);
  assert.ok(Math.abs(one.loss - two.loss) < 1e-5, `${one.loss} vs ${two.loss}`);
});

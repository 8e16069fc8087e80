/** A tiny end-to-end training run: dev R@5 improves, checkpoint + ONNX written, ONNX parity in onnxruntime-node. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as ort from "onnxruntime-node";
import { readNpy } from "../../steps/lib/npy.ts";
import { parseTrainerLine, readTrainingResult, trainerArgv, trainingConfig, TRAINING_OUTPUT_FILES } from "../../steps/training/contract.ts";
import { PYTHON, TEST_BERT, runTrainer, writeSyntheticInputs } from "./python.ts";
import { tempDir } from "../tmp.ts";

const dir = tempDir("cspipe-train-e2e-");
const inputs = join(dir, "in");
const out = join(dir, "out");
writeSyntheticInputs(inputs);
const cfgPath = join(dir, "cfg.json");
writeFileSync(
  cfgPath,
  JSON.stringify(trainingConfig({ lr: 2e-3, epochs: 10, batch_size: 8, n_hard_negatives: 1, seed: 7, progress_every: 10, init: { kind: "random", bert_config: TEST_BERT } })),
);
const run = runTrainer(trainerArgv(cfgPath, inputs, out));

test("training exits 0 and reports progress and per-epoch metrics on stdout", () => {
  assert.equal(run.status, 0, `${PYTHON} failed: ${run.stderr}`);
  const lines = run.stdout.split("\n").map(parseTrainerLine).filter((l) => l !== null);
  const progress = lines.filter((l) => l.kind === "progress");
  assert.deepEqual(progress.at(-1), { kind: "progress", done: 80, total: 80 }); // 64 queries / 8 per batch * 10 epochs
  const epochs = lines.filter((l) => l.kind === "epoch").map((l) => l.metrics.epoch);
  assert.deepEqual(epochs, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
});

test("dev Recall@5 improves over epochs and the best epoch is kept", () => {
  const result = readTrainingResult(out);
  const r = result.dev_recall_per_epoch;
  const before = r["0"]!;
  const best = r[String(result.best_epoch)]!;
  assert.ok(best >= before + 0.3, `best ${best} vs untrained ${before}`);
  assert.ok(best >= 0.5, `best dev R@5 ${best}`);
  // ties go to the earlier epoch: no earlier selectable epoch reaches the best value
  for (let e = 1; e < result.best_epoch; e++) assert.ok(r[String(e)]! < best);
  for (let e = 1; e <= 10; e++) assert.ok(r[String(e)]! <= best);
  assert.equal(result.steps, 80);
  assert.equal(result.examples, 640);
  assert.equal(result.fallback_negatives, 0); // every mined list holds non-gold candidates
  const metrics = readFileSync(join(out, TRAINING_OUTPUT_FILES.metrics), "utf8").trim().split("\n");
  assert.equal(metrics.length, 11);
});

test("checkpoint (HF BERT names) and config.json are written", () => {
  for (const f of [TRAINING_OUTPUT_FILES.queryWeights, TRAINING_OUTPUT_FILES.passageWeights, TRAINING_OUTPUT_FILES.config]) {
    assert.ok(existsSync(join(out, f)), f);
  }
  const buf = readFileSync(join(out, TRAINING_OUTPUT_FILES.queryWeights));
  const n = Number(buf.readBigUInt64LE(0));
  const header = JSON.parse(buf.subarray(8, 8 + n).toString("utf8")) as Record<string, { dtype: string; shape: number[] }>;
  assert.equal(header["embeddings.word_embeddings.weight"]?.dtype, "F32");
  assert.deepEqual(header["embeddings.word_embeddings.weight"]?.shape, [400, 64]);
  assert.ok("encoder.layer.1.attention.self.query.weight" in header);
  const config = JSON.parse(readFileSync(join(out, TRAINING_OUTPUT_FILES.config), "utf8")) as Record<string, unknown>;
  assert.equal(config.hidden_size, 64);
  assert.equal(config.model_type, "bert");
});

for (const name of ["query_encoder", "passage_encoder"]) {
  test(`${name}.onnx matches torch on the parity fixtures in onnxruntime-node (max abs diff < 1e-4)`, async () => {
    const session = await ort.InferenceSession.create(join(out, `${name}.onnx`));
    assert.deepEqual([...session.inputNames], ["input_ids", "attention_mask", "token_type_ids"]);
    assert.deepEqual([...session.outputNames], ["embedding"]);
    const fdir = join(out, "parity", name);
    const feeds: Record<string, ort.Tensor> = {};
    for (const input of ["input_ids", "attention_mask", "token_type_ids"]) {
      const a = readNpy(join(fdir, `${input}.npy`));
      assert.equal(a.dtype, "int64");
      feeds[input] = new ort.Tensor("int64", a.data as BigInt64Array, a.shape);
    }
    const want = readNpy(join(fdir, "embedding.npy"));
    assert.deepEqual(want.shape, [3, 64]);
    assert.deepEqual(feeds.input_ids!.dims, [3, 11]); // exported with [2, 7]: dynamic batch and seq
    const got = (await session.run(feeds)).embedding!;
    assert.deepEqual(got.dims, [3, 64]);
    const g = got.data as Float32Array;
    const w = want.data as Float32Array;
    let maxDiff = 0;
    for (let i = 0; i < w.length; i++) maxDiff = Math.max(maxDiff, Math.abs(g[i]! - w[i]!));
    assert.ok(maxDiff < 1e-4, `max abs diff ${maxDiff}`);
  });
}

test("a trained checkpoint loads back as init (kind 'checkpoint', bare HF BERT names)", () => {
  const cfg2 = join(dir, "cfg2.json");
  const init = { kind: "checkpoint" as const, query_path: join(out, "query_encoder.safetensors"), passage_path: join(out, "passage_encoder.safetensors") };
  writeFileSync(cfg2, JSON.stringify(trainingConfig({ lr: 1e-9, epochs: 1, batch_size: 64, n_hard_negatives: 0, export_onnx: false, save_checkpoint: false, init })));
  const r = runTrainer(trainerArgv(cfg2, inputs, join(dir, "out2")));
  assert.equal(r.status, 0, r.stderr);
  const result = readTrainingResult(join(dir, "out2"));
  const reports = result.load_reports as { prefix: string; loaded: number; unexpected: string[] }[];
  assert.deepEqual(reports.map((x) => [x.prefix, x.loaded, x.unexpected.length]), [["", 37, 0], ["", 37, 0]]);
  // the untrained (epoch 0) recall of the reloaded model equals the first run's best epoch
  const first = readTrainingResult(out);
  assert.equal(result.dev_recall_per_epoch["0"], first.dev_recall_per_epoch[String(first.best_epoch)]);
});

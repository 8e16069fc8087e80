/**
 * The report states the numerics its models were computed with, and refuses a report whose trained
 * models were computed with different numerics (issue 29: results that cannot be bitwise carry
 * their numerics identity and are never mixed).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { numericsRecord, numericsSentence } from "../../steps/report/numerics-record.ts";
import { OUTPUT_VIEWS } from "../../steps/report/provenance-kinds.ts";
import { tempDir } from "../tmp.ts";

const CPU = { device: "cpu", kernels: "pinned-avx2", machine: "x86_64", python: "3.11.2", modules: { torch: "1.13.0a0" }, threads: 1, blas: "OpenBLAS 0.3.21 Haswell", aten: "AVX2" };
const GPU = { ...CPU, device: "cuda", gpus: ["NVIDIA H200"], cuda: "13.0", cudnn: 91900 };

test("one identity for every trained model: recorded, and said in one sentence; exports listed apart", () => {
  const r = numericsRecord([
    { name: "train-dpr.b.s1", identity: CPU, trained: true },
    { name: "pretrain-dpr.theta0", identity: CPU, trained: true },
    { name: "import-dpr-checkpoint.dpr-nq", identity: { ...CPU, threads: 1, modules: { torch: "2.0.1" } }, trained: false },
  ]);
  assert.deepEqual(r.trained.map((g) => g.models), [["pretrain-dpr.theta0", "train-dpr.b.s1"]]);
  assert.equal(
    numericsSentence(r),
    "Every trained model (2) was computed with: CPU x86_64, pinned AVX2 kernels (OpenBLAS 0.3.21 Haswell; ATen AVX2), 1 thread, Python 3.11.2, torch 1.13.0a0. " +
      "Exported without training (import-dpr-checkpoint.dpr-nq): CPU x86_64, pinned AVX2 kernels (OpenBLAS 0.3.21 Haswell; ATen AVX2), 1 thread, Python 3.11.2, torch 2.0.1.",
  );
  assert.equal(numericsSentence(numericsRecord([])), "");
});

test("trained models of two numerics: the report refuses, naming both and the fix", () => {
  assert.throws(
    () => numericsRecord([{ name: "train-dpr.a.s1", identity: CPU, trained: true }, { name: "train-dpr.a.s2", identity: GPU, trained: true }, { name: "train-dpr.a.s3", identity: GPU, trained: true }]),
    (e: Error & { fix?: string }) =>
      /^field 'numerics': the report would compare models trained with 2 different numerics: CUDA on NVIDIA H200 .* \(2 models, e\.g\. train-dpr\.a\.s2\); and CPU x86_64, pinned AVX2 kernels .* \(1 model, e\.g\. train-dpr\.a\.s1\) Fix: /.test(e.message) && /GPUs for all or none/.test(e.fix ?? ""),
  );
});

test("a model's view carries the identity its trainer recorded, and whether it trained", async () => {
  const dir = join(tempDir(), "model");
  mkdirSync(dir);
  writeFileSync(join(dir, "metrics.jsonl"), '{"epoch": 1, "dev_recall_at_5": 0.5, "train_loss": 1.0, "selectable": true}\n');
  writeFileSync(join(dir, "result.json"), JSON.stringify({ best_epoch: 1, numerics: CPU }));
  const view = await OUTPUT_VIEWS.get("dpr:model")!(dir, "d".repeat(64), { copy: true, storePath: "entries/x/" });
  assert.deepEqual(view.numerics, { identity: CPU, trained: true });
  writeFileSync(join(dir, "metrics.jsonl"), "");
  writeFileSync(join(dir, "result.json"), JSON.stringify({ best_epoch: 0 }));
  assert.equal((await OUTPUT_VIEWS.get("dpr:model")!(dir, "d".repeat(64), { copy: true, storePath: "entries/x/" })).numerics, undefined);
});

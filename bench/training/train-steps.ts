/**
 * DPR training throughput on CPU: the tiny BERT (2 layers, hidden 128, 2 heads, intermediate
 * 512, vocab 30522) at batch 32 with 1 hard negative (32 queries x 64 tokens, 64 passages x
 * 128 tokens per step), torch at 1 thread vs 2 threads, measured in the same run.
 *
 *   npx tsx bench/training/train-steps.ts [epochs=3] [--quick]   (--quick: 2 epochs, the least that
 *   leaves one measured epoch after the warm-up epoch)
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BENCH_SHAPE, writeBenchInputs } from "../numerics/inputs.ts";
import { TRAINER_MODULE, epochRowsOf, trainerArgv, trainingConfig } from "../../steps/training/contract.ts";
import { TINY_BERT } from "../../steps/pytrain/model-configs.ts";
import { pythonCommand } from "../../steps/pytrain/launch.ts";

const PYTHON = process.env.CSPIPE_PYTHON ?? "/usr/bin/python3";
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const positional = process.argv.slice(2).find((a) => !a.startsWith("-"));
const epochs = Number(positional ?? (process.argv.includes("--quick") ? 2 : 3));
const dir = mkdtempSync(join(tmpdir(), "cspipe-bench-train-"));
const inputs = writeBenchInputs(join(dir, "in"));
const { queries: NQ, queryTokens: LQ, passageTokens: LP } = BENCH_SHAPE;

function measure(threads: number): number {
  const cfgPath = join(dir, `cfg-${threads}.json`);
  const out = join(dir, `out-${threads}`);
  writeFileSync(cfgPath, JSON.stringify(trainingConfig({ epochs, batch_size: 32, n_hard_negatives: 1, eval_before_training: false, export_onnx: false, save_checkpoint: false, parity_check_transformers: false, init: { kind: "random", bert_config: TINY_BERT } })));
  const r = spawnSync(PYTHON, pythonCommand(ROOT, TRAINER_MODULE, trainerArgv(cfgPath, inputs, out, threads)), { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`trainer failed: ${r.stderr}`);
  const rows = epochRowsOf(r.stdout).map((m) => ({ train_seconds: Number(m["train_seconds"]) }));
  const stepsPerEpoch = Math.ceil(NQ / 32);
  // skip the first epoch (warm-up: allocator, first-touch); best of the rest
  const rates = rows.slice(rows.length > 1 ? 1 : 0).map((m) => stepsPerEpoch / m.train_seconds);
  return Math.max(...rates);
}

const one = measure(1);
const two = measure(2);
console.log(`tiny BERT bi-encoder, batch 32 (+32 hard negatives), Lq ${LQ}, Lp ${LP}, ${epochs} epochs of ${Math.ceil(NQ / 32)} steps`);
console.log(`torch threads=1: ${one.toFixed(2)} steps/s`);
console.log(`torch threads=2: ${two.toFixed(2)} steps/s`);
console.log(`ratio threads2/threads1: ${(two / one).toFixed(2)}`);

/** The synthetic trainer inputs of the CPU training benchmarks (random token ids, deterministic). */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { writeNpy } from "../../steps/lib/npy.ts";
import { trainingConfig } from "../../steps/training/contract.ts";
import type { TrainerSettings } from "../../steps/training/config-schema.ts";
import { TINY_BERT } from "../../steps/pytrain/model-configs.ts";

export const BENCH_SHAPE = { queries: 256, passages: 512, queryTokens: 64, passageTokens: 128, negatives: 10 } as const;

/** Queries per step of the benchmarks' trainings (in-batch negatives, one mined negative each). */
export const BENCH_BATCH = 32;

/** The trainer config of the CPU training benchmarks: the tiny random BERT at BENCH_BATCH, no exports, with `settings` over it. */
export function benchTrainerConfig(settings: Partial<TrainerSettings>): ReturnType<typeof trainingConfig> {
  return trainingConfig({ batch_size: BENCH_BATCH, n_hard_negatives: 1, export_onnx: false, parity_check_transformers: false, ...settings, init: { kind: "random", bert_config: TINY_BERT } });
}

/** Writes the trainer's input files under `dir` and returns it. */
export function writeBenchInputs(dir: string): string {
  const { queries: NQ, passages: NP, queryTokens: LQ, passageTokens: LP, negatives: K } = BENCH_SHAPE;
  let seed = 12345;
  const rand = (n: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  const ids = (rows: number, len: number): Int32Array => {
    const a = new Int32Array(rows * len);
    for (let r = 0; r < rows; r++) {
      const l = Math.floor(len / 2) + rand(Math.floor(len / 2));
      a[r * len] = 101;
      for (let c = 1; c < l; c++) a[r * len + c] = 1000 + rand(29000);
    }
    return a;
  };
  mkdirSync(dir, { recursive: true });
  writeNpy(join(dir, "train_query_ids.npy"), { dtype: "int32", shape: [NQ, LQ], data: ids(NQ, LQ) });
  writeNpy(join(dir, "passage_ids.npy"), { dtype: "int32", shape: [NP, LP], data: ids(NP, LP) });
  writeNpy(join(dir, "train_pos.npy"), { dtype: "int32", shape: [NQ], data: Int32Array.from({ length: NQ }, (_, i) => i) });
  writeNpy(join(dir, "train_neg.npy"), { dtype: "int32", shape: [NQ, K], data: Int32Array.from({ length: NQ * K }, () => rand(NP)) });
  writeNpy(join(dir, "dev_query_ids.npy"), { dtype: "int32", shape: [32, LQ], data: ids(32, LQ) });
  writeNpy(join(dir, "dev_passage_ids.npy"), { dtype: "int32", shape: [64, LP], data: ids(64, LP) });
  writeNpy(join(dir, "dev_gold.npy"), { dtype: "int32", shape: [32, 1], data: Int32Array.from({ length: 32 }, (_, i) => i) });
  return dir;
}

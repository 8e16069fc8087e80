/**
 * The contract between the pipeline and the Python DPR trainer (module training.dpr.train, run by
 * the launcher: steps/pytrain/launch.ts):
 * the config JSON it reads, the input .npy files, the argv, the stdout protocol and the
 * result.json it writes. Pure (no I/O) except `readTrainingResult`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { InputError } from "../../pipeline/engine/errors.ts";
import { TRAINER_DEFAULTS, trainerParamsShape, type TrainerSettings } from "./config-schema.ts";
import type { BertConfig } from "../pytrain/model-configs.ts";

/** Relative paths in `init` are resolved against the config file's directory. */
export type TrainingInit =
  | { kind: "random"; bert_config?: BertConfig }
  | { kind: "checkpoint"; query_path: string; passage_path: string; bert_config?: BertConfig; query_prefix?: string; passage_prefix?: string }
  | { kind: "hf-dpr"; question_encoder_path: string; ctx_encoder_path: string; bert_config?: BertConfig };

/** The trainer's config: its settings (config-schema.ts, the one source) and where it starts from. */
export type TrainingConfig = TrainerSettings & { init: TrainingInit };

/** The paper's hyperparameters (Kim & Kim 2022, DPR): lr 3e-5, wd 0.1, 10% warm-up, clip 2.0, fp16, seed 42. */
export const TRAINING_DEFAULTS: Readonly<TrainerSettings> = TRAINER_DEFAULTS;

const settingsSchema = z.object(trainerParamsShape).strict();

/** A full config from overrides, checked against the schema (the Python side checks it again). */
export function trainingConfig(overrides: Partial<TrainerSettings> & { init: TrainingInit }): TrainingConfig {
  const { init, ...settings } = overrides;
  const parsed = settingsSchema.safeParse(settings);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InputError(issue.message, { field: issue.path.join("."), fix: "see steps/training/config-schema.ts for each key's range" });
  }
  const config = parsed.data as TrainerSettings;
  if (config.select === "last" && config.patience > 0) {
    throw new InputError(`select "last" keeps the last epoch, but patience ${config.patience} would stop the training early on dev Recall@k`, {
      field: "patience",
      fix: 'set patience to 0 with select "last", or select "best"',
    });
  }
  return { ...config, init };
}

/** Input directory files: name -> [expected content, required]. Token ids: pad 0, attention mask = ids != 0. */
export const TRAINING_INPUT_FILES: Readonly<Record<string, readonly [string, boolean]>> = Object.freeze({
  "train_query_ids.npy": ["int32 [Nq, Lq] token ids, pad 0", true],
  "passage_ids.npy": ["int32 [Np, Lp] token ids, pad 0", true],
  "passage_type_ids.npy": ["int8 [Np, Lp] token types (title 0 / text 1)", false],
  "train_pos.npy": ["int32 [Nq] row in passage_ids", true],
  "train_neg.npy": ["int32 [Nq, k] mined negatives, rank order, -1 padded (needed when n_hard_negatives > 0)", false],
  "train_gold.npy": ["int32 [Nq, g] every gold passage of the turn, -1 padded (never sampled as negatives)", false],
  "dev_query_ids.npy": ["int32 [Nd, Lq] token ids", true],
  "dev_passage_ids.npy": ["int32 [Ndp, Lp] token ids", true],
  "dev_passage_type_ids.npy": ["int8 [Ndp, Lp] token types", false],
  "dev_gold.npy": ["int32 [Nd, g] rows in dev_passage_ids, -1 padded", true],
});

/** Files the trainer writes into --out. */
export const TRAINING_OUTPUT_FILES = Object.freeze({
  queryWeights: "query_encoder.safetensors",
  passageWeights: "passage_encoder.safetensors",
  config: "config.json",
  queryOnnx: "query_encoder.onnx",
  passageOnnx: "passage_encoder.onnx",
  parityDir: "parity",
  metrics: "metrics.jsonl",
  result: "result.json",
});

/** The trainer's module (`python3 steps training.dpr.train ...`: steps/pytrain/launch.ts). */
export const TRAINER_MODULE = "training.dpr.train";

/** The trainer's arguments (after the launcher and the module: steps/pytrain/launch.ts's pythonCommand). */
export function trainerArgv(configPath: string, inputsDir: string, outDir: string, threads?: number): string[] {
  const argv = ["--config", configPath, "--inputs", inputsDir, "--out", outDir];
  if (threads !== undefined) argv.push("--threads", String(threads));
  return argv;
}

export interface EpochMetrics {
  epoch: number;
  selectable: boolean;
  dev_queries: number;
  [metric: string]: number | boolean;
}

export type TrainerLine =
  | { kind: "progress"; done: number; total: number }
  | { kind: "epoch"; metrics: EpochMetrics }
  | { kind: "result"; value: unknown };

/** One stdout line of the trainer; null for anything else (logs go to stderr). */
export function parseTrainerLine(line: string): TrainerLine | null {
  const progress = /^PROGRESS (\d+) (\d+)$/.exec(line.trim());
  if (progress) return { kind: "progress", done: Number(progress[1]), total: Number(progress[2]) };
  if (line.startsWith("EPOCH ")) return { kind: "epoch", metrics: JSON.parse(line.slice(6)) as EpochMetrics };
  if (line.startsWith("RESULT ")) return { kind: "result", value: JSON.parse(line.slice(7)) as unknown };
  return null;
}

export interface TrainingResult {
  best_epoch: number;
  dev_recall_per_epoch: Record<string, number>;
  steps: number;
  examples: number;
  train_queries: number;
  fallback_negatives: number;
  torch_version: string;
  device: string;
  threads: number;
  amp: string;
  outputs: string[];
  [key: string]: unknown;
}

/**
 * The EPOCH rows of a trainer's stdout, with the epochs' wall seconds (`seconds`, `train_seconds`),
 * which metrics.jsonl leaves out: an output holds what was computed, not how long it took
 * (steps/pytrain/metrics.py). For benchmarks, which time the trainer themselves.
 */
export function epochRowsOf(stdout: string): EpochMetrics[] {
  return stdout.split("\n").flatMap((l) => {
    const parsed = parseTrainerLine(l);
    return parsed?.kind === "epoch" ? [parsed.metrics] : [];
  });
}

/** Reads and checks `<outDir>/result.json`. */
export function readTrainingResult(outDir: string): TrainingResult {
  const file = join(outDir, TRAINING_OUTPUT_FILES.result);
  const raw = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  for (const [key, type] of [["best_epoch", "number"], ["steps", "number"], ["torch_version", "string"], ["device", "string"]] as const) {
    if (typeof raw[key] !== type) throw new InputError(`expected a ${type}`, { file, field: key, fix: "rerun the trainer; the file is incomplete" });
  }
  if (typeof raw.dev_recall_per_epoch !== "object" || raw.dev_recall_per_epoch === null) {
    throw new InputError("expected an object of per-epoch recalls", { file, field: "dev_recall_per_epoch" });
  }
  return raw as TrainingResult;
}

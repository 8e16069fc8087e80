/**
 * A trained bi-encoder's own model-selection record as an evaluation's metrics.json, so the
 * report's tables can show it (with mean ± sd over seeds): the dev Recall@k of the kept epoch,
 * the epochs trained and the kept epoch, read from the trainer's result.json and metrics.jsonl
 * (both part of the model's output, and so of its digest). Not its seconds: a model's outputs hold
 * what it computed, never how long that took (steps/pytrain/metrics.py), which the run prints and
 * the store keeps in the entry's manifest and log.
 *
 * This is what the dense setup's knobs are chosen on (`dev-selection`): each model's own dev
 * collection, never a test split. Pure except `readDevScore` and the step.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { InputError } from "../../pipeline/engine/errors.ts";
import { canonicalJson } from "../../pipeline/engine/canonical.ts";
import { defineStep, file } from "../../pipeline/engine/step.ts";
import type { MetricsFile } from "../eval/steps.ts";
import { parseEpochRows } from "../report/provenance-kinds.ts";
import type { EpochRow } from "../report/curves.ts";
import { readTrainingResult, TRAINING_OUTPUT_FILES, type TrainingResult } from "./contract.ts";

/** The metric names of a dev score (`dev-recall@k` carries the trainer's k). */
export const DEV_SCORE_METRICS = { epochs: "epochs", keptEpoch: "kept-epoch" } as const;
export const devRecallMetric = (k: number): string => `dev-recall@${k}`;

const resultSchema = z
  .object({
    best_epoch: z.number().int().min(0),
    epochs_run: z.number().int().min(0),
  })
  .passthrough();

/** An evaluation's metrics.json in shape (the report's tables read `aggregate.metrics` and `n`); no breakdowns. */
export type DevScoreFile = Omit<MetricsFile, "aggregate"> & { readonly aggregate: { readonly n: number; readonly metrics: Record<string, number>; readonly source: string } };

const RECALL_FIELD = /^dev_recall_at_(\d+)$/;

function fail(file: string, field: string, what: string): never {
  throw new InputError(what, { file, field, fix: "rerun the training step; a complete trainer writes it" });
}

/** The trainer's k and the kept epoch's dev Recall@k from result.json's `dev_recall_at_<k>`. */
function keptRecall(result: Record<string, unknown>, file: string): { k: number; value: number } {
  const fields = Object.keys(result).filter((f) => RECALL_FIELD.test(f));
  if (fields.length !== 1) fail(file, "dev_recall_at_<k>", `expected one dev_recall_at_<k> field, found ${fields.length === 0 ? "none" : fields.join(", ")}`);
  const field = fields[0]!;
  const value = result[field];
  if (typeof value !== "number") {
    throw new InputError(`${field} is ${JSON.stringify(value)}: the model was not scored on dev (exported without training or without --inputs)`, {
      file,
      field,
      fix: "a dev score needs a model trained with dev inputs; leave exported models out of the selection",
    });
  }
  return { k: Number(RECALL_FIELD.exec(field)![1]), value };
}

/**
 * The metrics file of a training: aggregate `dev-recall@k`, `epochs` and `kept-epoch`, N = the
 * dev queries scored at the kept epoch.
 */
export function devScoreMetrics(result: unknown, rows: readonly EpochRow[], files: { readonly result: string; readonly metrics: string }): DevScoreFile {
  const file = files.result;
  const parsed = resultSchema.safeParse(result);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    fail(file, issue.path.join(".") || "(root)", issue.message);
  }
  const r = parsed.data;
  const { k, value } = keptRecall(r, file);
  const kept = rows.find((row) => row.epoch === r.best_epoch);
  const n = kept?.dev_queries ?? [...rows].reverse().find((row) => typeof row.dev_queries === "number")?.dev_queries;
  if (typeof n !== "number") fail(files.metrics, "dev_queries", "no epoch row says how many dev queries were scored");
  const metrics = {
    [devRecallMetric(k)]: value,
    [DEV_SCORE_METRICS.epochs]: r.epochs_run,
    [DEV_SCORE_METRICS.keptEpoch]: r.best_epoch,
  };
  const all = { group: "all", n, metrics };
  return {
    split: "dev",
    aggregate: { n, metrics, source: "trainer's model selection (result.json, metrics.jsonl)" },
    byQuestionType: { by: "questionType", groups: [], unlabelled: n, all },
    byDomain: { by: "domain", groups: [], unlabelled: n, all },
  };
}

/** Reads a model directory's result.json and metrics.jsonl into its dev score. */
export function readDevScore(modelDir: string): DevScoreFile {
  let result: TrainingResult;
  try {
    result = readTrainingResult(modelDir);
  } catch (e) {
    // readTrainingResult names the file for a missing field but not for unreadable JSON; it stays
    // as it is, since contract.ts is in every training step's key.
    if (!(e instanceof SyntaxError)) throw e;
    throw new InputError(`cannot read it as JSON (${e.message})`, { file: join(modelDir, TRAINING_OUTPUT_FILES.result), fix: "rerun the training step" });
  }
  const metricsFile = join(modelDir, TRAINING_OUTPUT_FILES.metrics);
  let rows: EpochRow[] = [];
  try {
    rows = parseEpochRows(readFileSync(metricsFile, "utf8"), metricsFile);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
  return devScoreMetrics(result, rows, { result: join(modelDir, TRAINING_OUTPUT_FILES.result), metrics: metricsFile });
}

/** A model's dev score as a metrics.json the report's tables read (`dev-selection`). */
export const readDevScoreStep = defineStep({
  id: "read-dev-score",
  version: 1,
  source: import.meta.url,
  description: "A trained bi-encoder's own dev Recall@k at its kept epoch, its epochs and training seconds, as metrics for the tables.",
  params: z.object({}).strict(),
  inputs: { model: "dpr:model" },
  outputs: { metrics: file("json:metrics", "metrics.json") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const score = readDevScore(ctx.inputs.model);
      writeFileSync(ctx.outputs.metrics, canonicalJson(score, 2) + "\n");
      const m = score.aggregate.metrics;
      ctx.log(`${Object.entries(m).map(([k, v]) => `${k}=${Number.isInteger(v) ? v : v.toFixed(4)}`).join(" ")} over ${score.aggregate.n} dev queries`);
    },
  },
});

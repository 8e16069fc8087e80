/**
 * `assemble-dpr-examples` (in-process): tokenized queries, the tokenized collection, the turns'
 * gold passages and, when given, mined negatives and a dev collection become the DPR trainer's
 * input .npy files (steps/training/README.md). A module of its own, so that the trainings'
 * keys (steps.ts) do not cover this step's code, nor the miner's it reads negatives with.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { z } from "zod";
import { defineStep, dir, optional } from "../../pipeline/engine/step.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { canonicalJson } from "../../pipeline/engine/canonical.ts";
import { writeNpy } from "../lib/npy.ts";
import { readNegatives } from "../mining/steps.ts";
import { buildExamples } from "./examples.ts";
import { assembleParams, readGold, readLines, writeRows } from "./assemble-common.ts";
import { sameVocabulary, tokensVocab } from "../encoding/vocab-identity.ts";

async function assemble(
  ctx: {
    params: z.output<typeof assembleParams>;
    inputs: { trainQueries: string; devQueries: string; passages: string; turns: string; negatives: string | undefined; devCollection: string | undefined };
    outputs: { examples: string };
    log(line: string): void;
  },
): Promise<void> {
  const { trainSplit, devSplit, k, devPassages, seed } = ctx.params;
  // Queries and passages must share a vocabulary; the trainer checks it again against its initial model.
  const vocabDigest = sameVocabulary([ctx.inputs.passages, ctx.inputs.trainQueries, ctx.inputs.devQueries].map(tokensVocab));
  const { trainGold, devGold } = await readGold(ctx.inputs.turns, trainSplit, devSplit);
  const pids = await readLines(join(ctx.inputs.passages, "pids.txt"));
  const rowOf = new Map(pids.map((p, i) => [p, i]));
  const trainQids = await readLines(join(ctx.inputs.trainQueries, "qids.txt"));
  const devQids = await readLines(join(ctx.inputs.devQueries, "qids.txt"));
  const negatives = ctx.inputs.negatives === undefined ? undefined : await readNegatives(ctx.inputs.negatives);
  const devCollection = ctx.inputs.devCollection === undefined ? undefined : await readLines(ctx.inputs.devCollection);
  const ex = buildExamples({ trainQids, devQids, trainGold, devGold, rowOf, passages: pids.length, k, devPassages, seed, ...(negatives ? { negatives } : {}), ...(devCollection ? { devCollection } : {}) });
  if (devCollection !== undefined && ex.counts["dev_collection_missing"] === devCollection.length) {
    throw new InputError(`none of the ${devCollection.length} released dev passages is in the collection`, { file: ctx.inputs.devCollection!, fix: "use the dev collection of the same release as the passages" });
  }
  if (ex.trainRows.length === 0) {
    throw new InputError(`no training turn has a gold passage in the collection`, { file: ctx.inputs.turns, field: "gold_passage_ids", fix: "check that the turns and passages come from the same dataset" });
  }
  if (ex.devRows.length === 0) throw new InputError(`no '${devSplit}' turn has a gold passage in the collection`, { file: ctx.inputs.turns, field: "split", fix: "pick a dev split with gold passages" });
  const out = ctx.outputs.examples;
  writeRows(join(ctx.inputs.trainQueries, "ids.npy"), ex.trainRows, join(out, "train_query_ids.npy"));
  writeNpy(join(out, "train_pos.npy"), { dtype: "int32", shape: [ex.pos.length], data: ex.pos });
  writeNpy(join(out, "train_gold.npy"), { dtype: "int32", shape: [ex.pos.length, ex.gold.cols], data: ex.gold.data });
  if (ex.neg) writeNpy(join(out, "train_neg.npy"), { dtype: "int32", shape: [ex.pos.length, ex.neg.cols], data: ex.neg.data });
  writeRows(join(ctx.inputs.devQueries, "ids.npy"), ex.devRows, join(out, "dev_query_ids.npy"));
  writeRows(join(ctx.inputs.passages, "ids.npy"), ex.devPassageRows, join(out, "dev_passage_ids.npy"));
  writeRows(join(ctx.inputs.passages, "type_ids.npy"), ex.devPassageRows, join(out, "dev_passage_type_ids.npy"));
  writeNpy(join(out, "dev_gold.npy"), { dtype: "int32", shape: [ex.devRows.length, ex.devGold.cols], data: ex.devGold.data });
  await writeFile(join(out, "meta.json"), canonicalJson({ counts: ex.counts, negatives: ex.neg !== null, k, devPassages, seed, ...(vocabDigest ? { vocabDigest } : {}) }, 2) + "\n");
  ctx.log(Object.entries(ex.counts).map(([key, v]) => `${key}=${v}`).join(" "));
}

/**
 * Examples for in-batch-negative training; with `negatives`, also the top-k mined negatives of
 * each example (train_neg.npy); with `devCollection`, a released (or BM25-hard) dev collection's
 * passage ids instead of a sampled one.
 */
export const assembleExamples = defineStep({
  id: "assemble-dpr-examples",
  version: 1,
  source: import.meta.url,
  description: "The DPR trainer's input files: training examples (positive, gold, mined negatives if given), dev queries and the dev collection (given, or sampled).",
  params: assembleParams,
  inputs: {
    trainQueries: "tokens:queries",
    devQueries: "tokens:queries",
    passages: "tokens:passages",
    turns: "parquet:turns",
    negatives: optional("parquet:negatives"),
    devCollection: optional("ids:passages"),
  },
  outputs: { examples: dir("dpr:examples", "examples") },
  runtime: { type: "in-process", run: assemble },
});

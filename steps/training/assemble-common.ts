/**
 * What the assemble steps of DPR (assemble-step.ts: assemble-dpr-examples) and DCSR
 * (steps/dcsr/examples-step.ts: assemble-dcsr-examples[-mined]) share: their params, reading the turns'
 * gold passages and a token directory's id lines, and copying rows of a token matrix.
 */
import { readFile } from "node:fs/promises";
import { closeSync, openSync, writeSync } from "node:fs";
import { z } from "zod";
import { readParquetRows } from "../lib/parquet.ts";
import { npyHeader } from "../lib/npy.ts";
import { readNpyRows } from "../lib/npy-rows.ts";
import type { TurnRow } from "../data/schemas.ts";

export const assembleParams = z
  .object({
    /** Split whose turns are the training examples (their qids must match the train query tokens). */
    trainSplit: z.string().default("train"),
    devSplit: z.string().default("dev"),
    /** Mined negatives kept per example (top k). */
    k: z.number().int().positive().default(100),
    /** Dev collection size: the dev turns' gold passages plus a seeded sample; 0 = the whole collection. Ignored with a devCollection input. */
    devPassages: z.number().int().nonnegative().default(0),
    seed: z.number().int().default(42),
  })
  .strict();

/** The non-empty lines of a text file (pids.txt, qids.txt, a dev collection's ids). */
export async function readLines(path: string): Promise<string[]> {
  return (await readFile(path, "utf8")).split("\n").filter((l) => l.length > 0);
}

/** The gold passage ids of the turns of two splits, by qid (per split: qids repeat across splits, TopiOCQA numbers conversations from 1 in each). */
export async function readGold(turnsFile: string, trainSplit: string, devSplit: string): Promise<{ trainGold: Map<string, string[]>; devGold: Map<string, string[]> }> {
  const trainGold = new Map<string, string[]>();
  const devGold = new Map<string, string[]>();
  for await (const t of readParquetRows<TurnRow>(turnsFile)) {
    if (t.split === trainSplit) trainGold.set(t.qid, [...t.gold_passage_ids]);
    if (t.split === devSplit) devGold.set(t.qid, [...t.gold_passage_ids]);
  }
  return { trainGold, devGold };
}

/** Copies rows of a token matrix into a new .npy (same dtype and width). */
export function writeRows(src: string, rows: readonly number[], dest: string): void {
  const { header, bytes } = readNpyRows(src, rows);
  const fd = openSync(dest, "w");
  try {
    writeSync(fd, npyHeader(header.dtype, [rows.length, header.cols]));
    writeSync(fd, bytes);
  } finally {
    closeSync(fd);
  }
}

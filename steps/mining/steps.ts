/**
 * The mining step: a run over the training turns (BM25(X_t), θ0 on the gold rewrite = CQR,
 * θ_{i-1} on X_t = model negatives, BM25 on the rewrite) becomes per-query hard-negative
 * lists in Parquet, with scores.
 */
import * as arrow from "apache-arrow";
import { z } from "zod";
import { defineStep, file } from "../../pipeline/engine/step.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { readParquetRows, writeParquetFile } from "../lib/parquet.ts";
import { once } from "../lib/once.ts";
import type { TurnRow } from "../data/schemas.ts";
import type { RunRow } from "../eval/run-table.ts";
import { mineNegatives, type NegativeList } from "./negatives.ts";

export const negativesSchema = once(() => new arrow.Schema([
  new arrow.Field("qid", new arrow.Utf8(), false),
  new arrow.Field("pids", new arrow.List(new arrow.Field("item", new arrow.Utf8(), false)), false),
  new arrow.Field("scores", new arrow.List(new arrow.Field("item", new arrow.Float64(), false)), false),
]));

export async function readNegatives(path: string): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for await (const r of readParquetRows<NegativeList>(path)) out.set(r.qid, [...r.pids]);
  return out;
}

export const mineNegativesStep = defineStep({
  id: "mine-negatives",
  version: 1,
  source: import.meta.url,
  description: "Top-k hard negatives per training turn from a run, gold passages excluded by default.",
  params: z
    .object({
      split: z.string().default("train"),
      k: z.number().int().positive().default(100),
      /** The authors' code keeps the gold passage among the negatives; false reproduces that. */
      excludeGold: z.boolean().default(true),
    })
    .strict(),
  inputs: { run: "parquet:run", turns: "parquet:turns" },
  outputs: { negatives: file("parquet:negatives", "negatives.parquet") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const { split, k, excludeGold } = ctx.params;
      const goldOf = new Map<string, string[]>();
      for await (const t of readParquetRows<TurnRow>(ctx.inputs.turns)) if (t.split === split) goldOf.set(t.qid, [...t.gold_passage_ids]);
      if (goldOf.size === 0) throw new InputError(`no turns in split '${split}'`, { file: ctx.inputs.turns, field: "split" });
      const rows: RunRow[] = [];
      for await (const r of readParquetRows<RunRow>(ctx.inputs.run)) if (goldOf.has(r.qid)) rows.push(r);
      if (rows.length === 0) throw new InputError(`the run has no hits for split '${split}'`, { file: ctx.inputs.run, fix: "search the training turns of the same dataset" });
      const { lists, goldDropped } = mineNegatives(rows, goldOf, { k, excludeGold });
      await writeParquetFile(ctx.outputs.negatives, negativesSchema(), lists);
      const mean = lists.reduce((a, l) => a + l.pids.length, 0) / Math.max(1, lists.length);
      ctx.log(`${lists.length} queries, ${mean.toFixed(1)} negatives each, ${goldDropped} gold hits dropped`);
    },
  },
});

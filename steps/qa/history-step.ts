/**
 * `add-synthetic-history`: a turns table with each turn's history replaced by a synthetic one of
 * other questions about the same entity (synthetic-history.ts), for pre-training the mini
 * readers on standalone questions in the conversational input format they are tested on.
 */
import { z } from "zod";
import { defineStep, file } from "../../pipeline/engine/step.ts";
import { readParquetRows, writeParquetFile } from "../lib/parquet.ts";
import { compareTurns, turnsSchema, type PassageRow, type TurnRow } from "../data/schemas.ts";
import { withSyntheticHistory, type SyntheticHistoryCounts } from "./synthetic-history.ts";

export const addSyntheticHistory = defineStep({
  id: "add-synthetic-history",
  version: 1,
  source: import.meta.url,
  description: "Turns with a synthetic conversational history: other questions (and answers) about the same entity, 0..maxTurns of them.",
  params: z.object({ maxTurns: z.number().int().nonnegative(), seed: z.number().int().nonnegative() }).strict(),
  inputs: { turns: "parquet:turns", passages: "parquet:passages" },
  outputs: { turns: file("parquet:turns", "turns.parquet") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const turns: TurnRow[] = [];
      for await (const t of readParquetRows<TurnRow>(ctx.inputs.turns)) turns.push(t);
      const gold = new Set(turns.flatMap((t) => t.gold_passage_ids.slice(0, 1)));
      const titles = new Map<string, string | null>();
      for await (const p of readParquetRows<PassageRow>(ctx.inputs.passages)) if (gold.has(p.id)) titles.set(p.id, p.title);
      const counts: SyntheticHistoryCounts = { turns: 0, withHistory: 0, items: 0, noEntity: 0 };
      const out = withSyntheticHistory(turns, (pid) => titles.get(pid) ?? null, ctx.params, counts);
      await writeParquetFile(ctx.outputs.turns, turnsSchema(), out.sort(compareTurns));
      ctx.log(`${counts.turns} turns, ${counts.withHistory} with a history (${counts.items} items, ${(counts.items / Math.max(1, counts.turns)).toFixed(2)} per turn), ${counts.noEntity} without a gold passage title`);
    },
  },
});

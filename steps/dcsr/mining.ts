/**
 * DCSR x IHN's negatives: the sentences a DCSR model ranks highest for each training turn,
 * none from a gold passage of the turn (the gold passage's other sentences are what the
 * in-passage negatives are for), top k in rank order. The pure core and its step.
 */
import * as arrow from "apache-arrow";
import { z } from "zod";
import { defineStep, file } from "../../pipeline/engine/step.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { readParquetRows, writeParquetFile } from "../lib/parquet.ts";
import { once } from "../lib/once.ts";
import type { TurnRow } from "../data/schemas.ts";
import type { SentenceRunRow } from "./search.ts";
import type { SentenceList } from "./examples.ts";

export const sentenceNegativesSchema = once(() => new arrow.Schema([
  new arrow.Field("qid", new arrow.Utf8(), false),
  new arrow.Field("pids", new arrow.List(new arrow.Field("item", new arrow.Utf8(), false)), false),
  new arrow.Field("slots", new arrow.List(new arrow.Field("item", new arrow.Int32(), false)), false),
  new arrow.Field("scores", new arrow.List(new arrow.Field("item", new arrow.Float64(), false)), false),
]));

export interface SentenceNegativeList {
  readonly qid: string;
  readonly pids: string[];
  readonly slots: number[];
  readonly scores: number[];
}

/** Per query (qid order): the top-k sentences by rank that are not in a gold passage. */
export function mineSentenceNegatives(run: Iterable<SentenceRunRow>, goldOf: ReadonlyMap<string, readonly string[]>, k: number): { lists: SentenceNegativeList[]; goldDropped: number } {
  const byQuery = new Map<string, SentenceRunRow[]>();
  for (const r of run) {
    if (!goldOf.has(r.qid)) continue;
    let rows = byQuery.get(r.qid);
    if (rows === undefined) byQuery.set(r.qid, (rows = []));
    rows.push(r);
  }
  let goldDropped = 0;
  const lists: SentenceNegativeList[] = [];
  for (const qid of [...byQuery.keys()].sort()) {
    const gold = new Set(goldOf.get(qid) ?? []);
    const rows = byQuery.get(qid)!.sort((a, b) => a.rank - b.rank);
    const list: SentenceNegativeList = { qid, pids: [], slots: [], scores: [] };
    for (const r of rows) {
      if (list.pids.length >= k) break;
      if (gold.has(r.pid)) {
        goldDropped++;
        continue;
      }
      list.pids.push(r.pid);
      list.slots.push(r.slot);
      list.scores.push(r.score);
    }
    lists.push(list);
  }
  return { lists, goldDropped };
}

export async function readSentenceNegatives(path: string): Promise<Map<string, SentenceList>> {
  const out = new Map<string, SentenceList>();
  for await (const r of readParquetRows<SentenceNegativeList>(path)) out.set(r.qid, { pids: [...r.pids], slots: [...r.slots] });
  return out;
}

export const mineDcsrNegatives = defineStep({
  id: "mine-dcsr-negatives",
  version: 1,
  source: import.meta.url,
  description: "Top-k sentences per training turn from a DCSR sentence run, gold passages excluded.",
  params: z.object({ split: z.string().default("train"), k: z.number().int().positive().default(100) }).strict(),
  inputs: { sentences: "parquet:sentence-run", turns: "parquet:turns" },
  outputs: { negatives: file("parquet:sentence-negatives", "negatives.parquet") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const { split, k } = ctx.params;
      const goldOf = new Map<string, string[]>();
      for await (const t of readParquetRows<TurnRow>(ctx.inputs.turns)) if (t.split === split) goldOf.set(t.qid, [...t.gold_passage_ids]);
      if (goldOf.size === 0) throw new InputError(`no turns in split '${split}'`, { file: ctx.inputs.turns, field: "split" });
      const rows: SentenceRunRow[] = [];
      for await (const r of readParquetRows<SentenceRunRow>(ctx.inputs.sentences)) rows.push(r);
      const { lists, goldDropped } = mineSentenceNegatives(rows, goldOf, k);
      if (lists.length === 0) throw new InputError(`the sentence run has no hits for split '${split}'`, { file: ctx.inputs.sentences, fix: "search the training turns of the same dataset" });
      await writeParquetFile(ctx.outputs.negatives, sentenceNegativesSchema(), lists);
      const mean = lists.reduce((a, l) => a + l.pids.length, 0) / lists.length;
      ctx.log(`${lists.length} queries, ${mean.toFixed(1)} negative sentences each, ${goldDropped} gold-passage sentences dropped`);
    },
  },
});

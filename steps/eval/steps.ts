/**
 * The evaluation step: a run against the gold passages of one split's turns, with
 * trec_eval semantics, per-query metrics in Parquet and aggregates plus breakdowns (by
 * question type and source domain, each with its N) in JSON.
 */
import { writeFile } from "node:fs/promises";
import { z } from "zod";
import { defineStep, file } from "../../pipeline/engine/step.ts";
import { canonicalJson } from "../../pipeline/engine/canonical.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { readParquetRows } from "../lib/parquet.ts";
import type { TurnRow } from "../data/schemas.ts";
import { evaluateRun } from "./evaluate.ts";
import { DOMAIN_ORDER, QUESTION_TYPE_ORDER, writePerQuery } from "./outputs.ts";
import { breakdown, type QueryLabels } from "./breakdown.ts";
import { readRunParquet } from "./run-table.ts";
import type { Qrels } from "./types.ts";


export interface MetricsFile {
  readonly split: string;
  readonly aggregate: ReturnType<typeof evaluateRun>["aggregate"];
  readonly byQuestionType: ReturnType<typeof breakdown>;
  readonly byDomain: ReturnType<typeof breakdown>;
}

export const evaluateRunStep = defineStep({
  id: "evaluate-run",
  version: 1,
  source: import.meta.url,
  description: "MRR / Recall@k / Success@k of a run on one split, with breakdowns.",
  params: z
    .object({
      split: z.string(),
      metrics: z.array(z.string()).min(1),
      noGold: z.enum(["normalized", "raw"]).default("normalized"),
      missing: z.enum(["zero", "skip"]).default("zero"),
    })
    .strict(),
  inputs: { run: "parquet:run", turns: "parquet:turns" },
  outputs: { metrics: file("json:metrics", "metrics.json"), perQuery: file("parquet:per-query", "per-query.parquet") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const { split, metrics, noGold, missing } = ctx.params;
      const qrels: Qrels = new Map();
      const labels = new Map<string, QueryLabels>();
      for await (const t of readParquetRows<TurnRow>(ctx.inputs.turns)) {
        if (t.split !== split) continue;
        qrels.set(t.qid, new Map(t.gold_passage_ids.map((p) => [p, 1])));
        const l: { questionType?: string; domain?: string } = {};
        if (t.question_type) l.questionType = t.question_type;
        if (t.source_domain) l.domain = t.source_domain;
        labels.set(t.qid, l);
      }
      if (qrels.size === 0) throw new InputError(`no turns in split '${split}'`, { file: ctx.inputs.turns, field: "split" });
      const run = await readRunParquet(ctx.inputs.run);
      const ev = evaluateRun(run, qrels, { metrics, noGold, missing });
      const out: MetricsFile = {
        split,
        aggregate: ev.aggregate,
        byQuestionType: breakdown(ev.perQuery, labels, { by: "questionType", order: QUESTION_TYPE_ORDER }),
        byDomain: breakdown(ev.perQuery, labels, { by: "domain", order: DOMAIN_ORDER }),
      };
      await writeFile(ctx.outputs.metrics, canonicalJson(out, 2) + "\n");
      await writePerQuery(ctx.outputs.perQuery, ev.perQuery);
      ctx.log(`${ev.aggregate.n} queries evaluated: ${Object.entries(ev.aggregate.metrics).map(([k, v]) => `${k}=${v.toFixed(4)}`).join(" ")}`);
    },
  },
});

/**
 * The evaluation step: a run against the gold passages of one split's turns, with
 * trec_eval semantics, per-query metrics in Parquet and aggregates plus breakdowns (by
 * question type and source domain, each with its N) in JSON.
 */
import { writeFile } from "node:fs/promises";
import * as arrow from "apache-arrow";
import { z } from "zod";
import { defineStep, file } from "../../pipeline/engine/step.ts";
import { canonicalJson } from "../../pipeline/engine/canonical.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { readParquetRows, writeParquetFile } from "../lib/parquet.ts";
import type { TurnRow } from "../data/schemas.ts";
import { evaluateRun, type PerQueryRow } from "./evaluate.ts";
import { breakdown, type QueryLabels } from "./breakdown.ts";
import { readRunParquet } from "./run-table.ts";
import type { Qrels } from "./types.ts";

/** Question-type group order per dataset family (the paper's column order). */
const TYPE_ORDER = ["first", "switch", "no-switch", "topic-continues", "topic-switch"];

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
        byQuestionType: breakdown(ev.perQuery, labels, { by: "questionType", order: TYPE_ORDER }),
        byDomain: breakdown(ev.perQuery, labels, { by: "domain", order: ["quac", "nq", "trec"] }),
      };
      await writeFile(ctx.outputs.metrics, canonicalJson(out, 2) + "\n");
      await writePerQuery(ctx.outputs.perQuery, ev.perQuery);
      ctx.log(`${ev.aggregate.n} queries evaluated: ${Object.entries(ev.aggregate.metrics).map(([k, v]) => `${k}=${v.toFixed(4)}`).join(" ")}`);
    },
  },
});

async function writePerQuery(path: string, rows: readonly PerQueryRow[]): Promise<void> {
  const names = Object.keys(rows[0]?.metrics ?? {}).sort();
  const schema = new arrow.Schema([
    new arrow.Field("qid", new arrow.Utf8(), false),
    new arrow.Field("n_gold", new arrow.Int32(), false),
    new arrow.Field("n_retrieved", new arrow.Int32(), false),
    ...names.map((n) => new arrow.Field(n, new arrow.Float64(), false)),
  ]);
  await writeParquetFile(
    path,
    schema,
    rows.map((r) => ({ qid: r.qid, n_gold: r.nGold, n_retrieved: r.nRetrieved, ...r.metrics })),
  );
}

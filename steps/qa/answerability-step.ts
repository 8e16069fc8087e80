/**
 * `measure-answerability`: the answerability of one split under one retriever's run
 * (answerability.ts): answer in the gold passage, gold and answer in the top k, the oracle
 * extractive EM / F1, as a metrics.json in the evaluations' shape (aggregate + breakdowns by
 * question type and domain, so Table 5's ceilings table reads it as it reads `em`), and the
 * per-turn figures. Gold answers come from a references file (TopiOCQA's Additional_answers
 * included) or, for a dataset without one (mini-nq), from the turns table's `answer`.
 */
import { writeFileSync } from "node:fs";
import { z } from "zod";
import { defineStep, file } from "../../pipeline/engine/step.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { canonicalJson } from "../../pipeline/engine/canonical.ts";
import { readParquetRows } from "../lib/parquet.ts";
import type { PassageRow, TurnRow } from "../data/schemas.ts";
import { readRunParquet } from "../eval/run-table.ts";
import { DOMAIN_ORDER, QUESTION_TYPE_ORDER, writePerQuery } from "../eval/outputs.ts";
import { breakdown, type QueryLabels } from "../eval/breakdown.ts";
import { compareUtf8 } from "../eval/ranking.ts";
import { topPassages } from "./reader-data.ts";
import { readReferences } from "./formats.ts";
import { answerability, type AnswerabilityTurn } from "./answerability.ts";

const params = z
  .object({
    split: z.string(),
    scoring: z.enum(["qrecc", "topiocqa", "max"]),
    ks: z.array(z.number().int().positive()).min(1),
    maxAnswerTokens: z.number().int().positive(),
  })
  .strict();

const FROM_TURNS = { run: "parquet:run", turns: "parquet:turns", passages: "parquet:passages" } as const;
const FROM_REFERENCES = { ...FROM_TURNS, references: "qa:references" } as const;
/** Where a turn's gold answers come from: a references file, or the turns table. */
const INPUTS = { references: FROM_REFERENCES, turns: FROM_TURNS } as const;
type AnswerSource = keyof typeof INPUTS;

function makeDef<S extends AnswerSource>(source: S) {
  return defineStep({
    id: "measure-answerability",
    version: 1,
    source: import.meta.url,
    description: "Answerability of a split under a run: answer in the gold passage, gold / answer in the top k, oracle extractive EM and F1 by the dataset's rule.",
    params,
    inputs: INPUTS[source] as (typeof INPUTS)[S],
    outputs: { metrics: file("json:metrics", "answerability.json"), perQuery: file("parquet:per-query", "per-query.parquet") },
    runtime: {
      type: "in-process",
      async run(ctx) {
        const p = ctx.params;
        const turns: TurnRow[] = [];
        for await (const t of readParquetRows<TurnRow>(ctx.inputs.turns)) if (t.split === p.split) turns.push(t);
        if (turns.length === 0) throw new InputError(`no turns in split '${p.split}'`, { file: ctx.inputs.turns, field: "split" });
        turns.sort((a, b) => compareUtf8(a.qid, b.qid));
        const refFile = (ctx.inputs as { references?: string }).references;
        const refs = refFile === undefined ? null : new Map(readReferences(refFile).references.map((r) => [r.qid, r.answers]));
        const answersOf = (t: TurnRow): readonly string[] => (refs === null ? (t.answer === null ? [] : [t.answer]) : (refs.get(t.qid) ?? []));
        const run = await readRunParquet(ctx.inputs.run);
        const kMax = Math.max(...p.ks);
        const items: AnswerabilityTurn[] = turns.map((t) => ({ qid: t.qid, answers: answersOf(t), goldPassageIds: t.gold_passage_ids, ranked: topPassages(run.get(t.qid) ?? [], kMax) }));
        const needed = new Set(items.flatMap((t) => [...t.goldPassageIds, ...t.ranked]));
        const passages = new Map<string, string>();
        for await (const row of readParquetRows<PassageRow>(ctx.inputs.passages)) if (needed.has(row.id)) passages.set(row.id, row.text);
        const a = answerability(items, passages, { scoring: p.scoring, ks: p.ks, maxAnswerTokens: p.maxAnswerTokens });
        if (a.n === 0) throw new InputError(`no '${p.split}' turn has a gold answer the '${p.scoring}' rule scores`, { file: refFile ?? ctx.inputs.turns, fix: "extract the references of the split the turns table holds" });
        const labels = new Map<string, QueryLabels>(turns.map((t) => [t.qid, { ...(t.question_type ? { questionType: t.question_type } : {}), ...(t.source_domain ? { domain: t.source_domain } : {}) }]));
        const nGold = new Map(items.map((t) => [t.qid, t.goldPassageIds.length]));
        const rows = a.perTurn.map((r) => ({ qid: r.qid, nGold: nGold.get(r.qid)!, nRetrieved: kMax, metrics: r.metrics }));
        const metrics = Object.keys(a.metrics);
        const out = {
          split: p.split,
          aggregate: { metrics: a.metrics, n: a.n, scoring: p.scoring, ks: p.ks, maxAnswerTokens: p.maxAnswerTokens, answers: source, counts: a.counts },
          byQuestionType: breakdown(rows, labels, { by: "questionType", order: QUESTION_TYPE_ORDER, metrics }),
          byDomain: breakdown(rows, labels, { by: "domain", order: DOMAIN_ORDER, metrics }),
        };
        writeFileSync(ctx.outputs.metrics, canonicalJson(out, 2) + "\n");
        await writePerQuery(ctx.outputs.perQuery, rows);
        const pct = (m: string) => (100 * a.metrics[m]!).toFixed(1);
        ctx.log(`N ${a.n} (${a.counts.skipped} skipped); answer in gold passage ${pct("answer-in-gold")}%; ${p.ks.map((k) => `top ${k}: gold ${pct(`gold@${k}`)}%, answer ${pct(`answer@${k}`)}%, oracle EM ${pct(`oracle-em@${k}`)} F1 ${pct(`oracle-f1@${k}`)}`).join("; ")}`);
      },
    },
  });
}

const defs = new Map<AnswerSource, unknown>();

/** The step reading gold answers from a references file (`references`) or from the turns table (`turns`). */
export function measureAnswerabilityDef<S extends AnswerSource>(source: S): ReturnType<typeof makeDef<S>> {
  let def = defs.get(source);
  if (def === undefined) defs.set(source, (def = makeDef(source)));
  return def as ReturnType<typeof makeDef<S>>;
}

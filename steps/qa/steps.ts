/**
 * End-to-end QA as steps, shared by both readers:
 * - `build-reader-data`: a retriever's run over one split -> reader examples (reader-data.ts);
 * - `extract-qa-references`: the gold answers of a split from the dataset's own file (SCAI
 *   ground truth, TopiOCQA raw turns with Additional_answers), parsed as `evaluate-qa` parses them;
 * - `evaluate-qa-predictions`: EM/F1 by the dataset's rule with breakdowns (metrics.json, the
 *   retrieval evaluation's shape, so the table renderer reads `em` and `f1` like `recall@10`).
 * The DPR reader's steps are in dpr_reader/steps.ts, FiD's in fid/steps.ts.
 */
import { writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { z } from "zod";
import { defineStep, dir, file } from "../../pipeline/engine/step.ts";
import { defineStepWith } from "../../pipeline/engine/def-identity.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { canonicalJson } from "../../pipeline/engine/canonical.ts";
import { filesNamed } from "../lib/find-files.ts";
import { readParquetRows } from "../lib/parquet.ts";
import type { PassageRow, TurnRow } from "../data/schemas.ts";
import { readRunParquet } from "../eval/run-table.ts";
import { writePerQuery } from "../eval/outputs.ts";
import type { QueryLabels } from "../eval/breakdown.ts";
import { readerExample, topPassages, type ReaderDataCounts, type ReaderExample } from "./reader-data.ts";
import { readPredictions, readReferences } from "./formats.ts";
import { evaluateAnswers, qaMetricsFile } from "./evaluate.ts";
import { QA_SCORING } from "./scoring.ts";
import { writeJsonLines } from "./reader-io.ts";

export const buildReaderData = defineStep({
  id: "build-reader-data",
  version: 1,
  source: import.meta.url,
  description: "Reader examples: each turn's top-N passages of a run, marked has-answer with answer spans (gold added for training).",
  params: z
    .object({
      split: z.string(),
      topN: z.number().int().positive().default(100),
      addGold: z.boolean().default(false),
      /** Best-F1 spans (> minF1) for answers that do not occur verbatim (QReCC, TopiOCQA free-text answers). */
      fuzzy: z.boolean().default(true),
      minF1: z.number().min(0).max(1).default(0.5),
      maxSpans: z.number().int().positive().default(10),
    })
    .strict(),
  inputs: { run: "parquet:run", turns: "parquet:turns", passages: "parquet:passages" },
  outputs: { data: dir("qa:reader-data", "reader-data") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const p = ctx.params;
      const run = await readRunParquet(ctx.inputs.run);
      const turns: TurnRow[] = [];
      for await (const t of readParquetRows<TurnRow>(ctx.inputs.turns)) if (t.split === p.split) turns.push(t);
      if (turns.length === 0) throw new InputError(`no turns in split '${p.split}'`, { file: ctx.inputs.turns, field: "split" });
      const ranked = new Map(turns.map((t) => [t.qid, topPassages(run.get(t.qid) ?? [], p.topN)]));
      const needed = new Set<string>();
      for (const t of turns) {
        for (const pid of ranked.get(t.qid)!) needed.add(pid);
        if (p.addGold) for (const g of t.gold_passage_ids) needed.add(g);
      }
      const passages = new Map<string, PassageRow>();
      for await (const row of readParquetRows<PassageRow>(ctx.inputs.passages)) if (needed.has(row.id)) passages.set(row.id, row);
      const counts: ReaderDataCounts = { turns: 0, noAnswer: 0, withAnswerInTopN: 0, goldAdded: 0, exactPassages: 0, f1Passages: 0 };
      const examples: ReaderExample[] = [];
      for (const t of turns) {
        const ex = readerExample(t, ranked.get(t.qid)!, passages, { topN: p.topN, addGold: p.addGold, fuzzy: p.fuzzy, minF1: p.minF1, maxSpans: p.maxSpans }, counts);
        if (ex !== null) examples.push(ex);
      }
      const missing = [...needed].filter((pid) => !passages.has(pid)).length;
      await writeJsonLines(join(ctx.outputs.data, "examples.jsonl"), examples);
      writeFileSync(join(ctx.outputs.data, "meta.json"), canonicalJson({ format: "cspipe/reader-data@1", split: p.split, counts: { ...counts, examples: examples.length, passagesMissing: missing } }, 2) + "\n");
      ctx.log(`${examples.length} examples of ${counts.turns} turns; answer in the top ${p.topN} for ${counts.withAnswerInTopN}; gold added ${counts.goldAdded}; ${counts.exactPassages} exact / ${counts.f1Passages} best-F1 passages; ${missing} run passages not in the collection`);
    },
  },
});

/** The one file under `root` with one of `names` (a release's names for the same file). */
function findFile(root: string, names: readonly string[]): string {
  const hits = filesNamed(root, names);
  const named = names.join(" or ");
  if (hits.length !== 1) throw new InputError(`${hits.length} files named ${named}${hits.length > 1 ? `: ${hits.map((h) => relative(root, h)).join(", ")}` : ""}`, { file: root, fix: "place exactly one copy of the dataset's file there" });
  return hits[0]!;
}

/** The references step over a raw dataset directory or fetched lock file of kind `kind` (its identity). */
export function extractReferencesDef<K extends string>(kind: K) {
  return defineStepWith({ kind }, {
    id: "extract-qa-references",
    version: 1,
    source: import.meta.url,
    description: "Gold answers of a split from the dataset's own turn file (SCAI Truth_answer, TopiOCQA Answer + Additional_answers).",
    /** The names the file of gold answers may have (exactly one must be in the raw directory). */
    params: z.object({ files: z.array(z.string().min(1)).min(1) }).strict(),
    inputs: { raw: kind },
    outputs: { references: file("qa:references", "references.jsonl") },
    runtime: {
      type: "in-process",
      async run(ctx) {
        const path = findFile(ctx.inputs.raw, ctx.params.files);
        const { format, references } = readReferences(path);
        await writeJsonLines(ctx.outputs.references, references.map((r) => ({ qid: r.qid, answers: r.answers, format })));
        ctx.log(`${references.length} references (${format}) from ${relative(ctx.inputs.raw, path) || path}`);
      },
    },
  });
}

export const evaluateQaStep = defineStep({
  id: "evaluate-qa-predictions",
  version: 1,
  source: import.meta.url,
  description: "EM / F1 of predictions against a split's references by the dataset's rule, with breakdowns by question type and domain.",
  params: z.object({ split: z.string(), scoring: z.enum(["qrecc", "topiocqa", "max"]), keepEmptyTruth: z.boolean().default(false) }).strict(),
  inputs: { predictions: "qa:predictions", references: "qa:references", turns: "parquet:turns" },
  outputs: { metrics: file("json:metrics", "metrics.json"), perQuery: file("parquet:per-query", "per-query.parquet") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const { split, scoring, keepEmptyTruth } = ctx.params;
      const labels = new Map<string, QueryLabels>();
      for await (const t of readParquetRows<TurnRow>(ctx.inputs.turns)) {
        if (t.split !== split) continue;
        labels.set(t.qid, { ...(t.question_type ? { questionType: t.question_type } : {}), ...(t.source_domain ? { domain: t.source_domain } : {}) });
      }
      // References of turns outside this split's table (a file with more turns) are not scored.
      const refs = readReferences(ctx.inputs.references).references.filter((r) => labels.has(r.qid));
      if (refs.length === 0) throw new InputError(`no reference matches a '${split}' turn`, { file: ctx.inputs.references, fix: "extract the references of the split the turns table holds" });
      const preds = readPredictions(ctx.inputs.predictions).predictions;
      const ev = evaluateAnswers(preds, refs, scoring, { keepEmptyTruth });
      await writeFileAsync(ctx.outputs.metrics, canonicalJson(qaMetricsFile(split, ev, labels), 2) + "\n");
      await writePerQuery(ctx.outputs.perQuery, ev.perQuestion);
      const a = ev.aggregate;
      ctx.log(`${QA_SCORING[scoring].description}: N ${a.n}, EM ${(100 * a.metrics["em"]!).toFixed(1)}, F1 ${(100 * a.metrics["f1"]!).toFixed(1)}; ${a.counts.skipped} skipped, ${a.counts.missingPredictions} without a prediction`);
    },
  },
});

async function writeFileAsync(path: string, text: string): Promise<void> {
  const { writeFile } = await import("node:fs/promises");
  await writeFile(path, text);
}

/**
 * BM25 steps: build a Lucene-exact index from the passages table, and search it with one
 * of the paper's query forms over the turns table (a run as Parquet and TREC).
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, dir, file } from "../../pipeline/engine/step.ts";
import { buildIndexFile } from "./index-merge.ts";
import { searchBatchParallel } from "./parallel.ts";
import { readParquetRows } from "../lib/parquet.ts";
import { queryText, QUERY_FORM_NAMES } from "../encoding/format/query-forms.ts";
import type { TurnRow as FormatTurnRow } from "../encoding/format/rows.ts";
import type { TurnRow } from "../data/schemas.ts";
import type { PassageRow } from "../encoding/format/rows.ts";
import { writeRunParquet, type RunRow } from "../eval/run-table.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { cancellable } from "../lib/cancel.ts";

export const buildBm25Index = defineStep({
  id: "build-bm25-index",
  // 2: Lucene 8.8.1's tokenizer on every code point (symbols and emoji are terms; ANALYZER_ID 2)
  // 3: index format 2 (bit-packed postings, skip blocks and impacts for pruned search)
  version: 3,
  source: import.meta.url,
  description: "Lucene-8-exact BM25 index (Anserini's default English analysis) over the passages table.",
  params: z
    .object({
      /** Index `title + " " + text` where a title exists (Pyserini's `contents` for TopiOCQA/OR-QuAC conversions). */
      includeTitle: z.boolean().default(true),
    })
    .strict(),
  inputs: { passages: "parquet:passages" },
  outputs: { index: dir("bm25-index", "index") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      // Streaming build in bounded memory (segments merged on disk), byte-identical to an in-memory build.
      const docs = readParquetRows<PassageRow>(ctx.inputs.passages);
      const stats = await buildIndexFile(docs, join(ctx.outputs.index, "bm25.idx"), {
        source: ctx.inputs.passages,
        textOf: (d) => (ctx.params.includeTitle && d.title ? `${d.title} ${d.text}` : d.text),
        onProgress: (done, total) => ctx.progress(done, total, "passages"),
        progressEvery: 5000,
        tmpDir: ctx.workDir,
        signal: ctx.signal,
      });
      await writeFile(join(ctx.outputs.index, "stats.json"), JSON.stringify(stats, null, 2) + "\n");
      ctx.log(`indexed ${stats.numDocs} passages, ${stats.numTerms} terms, ${stats.bytesPerPassage.toFixed(1)} bytes/passage`);
    },
  },
});

export const searchBm25 = defineStep({
  id: "search-bm25",
  // 2: queries analyzed with Lucene 8.8.1's tokenizer on every code point (ANALYZER_ID 2)
  // 3: reads index format 2 (block-max MaxScore; same hits as exhaustive scoring)
  version: 3,
  source: import.meta.url,
  description: "Top-k BM25 for one query form over the turns of one split.",
  params: z
    .object({
      /** A query form of the shared registry; turns whose text is empty (a_prev on turn 1) get no hits. */
      form: z.enum(QUERY_FORM_NAMES),
      split: z.string(),
      k: z.number().int().positive().default(100),
      k1: z.number().positive(),
      b: z.number().min(0).max(1),
      threads: z.number().int().positive().default(2),
      /** Run tag in the TREC file. */
      tag: z.string().default("cspipe-bm25"),
    })
    .strict(),
  inputs: { index: "bm25-index", turns: "parquet:turns" },
  outputs: { run: file("parquet:run", "run.parquet"), trec: file("trec:run", "run.trec") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const { form, split, k, k1, b, threads, tag } = ctx.params;
      const queries: { qid: string; text: string }[] = [];
      for await (const t of cancellable(readParquetRows<TurnRow>(ctx.inputs.turns), ctx.signal)) {
        if (t.split !== split) continue;
        queries.push({ qid: t.qid, text: queryText(t as unknown as FormatTurnRow, form) });
      }
      if (queries.length === 0) throw new InputError(`no turns in split '${split}'`, { file: ctx.inputs.turns, field: "split" });
      queries.sort((x, y) => (x.qid < y.qid ? -1 : x.qid > y.qid ? 1 : 0));
      const rows: RunRow[] = [];
      const index = join(ctx.inputs.index, "bm25.idx");
      for await (const batch of searchBatchParallel(index, queries, { k, k1, b, threads, total: queries.length, onProgress: (done, total) => ctx.progress(done, total, "queries"), signal: ctx.signal })) rows.push(...batch);
      await writeRunParquet(ctx.outputs.run, rows);
      await writeFile(ctx.outputs.trec, rows.map((r) => `${r.qid} Q0 ${r.pid} ${r.rank} ${r.score.toFixed(6)} ${tag}`).join("\n") + (rows.length ? "\n" : ""));
      ctx.log(`${queries.length} queries, ${rows.length} hits`);
    },
  },
});

/**
 * `search-dcsr`: DCSR retrieval over sentence-index shards. Each shard is searched for its
 * top M (+ a margin) sentences, the candidates are rescored exactly (float64 sums rounded to
 * float32, as `search-dense` does, so the result does not depend on the backend), the shards
 * are merged into the query's global top M sentences (ties by collection order), and the
 * passages are ranked by HasAns (hasans.ts): the top k make the run, written as Parquet and
 * TREC like every other run (score = ln HasAns). The top sentences of each query are kept
 * in sentences.parquet (what DCSR x IHN mines its negatives from).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as arrow from "apache-arrow";
import { z } from "zod";
import { defineStep, file, type InputKinds, type StepDef } from "../../pipeline/engine/step.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { readNpy } from "../lib/npy.ts";
import { writeParquetFile } from "../lib/parquet.ts";
import { bruteForceSearch } from "../dense/brute-force.ts";
import { loadFlatIP, readFlatIPFile } from "../dense/faiss-index.ts";
import { mergeShardTopK, type ShardResult } from "../dense/merge.ts";
import { emptyTopK, validateMatrix, type TopK } from "../dense/topk.ts";
import { denseBackendFromEnv, formatFloat32, rescoreDepth } from "../dense/steps.ts";
import { writeRunParquet, type RunRow } from "../eval/run-table.ts";
import { hasAnsRanking, softmaxLogs, type SentenceHit } from "./hasans.ts";
import { SENTENCE_INDEX_FILE } from "./encode.ts";
import { EMPTY_QIDS } from "../dense/query-encoding.ts";

export const sentenceRunSchema = new arrow.Schema([
  new arrow.Field("qid", new arrow.Utf8(), false),
  new arrow.Field("pid", new arrow.Utf8(), false),
  new arrow.Field("slot", new arrow.Int32(), false),
  new arrow.Field("rank", new arrow.Int32(), false),
  new arrow.Field("score", new arrow.Float64(), false),
  /** ln of the sentence's softmax probability over the query's top M. */
  new arrow.Field("log_prob", new arrow.Float64(), false),
]);

export interface SentenceRunRow {
  readonly qid: string;
  readonly pid: string;
  readonly slot: number;
  readonly rank: number;
  readonly score: number;
  readonly log_prob: number;
}

function readLines(path: string): string[] {
  const lines = readFileSync(path, "utf8").split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** Exact rescoring of a shard's candidates against its vectors in memory; same depth, order (-score, row). */
export function rescoreInMemory(topk: TopK, queries: Float32Array, vectors: Float32Array, dim: number): TopK {
  const out = emptyTopK(topk.nq, topk.k);
  for (let q = 0; q < topk.nq; q++) {
    const rows: number[] = [];
    for (let j = 0; j < topk.k; j++) {
      const r = topk.rows[q * topk.k + j]!;
      if (r >= 0) rows.push(r);
    }
    if (rows.length === 0) continue;
    rows.sort((a, b) => a - b);
    const cand = new Float32Array(rows.length * dim);
    rows.forEach((r, i) => cand.set(vectors.subarray(r * dim, (r + 1) * dim), i * dim));
    const exact = bruteForceSearch(cand, queries.subarray(q * dim, (q + 1) * dim), dim, rows.length, { trusted: true });
    for (let j = 0; j < rows.length; j++) {
      out.rows[q * topk.k + j] = rows[exact.rows[j]!]!;
      out.scores[q * topk.k + j] = exact.scores[j]!;
    }
  }
  return out;
}

const searchParams = z
  .object({
    /** Passages in the run. */
    k: z.number().int().positive().default(100),
    /** Sentences retrieved per query, over which the softmax runs (DCSR's code: 3000). */
    m: z.number().int().positive().default(3000),
    /** Top sentences per query written to sentences.parquet. */
    keepSentences: z.number().int().nonnegative().default(100),
    tag: z.string().default("cspipe-dcsr"),
  })
  .strict();

type SearchInputs = InputKinds & { readonly queries: "embeddings:queries" };
const searchOutputs = { run: file("parquet:run", "run.parquet"), trec: file("trec:run", "run.trec"), sentences: file("parquet:sentence-run", "sentences.parquet") };
export type SearchDcsrDef = StepDef<typeof searchParams, SearchInputs, typeof searchOutputs>;

/** Input names of the sentence-index shards: shard0 .. shard<n-1>. */
export const sentenceShardInputs = (shards: number): string[] => Array.from({ length: shards }, (_, s) => `shard${s}`);

const defs = new Map<number, SearchDcsrDef>();

/** The `search-dcsr` def over `shards` sentence-index shards (one def per shard count). */
export function searchDcsrDef(shards: number): SearchDcsrDef {
  if (!Number.isInteger(shards) || shards < 1) throw new InputError(`shard count must be a positive integer, got ${shards}`, { field: "shards" });
  const known = defs.get(shards);
  if (known !== undefined) return known;
  const inputs: Record<string, string> = { queries: "embeddings:queries" };
  for (const name of sentenceShardInputs(shards)) inputs[name] = "faiss:sentence-flat-ip";
  const def: SearchDcsrDef = defineStep({
    id: "search-dcsr",
    version: 1,
    source: import.meta.url,
    description: "Top-M sentences over every sentence-index shard, passages ranked by HasAns; run as Parquet and TREC, top sentences as Parquet.",
    params: searchParams,
    inputs: inputs as SearchInputs,
    outputs: searchOutputs,
    runtime: {
      type: "in-process",
      async run(ctx) {
        const { k, m, keepSentences, tag } = ctx.params;
        const backend = denseBackendFromEnv();
        const paths = ctx.inputs as Readonly<Record<string, string>>;
        const qFile = join(paths.queries!, "embeddings.npy");
        const qa = readNpy(qFile);
        if (qa.dtype !== "float32" || !(qa.data instanceof Float32Array) || qa.shape.length !== 2) throw new InputError("query embeddings must be float32 [N, D]", { file: qFile, fix: "rerun the encode step" });
        const [nq, dim] = qa.shape as [number, number];
        validateMatrix(qa.data, dim, { file: qFile });
        const qids = readLines(join(paths.queries!, "qids.txt"));
        if (qids.length !== nq) throw new InputError(`${qids.length} qids for ${nq} embeddings`, { file: join(paths.queries!, "qids.txt") });
        const units: { pid: string; slot: number }[] = [];
        const parts: ShardResult[] = [];
        for (const [s, name] of sentenceShardInputs(shards).entries()) {
          const indexFile = join(paths[name]!, SENTENCE_INDEX_FILE);
          const pids = readLines(join(paths[name]!, "pids.txt"));
          const slots = readNpy(join(paths[name]!, "slots.npy")).data;
          const { vectors, ntotal, dim: d } = readFlatIPFile(indexFile);
          if (d !== dim) throw new InputError(`index dimension ${d}, query embeddings ${dim}`, { file: indexFile, fix: "encode queries and sentences with the same model" });
          if (pids.length !== ntotal || slots.length !== ntotal) throw new InputError(`${pids.length} ids and ${slots.length} slots for ${ntotal} vectors`, { file: indexFile, fix: "re-encode the shard" });
          const index = loadFlatIP(indexFile, { backend });
          if (s === 0) ctx.log(`backend ${index.backend} (${index.reason})`);
          const found = index.search(qa.data, rescoreDepth(m), { onProgress: (done) => ctx.progress(s * nq + done, shards * nq) });
          const offset = units.length;
          for (let i = 0; i < ntotal; i++) units.push({ pid: pids[i]!, slot: Number(slots[i]) });
          // Global sentence numbers as ids: ties merge in collection order.
          parts.push({ topk: rescoreInMemory(found, qa.data, vectors, dim), ids: Int32Array.from({ length: ntotal }, (_, i) => offset + i) });
        }
        const merged = mergeShardTopK(parts, m);
        const empty = new Set(readLines(join(paths.queries!, EMPTY_QIDS)));
        const runRows: RunRow[] = [];
        const sentenceRows: SentenceRunRow[] = [];
        merged.forEach((list, q) => {
          const qid = qids[q]!;
          if (empty.has(qid) || list.length === 0) return;
          const hits: SentenceHit[] = list.map((h) => ({ ...units[h.id as number]!, score: h.score }));
          hasAnsRanking(hits, k).forEach((p, j) => runRows.push({ qid, pid: p.pid, rank: j + 1, score: p.logHasAns }));
          const { logP } = softmaxLogs(hits.map((h) => h.score));
          hits.slice(0, keepSentences).forEach((h, j) => sentenceRows.push({ qid, pid: h.pid, slot: h.slot, rank: j + 1, score: h.score, log_prob: logP[j]! }));
        });
        await writeRunParquet(ctx.outputs.run, runRows);
        writeFileSync(ctx.outputs.trec, runRows.map((r) => `${r.qid} Q0 ${r.pid} ${r.rank} ${formatFloat32(Math.fround(r.score))} ${tag}`).join("\n") + (runRows.length ? "\n" : ""));
        await writeParquetFile(ctx.outputs.sentences, sentenceRunSchema, sentenceRows);
        ctx.log(`${nq} queries x ${shards} shard(s) of ${units.length} sentences: top ${m} sentences -> ${runRows.length} passage hits; ${empty.size} empty queries without hits`);
      },
    },
  });
  defs.set(shards, def);
  return def;
}

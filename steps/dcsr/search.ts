/**
 * `search-dcsr`: DCSR retrieval over sentence-index shards. Each shard is searched for its
 * top M (+ a margin) sentences, the candidates are rescored exactly (float64 sums rounded to
 * float32, as `search-dense` does, so the result does not depend on the backend), the shards
 * are merged into the query's global top M sentences (ties by collection order), and the
 * passages are ranked by HasAns (hasans.ts): the top k make the run, written as Parquet and
 * TREC like every other run (score = ln HasAns). The top sentences of each query are kept
 * in sentences.parquet (what DCSR x IHN mines its negatives from).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import * as arrow from "apache-arrow";
import { z } from "zod";
import { defineStep, file, list } from "../../pipeline/engine/step.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { readNpy } from "../lib/npy.ts";
import { writeParquetFile } from "../lib/parquet.ts";
import { once } from "../lib/once.ts";
import { dotF32 } from "../dense/brute-force.ts";
import { loadFlatIP, readFlatIPFile } from "../dense/faiss-index.ts";
import type { BackendChoice } from "../dense/backend.ts";
import { validateMatrix, type TopK } from "../dense/topk.ts";
import { denseBackendFromEnv, formatFloat32, rescoreDepth } from "../dense/steps.ts";
import { flatBackendOf } from "../dense/shard-search.ts";
import { writeRunParquet, type RunRow } from "../eval/run-table.ts";
import { hasAnsByGroup, topGroups } from "./hasans.ts";
import { SENTENCE_INDEX_FILE } from "./encode.ts";
import { EMPTY_QIDS, readLines } from "../dense/query-encoding.ts";

export const sentenceRunSchema = once(() => new arrow.Schema([
  new arrow.Field("qid", new arrow.Utf8(), false),
  new arrow.Field("pid", new arrow.Utf8(), false),
  new arrow.Field("slot", new arrow.Int32(), false),
  new arrow.Field("rank", new arrow.Int32(), false),
  new arrow.Field("score", new arrow.Float64(), false),
  /** ln of the sentence's softmax probability over the query's top M. */
  new arrow.Field("log_prob", new arrow.Float64(), false),
]));

export interface SentenceRunRow {
  readonly qid: string;
  readonly pid: string;
  readonly slot: number;
  readonly rank: number;
  readonly score: number;
  readonly log_prob: number;
}

/**
 * One query's global top m sentences over the shards' candidates, rescored exactly (dotF32:
 * float64 sums rounded to float32, as `search-dense`), ordered by (-score, global sentence
 * number): the backend only proposes candidates, so the result does not depend on it.
 * Global numbers count the shards' rows in shard order (ties merge in collection order).
 */
export function exactTopSentences(
  shards: readonly { readonly found: TopK; readonly vectors: Float32Array; readonly offset: number }[],
  queries: Float32Array,
  q: number,
  dim: number,
  m: number,
): { ids: Int32Array; scores: Float64Array } {
  let n = 0;
  for (const sh of shards) n += sh.found.k;
  const ids = new Int32Array(n);
  const scores = new Float64Array(n);
  let c = 0;
  for (const sh of shards) {
    const base = q * sh.found.k;
    for (let j = 0; j < sh.found.k; j++) {
      const row = sh.found.rows[base + j]!;
      if (row < 0) continue;
      ids[c] = sh.offset + row;
      scores[c] = dotF32(sh.vectors, row * dim, queries, q * dim, dim);
      c++;
    }
  }
  const order = Int32Array.from({ length: c }, (_, i) => i);
  order.sort((a, b) => scores[b]! - scores[a]! || ids[a]! - ids[b]!);
  const keep = Math.min(m, c);
  const outIds = new Int32Array(keep);
  const outScores = new Float64Array(keep);
  for (let j = 0; j < keep; j++) {
    outIds[j] = ids[order[j]!]!;
    outScores[j] = scores[order[j]!]!;
  }
  return { ids: outIds, scores: outScores };
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

const searchOutputs = { run: file("parquet:run", "run.parquet"), trec: file("trec:run", "run.trec"), sentences: file("parquet:sentence-run", "sentences.parquet") };

/** The query embeddings (float32 [N, D], finite) and their qids, one per row. */
function readQueries(queries: string): { data: Float32Array; nq: number; dim: number; qids: string[] } {
  const qFile = join(queries, "embeddings.npy");
  const qa = readNpy(qFile);
  if (qa.dtype !== "float32" || !(qa.data instanceof Float32Array) || qa.shape.length !== 2) throw new InputError("query embeddings must be float32 [N, D]", { file: qFile, fix: "rerun the encode step" });
  const [nq, dim] = qa.shape as [number, number];
  validateMatrix(qa.data, dim, { file: qFile });
  const qids = readLines(join(queries, "qids.txt"));
  if (qids.length !== nq) throw new InputError(`${qids.length} qids for ${nq} embeddings`, { file: join(queries, "qids.txt") });
  return { data: qa.data, nq, dim, qids };
}

/** Every shard's sentences under global numbers (shard order): each one's passage (numbered in collection order) and marker slot. */
class SentenceTable {
  readonly passageOf: number[] = [];
  readonly slotOf: number[] = [];
  readonly pidNames: string[] = [];
  private readonly pidNumber = new Map<string, number>();
  add(pids: readonly string[], slots: ArrayLike<number | bigint>): void {
    for (let i = 0; i < pids.length; i++) {
      let p = this.pidNumber.get(pids[i]!);
      if (p === undefined) {
        this.pidNumber.set(pids[i]!, (p = this.pidNames.length));
        this.pidNames.push(pids[i]!);
      }
      this.passageOf.push(p);
      this.slotOf.push(Number(slots[i]));
    }
  }
}

type ShardHits = { found: TopK; vectors: Float32Array; offset: number };

/** Each shard's candidates for every query (its top rescoreDepth(m)), its vectors for the exact rescoring, and its sentences added to the table. */
function searchShards(shards: readonly string[], q: { data: Float32Array; nq: number; dim: number }, m: number, backend: BackendChoice, table: SentenceTable, log: { log: (line: string) => void; progress: (done: number, total?: number) => void }): ShardHits[] {
  const read: ShardHits[] = [];
  for (const [s, dir] of shards.entries()) {
    const indexFile = join(dir, SENTENCE_INDEX_FILE);
    const pids = readLines(join(dir, "pids.txt"));
    const slots = readNpy(join(dir, "slots.npy")).data;
    const { vectors, ntotal, dim: d } = readFlatIPFile(indexFile);
    if (d !== q.dim) throw new InputError(`index dimension ${d}, query embeddings ${q.dim}`, { file: indexFile, fix: "encode queries and sentences with the same model" });
    if (pids.length !== ntotal || slots.length !== ntotal) throw new InputError(`${pids.length} ids and ${slots.length} slots for ${ntotal} vectors`, { file: indexFile, fix: "re-encode the shard" });
    const index = loadFlatIP(indexFile, { backend });
    if (s === 0) log.log(`backend ${index.backend} (${index.reason})`);
    const found = index.search(q.data, rescoreDepth(m), { onProgress: (done) => log.progress(s * q.nq + done, shards.length * q.nq) });
    read.push({ found, vectors, offset: table.passageOf.length });
    table.add(pids, slots);
  }
  return read;
}

/** A query's hits grouped by passage, groups numbered in order of first appearance (`groupOfPassage`: all -1, left so). */
function groupByPassage(ids: Int32Array, table: SentenceTable, groupOfPassage: Int32Array): { group: Int32Array; groupPids: string[] } {
  const group = new Int32Array(ids.length);
  const groupPids: string[] = [];
  for (let j = 0; j < ids.length; j++) {
    const p = table.passageOf[ids[j]!]!;
    if (groupOfPassage[p] === -1) {
      groupOfPassage[p] = groupPids.length;
      groupPids.push(table.pidNames[p]!);
    }
    group[j] = groupOfPassage[p]!;
  }
  for (let j = 0; j < ids.length; j++) groupOfPassage[table.passageOf[ids[j]!]!] = -1;
  return { group, groupPids };
}

/** `search-dcsr`: the queries against a list of sentence-index shards (`shards`, in shard order). */
export const searchDcsr = defineStep({
  id: "search-dcsr",
  version: 1,
  source: import.meta.url,
  description: "Top-M sentences over every sentence-index shard, passages ranked by HasAns; run as Parquet and TREC, top sentences as Parquet.",
  params: searchParams,
  inputs: { queries: "embeddings:queries", shards: list("faiss:sentence-flat-ip") },
  outputs: searchOutputs,
  runtime: {
    type: "in-process",
    async run(ctx) {
      const { k, m, keepSentences, tag } = ctx.params;
      // The torch backend has no sentence-index path: it searches with faiss or the brute force.
      const backend = flatBackendOf(denseBackendFromEnv());
      const { queries, shards } = ctx.inputs;
      if (shards.length === 0) throw new InputError("no sentence-index shards to search", { field: "shards", fix: "wire at least one faiss:sentence-flat-ip index" });
      const q = readQueries(queries);
      const table = new SentenceTable();
      const shardsRead = searchShards(shards, q, m, backend, table, ctx);
      const empty = new Set(readLines(join(queries, EMPTY_QIDS)));
      const runRows: RunRow[] = [];
      const sentenceRows: SentenceRunRow[] = [];
      const groupOfPassage = new Int32Array(table.pidNames.length).fill(-1);
      for (let i = 0; i < q.nq; i++) {
        const qid = q.qids[i]!;
        if (empty.has(qid)) continue;
        const top = exactTopSentences(shardsRead, q.data, i, q.dim, m);
        if (top.ids.length === 0) continue;
        const { group, groupPids } = groupByPassage(top.ids, table, groupOfPassage);
        const scored = hasAnsByGroup(top.scores, group, groupPids.length);
        topGroups(scored.logHasAns, (g) => groupPids[g]!, k).forEach((g, j) => runRows.push({ qid, pid: groupPids[g]!, rank: j + 1, score: scored.logHasAns[g]! }));
        for (let j = 0; j < Math.min(keepSentences, top.ids.length); j++) {
          const id = top.ids[j]!;
          sentenceRows.push({ qid, pid: table.pidNames[table.passageOf[id]!]!, slot: table.slotOf[id]!, rank: j + 1, score: top.scores[j]!, log_prob: scored.logP[j]! });
        }
      }
      await writeRunParquet(ctx.outputs.run, runRows);
      writeFileSync(ctx.outputs.trec, runRows.map((r) => `${r.qid} Q0 ${r.pid} ${r.rank} ${formatFloat32(Math.fround(r.score))} ${tag}`).join("\n") + (runRows.length ? "\n" : ""));
      await writeParquetFile(ctx.outputs.sentences, sentenceRunSchema(), sentenceRows);
      ctx.log(`${q.nq} queries x ${shards.length} shard(s) of ${table.passageOf.length} sentences: top ${m} sentences -> ${runRows.length} passage hits; ${empty.size} empty queries without hits`);
    },
  },
});

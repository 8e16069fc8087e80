/**
 * Dense retrieval steps: encode token matrices with the DPR encoders (ONNX), build flat
 * inner-product index shards, and search them (exact top-k, merged over shards), writing a
 * run as Parquet and TREC exactly like `search-bm25`.
 *
 * Sharding: `encode-passages` encodes rows [start, end) of `splitRows(N, shards)[shard]`, so
 * a target makes one cached step per shard (parallel, resumable); each shard gets its own
 * `build-flat-ip-index`, and `search-dense` takes every shard as an input.
 *
 * Parity: before encoding, each encode step runs the model's ONNX parity fixtures (written by
 * the trainer's export: torch's float32 output on a few rows) through the same onnxruntime-node
 * session and refuses the model above PARITY_ATOL or without fixtures (encoding/onnx/parity.ts;
 * `parity: "if-present"` lets a user's ONNX files without fixtures through, with a note).
 *
 * Backend: the search backend (faiss-node or the TypeScript brute force) is a run-level
 * choice read from $CSPIPE_DENSE_BACKEND (auto | faiss | brute-force, default auto) and is
 * NOT part of the cache key, because the output does not depend on it: every shard is asked
 * for k + margin candidates, the candidates are rescored with the brute force's own dot
 * product (float64 sums rounded to float32, a function of the two vectors only) and the
 * exact top-k is kept. With the brute-force backend this is the plain brute-force result;
 * with faiss, whose float32 BLAS scores can differ in the last bits, the scores written are
 * the same bits and the hits the same unless more than `margin` passages sit within faiss's
 * rounding error of the k-th score in one shard. The backend and its reason go to the log.
 * A third backend, `torch` (shard-search.ts, torch-search.ts), computes candidates in
 * float16/bfloat16 with a depth proven per query, rescored the same way: `auto` takes it when
 * the step holds a GPU slot (runtime.gpu; `--gpus`), and the bytes are the same.
 */
import { copyFileSync, createReadStream, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { z } from "zod";
import { defineStep, dir, file, list, type ListSlot, type StepContext } from "../../pipeline/engine/step.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { readNpy, writeNpy } from "../lib/npy.ts";
import { readNpyRowRange } from "../lib/npy-rows.ts";
import { tokenMatrixFromNpy } from "../encoding/onnx/batch.ts";
import { encodeRows } from "../encoding/onnx/encode.ts";
import { openEncoder } from "../encoding/onnx/session.ts";
import { PARITY_ATOL, PARITY_POLICIES, verifyOnnxParity } from "../encoding/onnx/parity.ts";
import { splitRows } from "../encoding/onnx/shards.ts";
import { writeFlatIPFile } from "./faiss-index.ts";
import { SEARCH_BACKEND_CHOICES, rescoreDepth, searchShardExact, type SearchBackendChoice, type ShardQueries, type ShardSearch, type ShardSearchOptions } from "./shard-search.ts";
import { rescoreFromIndexFile } from "./rescore.ts";
import { mergeShardTopK, type Hit, type ShardResult } from "./merge.ts";
import { EMPTY_QIDS, encodeQueryTokens, readLines } from "./query-encoding.ts";
import { checkTokensFitModelDirs } from "../encoding/vocab-identity.ts";
import { validateMatrix, type TopK } from "./topk.ts";
import { writeRunParquet, type RunRow } from "../eval/run-table.ts";

const PROVIDERS = ["auto", "cpu", "cuda"] as const;
export const DENSE_BACKEND_ENV = "CSPIPE_DENSE_BACKEND";
export const INDEX_FILE = "index.faiss";

export { rescoreDepth };


/** Lines [start, end) of a text file, streamed (a collection's pids need not fit in memory); also counts all lines. */
async function readLineRange(path: string, start: number, end: number): Promise<{ lines: string[]; total: number }> {
  const lines: string[] = [];
  let i = 0;
  for await (const line of createInterface({ input: createReadStream(path, "utf8"), crlfDelay: Infinity })) {
    if (i >= start && i < end) lines.push(line);
    i++;
  }
  return { lines, total: i };
}

const encodeParams = {
  batchSize: z.number().int().positive().default(64),
  provider: z.enum(PROVIDERS).default("auto"),
  threads: z.number().int().positive().default(1),
  /** A model without ONNX parity fixtures: refused ("required"), or encoded with a note ("if-present": a user's ONNX files). */
  parity: z.enum(PARITY_POLICIES).default("required"),
};

export const encodePassages = defineStep({
  id: "encode-passages",
  version: 1,
  source: import.meta.url,
  description: "One shard of the passages through the DPR passage encoder (ONNX) -> float32 embeddings.",
  params: z
    .object({ shard: z.number().int().min(0), shards: z.number().int().min(1), ...encodeParams })
    .strict()
    .refine((p) => p.shard < p.shards, { message: "shard must be < shards", path: ["shard"] }),
  inputs: { model: "dpr:model", tokens: "tokens:passages" },
  outputs: { embeddings: dir("embeddings:passages", "embeddings") },
  // Scheduling hint: a collection through the encoder costs more than the steps around it.
  cost: 5,
  runtime: {
    type: "in-process",
    async run(ctx) {
      const { shard, shards, batchSize, provider, threads, parity } = ctx.params;
      checkTokensFitModelDirs(ctx.inputs.tokens, ctx.inputs.model);
      const idsFile = join(ctx.inputs.tokens, "ids.npy");
      const typesFile = join(ctx.inputs.tokens, "type_ids.npy");
      const modelFile = join(ctx.inputs.model, "passage_encoder.onnx");
      const n = readNpyRowRange(idsFile, 0, 0).totalRows;
      const range = splitRows(n, shards)[shard];
      if (range === undefined) throw new InputError(`shard ${shard} of ${shards}`, { field: "shard", fix: "use 0 <= shard < shards" });
      if (range.end === range.start) throw new InputError(`shard ${shard} of ${shards} has no rows (${n} passages)`, { field: "shards", fix: "use fewer shards than passages" });
      const pids = await readLineRange(join(ctx.inputs.tokens, "pids.txt"), range.start, range.end);
      if (pids.total !== n) throw new InputError(`${pids.total} passage ids for ${n} token rows`, { file: join(ctx.inputs.tokens, "pids.txt"), fix: "rerun tokenize-passages" });
      const tokens = tokenMatrixFromNpy(readNpyRowRange(idsFile, range.start, range.end), readNpyRowRange(typesFile, range.start, range.end), { ids: idsFile, types: typesFile });
      const enc = await openEncoder(modelFile, { providers: provider, intraOpThreads: threads });
      ctx.log(`shard ${shard}/${shards}: rows [${range.start}, ${range.end}) of ${n}; providers ${enc.providers.join(",")} (${enc.reason})`);
      try {
        ctx.log((await verifyOnnxParity(enc.session, ctx.inputs.model, "passage_encoder", PARITY_ATOL, parity)).note);
        const emb = await encodeRows(enc.session, tokens, { start: 0, end: tokens.rows }, { batchSize, modelFile, onProgress: (done, total) => ctx.progress(done, total, "passages") });
        writeNpy(join(ctx.outputs.embeddings, "embeddings.npy"), { dtype: "float32", shape: [emb.rows, emb.dim], data: emb.data });
        writeFileSync(join(ctx.outputs.embeddings, "pids.txt"), pids.lines.map((p) => `${p}\n`).join(""), "utf8");
        const meta = { format: "cspipe/embeddings@1", kind: "passages", shard, shards, start: range.start, end: range.end, rows: emb.rows, dim: emb.dim };
        writeFileSync(join(ctx.outputs.embeddings, "meta.json"), JSON.stringify(meta, null, 2) + "\n", "utf8");
      } finally {
        await enc.session.release();
      }
    },
  },
});

export const encodeQueries = defineStep({
  id: "encode-queries",
  version: 1,
  source: import.meta.url,
  description: "Query token ids through the DPR query encoder (ONNX) -> float32 embeddings.",
  params: z.object(encodeParams).strict(),
  inputs: { model: "dpr:model", tokens: "tokens:queries" },
  outputs: { embeddings: dir("embeddings:queries", "embeddings") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const { batchSize, provider, threads, parity } = ctx.params;
      await encodeQueryTokens({ model: ctx.inputs.model, tokens: ctx.inputs.tokens, out: ctx.outputs.embeddings, batchSize, provider, threads, parity, onProgress: (done, total) => ctx.progress(done, total, "queries"), log: ctx.log });
    },
  },
});



/** float32 [N, D] embeddings.npy with its row ids; checks shape, finiteness and the id count. */
export function readEmbeddings(dirPath: string, idsName: string): { vectors: Float32Array; dim: number; ids: string[] } {
  const path = join(dirPath, "embeddings.npy");
  const arr = readNpy(path);
  if (arr.dtype !== "float32" || !(arr.data instanceof Float32Array) || arr.shape.length !== 2) {
    throw new InputError(`embeddings must be float32 [N, D], got ${arr.dtype} [${arr.shape.join(", ")}]`, { file: path, fix: "rerun the encode step" });
  }
  const [rows, dim] = arr.shape as [number, number];
  validateMatrix(arr.data, dim, { file: path });
  const ids = readLines(join(dirPath, idsName));
  if (ids.length !== rows) throw new InputError(`${ids.length} ids for ${rows} embeddings`, { file: join(dirPath, idsName), fix: "rerun the encode step" });
  return { vectors: arr.data, dim, ids };
}

export const buildFlatIpIndex = defineStep({
  id: "build-flat-ip-index",
  version: 1,
  source: import.meta.url,
  description: "A faiss IndexFlatIP file (readable by faiss.read_index) over one shard of passage embeddings.",
  params: z.object({}).strict(),
  inputs: { embeddings: "embeddings:passages" },
  outputs: { index: dir("faiss:flat-ip", "index") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const { vectors, dim, ids } = readEmbeddings(ctx.inputs.embeddings, "pids.txt");
      writeFlatIPFile(join(ctx.outputs.index, INDEX_FILE), vectors, dim);
      copyFileSync(join(ctx.inputs.embeddings, "pids.txt"), join(ctx.outputs.index, "pids.txt"));
      ctx.log(`${ids.length} vectors of dim ${dim}`);
    },
  },
});

/** The run-level backend choice from the environment (never part of a key). */
export function denseBackendFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): SearchBackendChoice {
  const v = env[DENSE_BACKEND_ENV] ?? "auto";
  if (!(SEARCH_BACKEND_CHOICES as readonly string[]).includes(v)) {
    throw new InputError(`unknown dense search backend ${JSON.stringify(v)}`, { field: DENSE_BACKEND_ENV, fix: `set it to one of ${SEARCH_BACKEND_CHOICES.join(", ")}` });
  }
  return v as SearchBackendChoice;
}

/** One index directory (index.faiss + pids.txt) searched for the exact top k by the chosen backend (shard-search.ts). */
export function searchIndexDir(indexDir: string, queries: ShardQueries, k: number, opts: Omit<ShardSearchOptions, "pids">): { found: ShardSearch; pids: string[] } {
  const pidsFile = join(indexDir, "pids.txt");
  const pids = readLines(pidsFile);
  return { found: searchShardExact(join(indexDir, INDEX_FILE), queries, k, { ...opts, pids: { file: pidsFile, count: pids.length } }), pids };
}

/**
 * Exact rescoring of one shard's candidates (see the file comment and rescore.ts): the
 * candidates' rows are read from the index file and scored with the brute force's dot product.
 * Returns a TopK of the same depth ordered by (-score, row).
 */
export function rescoreShard(topk: TopK, queries: Float32Array, dim: number, indexFile: string): TopK {
  return rescoreFromIndexFile(topk, queries, dim, indexFile);
}

/** Shortest decimal that reads back as the same float32 (so trec_eval sees our ties, no more). */
export function formatFloat32(x: number): string {
  for (let p = 6; p < 9; p++) {
    const s = x.toPrecision(p);
    if (Math.fround(Number(s)) === x) return String(Number(s));
  }
  return String(Number(x.toPrecision(9)));
}

/**
 * The run of a dense search as Parquet and TREC: per query its hits (best first), except the
 * queries the encode step listed in empty_qids.txt (only special tokens: no hits, as BM25
 * gives an empty query none). Shared by `search-dense` and `merge-dense-hits`.
 */
export async function writeDenseRun(out: { run: string; trec: string }, queriesDir: string, qids: readonly string[], hits: readonly (readonly Hit[])[], tag: string): Promise<{ hits: number; empty: number }> {
  const empty = new Set(readLines(join(queriesDir, EMPTY_QIDS)));
  const rows: RunRow[] = [];
  hits.forEach((list, i) => {
    if (!empty.has(qids[i]!)) list.forEach((h, j) => rows.push({ qid: qids[i]!, pid: String(h.id), rank: j + 1, score: h.score }));
  });
  await writeRunParquet(out.run, rows);
  writeFileSync(out.trec, rows.map((r) => `${r.qid} Q0 ${r.pid} ${r.rank} ${formatFloat32(r.score)} ${tag}`).join("\n") + (rows.length ? "\n" : ""));
  return { hits: rows.length, empty: empty.size };
}

export const searchParams = z
  .object({
    k: z.number().int().positive().default(100),
    /** Run tag in the TREC file. */
    tag: z.string().default("cspipe-dpr"),
  })
  .strict();


const searchOutputs = { run: file("parquet:run", "run.parquet"), trec: file("trec:run", "run.trec") };
const SEARCH_DESCRIPTION = "Exact inner-product top-k over every index shard, merged by (-score, pid); run as Parquet and TREC.";

/** What searching the shards needs of a step's context. */
type SearchContext = Pick<StepContext<z.output<typeof searchParams>, { readonly queries: "embeddings:queries"; readonly shards: ListSlot<"faiss:flat-ip"> }, typeof searchOutputs>, "params" | "outputs" | "workDir" | "devices" | "log" | "progress">;

/** The body of `search-dense`: each shard's top k for every query (shard by shard, in order), merged. */
async function searchShards(ctx: SearchContext, queries: string, shards: readonly string[]): Promise<void> {
  if (shards.length === 0) throw new InputError("no index shards to search", { field: "shards", fix: "wire at least one faiss:flat-ip index" });
  const { k, tag } = ctx.params;
  const choice = denseBackendFromEnv();
  const q = readEmbeddings(queries, "qids.txt");
  const nq = q.ids.length;
  const parts: ShardResult[] = [];
  for (const [s, path] of shards.entries()) {
    const name = `shard${s}`;
    const { found, pids } = searchIndexDir(path, { ...q, npy: join(queries, "embeddings.npy") }, k, {
      choice,
      ...(ctx.devices !== undefined ? { devices: ctx.devices } : {}),
      workDir: join(ctx.workDir, name),
      onProgress: (d) => ctx.progress(s * nq + d, shards.length * nq, "queries x shards"),
    });
    if (s === 0) ctx.log(`backend ${found.backend} (${found.reason})`);
    if (found.note !== undefined) ctx.log(`${name}: ${found.note}`);
    parts.push({ topk: found.topk, ids: pids });
  }
  const written = await writeDenseRun(ctx.outputs, queries, q.ids, mergeShardTopK(parts, k), tag);
  ctx.log(`${nq} queries x ${shards.length} shard(s), ${written.hits} hits; ${written.empty} empty queries without hits`);
}

/** `search-dense`: the queries against a list of index shards (`shards`, in shard order). */
export const searchDense = defineStep({
  id: "search-dense",
  version: 1,
  source: import.meta.url,
  description: SEARCH_DESCRIPTION,
  params: searchParams,
  inputs: { queries: "embeddings:queries", shards: list("faiss:flat-ip") },
  outputs: searchOutputs,
  runtime: {
    type: "in-process",
    // A GPU slot when the run has one: the torch backend then computes the candidates (shard-search.ts).
    gpu: { count: 1 },
    run: (ctx) => searchShards(ctx, ctx.inputs.queries, ctx.inputs.shards),
  },
});

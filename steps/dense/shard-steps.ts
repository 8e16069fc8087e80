/**
 * Dense search at scale, as two kinds of steps (the real collections' path; the mini path
 * keeps the one-step `search-dense`):
 * - `search-dense-shard`: every query against ONE index shard: the shard's k + margin
 *   candidates from the backend, rescored exactly (`rescoreShard`: float64 sums of the float32
 *   products, rounded to float32, as `search-dense` does), and its best k hits per query in
 *   the global order (-score, passage id) written as `scores.npy` + `pids.txt`. Memory: one
 *   shard's index and the queries. A new query set reruns these and the merge only: the
 *   encode and index steps of the passages do not depend on the queries.
 * - `merge-dense-hits`: folds the shards' lists one at a time into the running top k
 *   (hit-merge.ts) and writes the run exactly as `search-dense` would (same bytes: the
 *   shard-by-shard fold equals the all-at-once merge).
 *
 * Kernel: the same as `search-dense`, the interface of shard-search.ts ($CSPIPE_DENSE_BACKEND:
 * faiss-node's IndexFlatIP when it loads, else the TypeScript brute force; torch's proven
 * float16 candidates when the step holds a GPU slot), not in the key because the exact
 * rescoring makes the output independent of it; docs/scale.md has the estimate per shard.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, dir, file, list } from "../../pipeline/engine/step.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { readNpy, writeNpy } from "../lib/npy.ts";
import { topKToHits, type Hit } from "./merge.ts";
import { foldShard, listsFromRows } from "./hit-merge.ts";
import { readLines } from "./query-encoding.ts";
import { denseBackendFromEnv, readEmbeddings, searchIndexDir, searchParams, writeDenseRun } from "./steps.ts";

export const SHARD_HITS_FORMAT = "cspipe/dense-shard-hits@1";

interface ShardHitsMeta {
  readonly format: typeof SHARD_HITS_FORMAT;
  readonly queries: number;
  readonly k: number;
  readonly passages: number;
  readonly dim: number;
}

export const searchDenseShard = defineStep({
  id: "search-dense-shard",
  version: 1,
  source: import.meta.url,
  description: "Every query against one index shard: k + margin candidates, exact float32 rescoring, the shard's top k in (-score, pid) order.",
  params: z.object({ k: z.number().int().positive().default(100) }).strict(),
  inputs: { queries: "embeddings:queries", index: "faiss:flat-ip" },
  outputs: { hits: dir("hits:dense-shard", "hits") },
  cost: 20,
  runtime: {
    type: "in-process",
    // A GPU slot when the run has one: the torch backend then computes the candidates (shard-search.ts).
    gpu: { count: 1 },
    async run(ctx) {
      const { k } = ctx.params;
      const q = readEmbeddings(ctx.inputs.queries, "qids.txt");
      const nq = q.ids.length;
      const t0 = performance.now();
      const { found, pids } = searchIndexDir(ctx.inputs.index, { ...q, npy: join(ctx.inputs.queries, "embeddings.npy") }, k, {
        choice: denseBackendFromEnv(),
        ...(ctx.devices !== undefined ? { devices: ctx.devices } : {}),
        workDir: ctx.workDir,
        onProgress: (d) => ctx.progress(d, nq),
      });
      ctx.log(`backend ${found.backend} (${found.reason})`);
      if (found.note !== undefined) ctx.log(found.note);
      const lists = topKToHits(found.topk, pids);
      const seconds = (performance.now() - t0) / 1000;
      const index = { ntotal: found.ntotal };
      const scores = new Float32Array(nq * k).fill(-Infinity);
      const ids: string[] = new Array<string>(nq * k).fill("");
      lists.forEach((list, i) => list.slice(0, k).forEach((h, j) => ((scores[i * k + j] = h.score), (ids[i * k + j] = String(h.id)))));
      mkdirSync(ctx.outputs.hits, { recursive: true });
      writeNpy(join(ctx.outputs.hits, "scores.npy"), { dtype: "float32", shape: [nq, k], data: scores });
      writeFileSync(join(ctx.outputs.hits, "pids.txt"), ids.map((id) => `${id}\n`).join(""), "utf8");
      const meta: ShardHitsMeta = { format: SHARD_HITS_FORMAT, queries: nq, k, passages: index.ntotal, dim: q.dim };
      writeFileSync(join(ctx.outputs.hits, "meta.json"), JSON.stringify(meta, null, 2) + "\n", "utf8");
      ctx.log(`${nq} queries x ${index.ntotal} passages (dim ${q.dim}) in ${seconds.toFixed(2)} s: ${((nq * index.ntotal) / Math.max(seconds, 1e-9) / 1e9).toFixed(3)} G scores/s`);
    },
  },
});

/** One shard's stored lists, checked against the query count and k. */
function readShardHits(hitsDir: string, nq: number, k: number): Hit[][] {
  const metaFile = join(hitsDir, "meta.json");
  let meta: Partial<ShardHitsMeta>;
  try {
    meta = JSON.parse(readFileSync(metaFile, "utf8")) as Partial<ShardHitsMeta>;
  } catch (e) {
    throw new InputError(`not readable JSON (${(e as Error).message})`, { file: metaFile, fix: "rerun search-dense-shard" });
  }
  if (meta.format !== SHARD_HITS_FORMAT || meta.queries !== nq || meta.k !== k) {
    throw new InputError(`expected ${SHARD_HITS_FORMAT} with ${nq} queries and k ${k}, got ${JSON.stringify({ format: meta.format, queries: meta.queries, k: meta.k })}`, {
      file: metaFile,
      fix: "search every shard with the merge's query embeddings and k",
    });
  }
  const scores = readNpy(join(hitsDir, "scores.npy"));
  if (!(scores.data instanceof Float32Array)) throw new InputError(`scores must be float32, got ${scores.dtype}`, { file: join(hitsDir, "scores.npy"), fix: "rerun search-dense-shard" });
  return listsFromRows(scores.data, readLines(join(hitsDir, "pids.txt")), nq, k, join(hitsDir, "pids.txt"));
}

/** `merge-dense-hits`: the shards' results (`shards`, in shard order) folded into the global top k. */
export const mergeDenseHits = defineStep({
  id: "merge-dense-hits",
  version: 1,
  source: import.meta.url,
  description: "The shards' top-k lists folded into the global top k by (-score, pid); run as Parquet and TREC (search-dense's bytes).",
  params: searchParams,
  inputs: { queries: "embeddings:queries", shards: list("hits:dense-shard") },
  outputs: { run: file("parquet:run", "run.parquet"), trec: file("trec:run", "run.trec") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const { k, tag } = ctx.params;
      const shards = ctx.inputs.shards;
      if (shards.length === 0) throw new InputError("no shard results to merge", { field: "shards", fix: "wire the hits of every search-dense-shard step" });
      const qids = readLines(join(ctx.inputs.queries, "qids.txt"));
      const running: Hit[][] = qids.map(() => []);
      for (const [s, path] of shards.entries()) {
        foldShard(running, readShardHits(path, qids.length, k), k, `shard${s}`);
        ctx.progress(s + 1, shards.length);
      }
      const written = await writeDenseRun(ctx.outputs, ctx.inputs.queries, qids, running, tag);
      ctx.log(`${qids.length} queries x ${shards.length} shard(s), ${written.hits} hits; ${written.empty} empty queries without hits`);
    },
  },
});

/**
 * One index shard searched for the exact top k, whichever backend computes the candidates (the
 * interface `search-dense` and `search-dense-shard` call):
 * - `flat`: faiss-node's IndexFlatIP or the TypeScript brute force (backend.ts) asked for
 *   rescoreDepth(k) candidates, rescored exactly (rescore.ts);
 * - `torch`: steps/dense/gpu/search.py's low-precision candidates with a proven depth, rescored
 *   the same way (torch-search.ts).
 * Each returns, per query, the rescored candidates' best rescoreDepth(k) in (-score, row) order,
 * the same bytes at and above the k-th score whichever ran, so the backend is no part of a key.
 * `auto` takes torch when the step holds a GPU slot (ctx.devices), else faiss or the brute force;
 * $CSPIPE_DENSE_BACKEND=torch asks for it anywhere (on CPU it runs in bfloat16: the tests).
 */
import { closeSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../../pipeline/engine/errors.ts";
import { BACKEND_CHOICES, type BackendChoice } from "./backend.ts";
import { loadFlatIP } from "./faiss-index.ts";
import { FLAT_IP_HEADER_BYTES, parseFlatIPHeader, type FlatIPHeader } from "./flat-ip-format.ts";
import { indexFileRowReader, rescoreFromIndexFile } from "./rescore.ts";
import { cudaMissing, provenTopK, reportLine, runTorchCandidates } from "./torch-search.ts";
import type { TopK } from "./topk.ts";

export type SearchBackendChoice = BackendChoice | "torch";
export const SEARCH_BACKEND_CHOICES: readonly SearchBackendChoice[] = [...BACKEND_CHOICES, "torch"];

/** Candidates asked from each shard beyond k before the exact rescoring (flat backends). */
export const rescoreDepth = (k: number): number => k + Math.max(16, Math.ceil(k / 10));

export interface ShardQueries {
  readonly vectors: Float32Array;
  readonly dim: number;
  /** The same vectors as a float32 [nq, dim] .npy file (the torch program reads it). */
  readonly npy: string;
}

export interface ShardSearchOptions {
  readonly choice: SearchBackendChoice;
  /** GPU slots the step holds. */
  readonly devices?: readonly number[];
  /** Scratch folder (the torch program's output). */
  readonly workDir: string;
  /** The shard's passage ids file and their count (checked against the index before any search). */
  readonly pids: { readonly file: string; readonly count: number };
  readonly onProgress?: (done: number, total?: number) => void;
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export interface ShardSearch {
  /** Rescored, depth rescoreDepth(k), each query's list in (-score, row) order. */
  readonly topk: TopK;
  readonly ntotal: number;
  /** The backend and why, for the log. */
  readonly backend: string;
  readonly reason: string;
  /** A line on how the candidates were found (torch: dtype, device, queries widened). */
  readonly note?: string;
}

/** The faiss/brute-force choice for searches without a torch path (DCSR's sentence indexes): torch -> auto. */
export const flatBackendOf = (choice: SearchBackendChoice): BackendChoice => (choice === "torch" ? "auto" : choice);

type Searcher = (indexFile: string, q: ShardQueries, k: number, opts: ShardSearchOptions, reason: string) => ShardSearch;

const SEARCHERS: Readonly<Record<"flat" | "torch", Searcher>> = {
  flat(indexFile, q, k, opts) {
    const index = loadFlatIP(indexFile, { backend: flatBackendOf(opts.choice) });
    const found = index.search(q.vectors, rescoreDepth(k), opts.onProgress !== undefined ? { onProgress: opts.onProgress } : {});
    return { topk: rescoreFromIndexFile(found, q.vectors, q.dim, indexFile), ntotal: index.ntotal, backend: index.backend, reason: index.reason };
  },
  torch(indexFile, q, k, opts, reason) {
    const c = runTorchCandidates(indexFile, q.npy, k, { outDir: join(opts.workDir, "torch-search"), ...(opts.devices !== undefined ? { devices: opts.devices } : {}), ...(opts.env !== undefined ? { env: opts.env } : {}) });
    const { topk, failures } = provenTopK(c, q.vectors, q.dim, k, rescoreDepth(k), indexFileRowReader(indexFile, q.dim));
    if (failures.length > 0) {
      const f = failures[0]!;
      throw new Error(`torch search: the candidate depth is not proven for ${failures.length} queries (query ${f.query}: threshold ${f.threshold} + eps ${f.eps} >= k-th exact score ${f.kth}); not writing an unproven list`);
    }
    opts.onProgress?.(c.offsets.length - 1, c.offsets.length - 1);
    return { topk, ntotal: c.report.rows, backend: "torch", reason, note: reportLine(c.report) };
  },
};

/**
 * Which searcher runs, and why. `cudaHere` is asked only when `auto` holds a slot: under an
 * executor whose GPUs are elsewhere (a remote Dagger engine) this process may see none.
 */
export function pickSearcher(choice: SearchBackendChoice, devices: readonly number[] | undefined, cudaHere: () => string | undefined = () => undefined): { searcher: "flat" | "torch"; reason: string } {
  if (choice === "torch") return { searcher: "torch", reason: "torch requested" };
  if (choice !== "auto" || (devices?.length ?? 0) === 0) return { searcher: "flat", reason: "" };
  const missing = cudaHere();
  return missing === undefined ? { searcher: "torch", reason: `auto: the step holds GPU slot(s) ${devices!.join(",")}` } : { searcher: "flat", reason: `auto: GPU slot held but ${missing}` };
}

function indexHeader(indexFile: string): FlatIPHeader {
  const fd = openSync(indexFile, "r");
  try {
    const head = new Uint8Array(FLAT_IP_HEADER_BYTES);
    readSync(fd, head, 0, FLAT_IP_HEADER_BYTES, 0);
    return parseFlatIPHeader(head, indexFile);
  } finally {
    closeSync(fd);
  }
}

/** The exact top k of one shard's index file (see the file comment); shapes checked first. */
export function searchShardExact(indexFile: string, q: ShardQueries, k: number, opts: ShardSearchOptions): ShardSearch {
  const h = indexHeader(indexFile);
  if (h.dim !== q.dim) throw new InputError(`index dimension ${h.dim}, query embeddings ${q.dim}`, { file: indexFile, fix: "encode queries and passages with the same model" });
  if (h.ntotal !== opts.pids.count) throw new InputError(`${opts.pids.count} passage ids for ${h.ntotal} vectors`, { file: opts.pids.file, fix: "rebuild the index" });
  const { searcher, reason } = pickSearcher(opts.choice, opts.devices, () => cudaMissing(opts.env));
  const found = SEARCHERS[searcher](indexFile, q, k, opts, reason);
  return reason !== "" && searcher === "flat" ? { ...found, reason: `${found.reason}; ${reason}` } : found;
}

/**
 * The torch backend of the shard search: candidates from steps/dense/gpu/search.py (a
 * float16/bfloat16 matmul + top-k on a GPU, the same program in bfloat16 on CPU), each query's
 * candidate depth proven there (bound.py: no passage outside the candidates can enter the exact
 * top k), then the same exact rescoring as the other backends (rescore.ts, dotF32) and a second
 * check of the proof with the very scores that are written: threshold + eps < the k-th rescored
 * score, where eps bounds |low-precision score - dotF32 score| and threshold is the lowest
 * low-precision score kept. A query that fails it stops the step: no unproven list is written.
 *
 * Because every passage the exact top k needs is a candidate, the rescored candidates' top
 * `depth` (the depth the other backends hand the merge) agree with the brute force's on every
 * entry at or above the k-th score, which is all the merge and the per-shard lists read: the
 * output bytes do not depend on the backend, and the backend is not in the key.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readNpy } from "../lib/npy.ts";
import { rescoreCandidates, type RowReader } from "./rescore.ts";
import { emptyTopK, type TopK } from "./topk.ts";

/** The Python source root (steps/, beside this folder in a checkout and in a build). */
const PYTHON_ROOT_DIR = fileURLToPath(new URL("../", import.meta.url));
export const TORCH_SEARCH_MODULE = "dense.gpu.search";

/** What search.py found for one shard: each query's candidate rows and its proof's terms. */
export interface TorchCandidates {
  /** Query q's candidates are rows[offsets[q] .. offsets[q + 1]). */
  readonly offsets: readonly number[];
  readonly rows: Int32Array;
  /** The lowest low-precision score among q's candidates (-Infinity: every row is one). */
  readonly threshold: Float32Array;
  /** Bound on |low-precision score - dotF32 score| for q against any row of the shard. */
  readonly eps: Float32Array;
  readonly report: TorchReport;
}

export interface TorchReport {
  readonly device: string;
  readonly torch: string;
  readonly dtype: string;
  readonly queries: number;
  readonly rows: number;
  readonly k: number;
  readonly depth: number;
  readonly widened: number;
  readonly float32: number;
  readonly allRows: number;
  readonly depths: Readonly<Record<string, number>>;
}

/** One line on what ran and how many queries needed a deeper search (the program logs its seconds itself). */
export function reportLine(r: TorchReport): string {
  return `torch ${r.torch} on ${r.device} in ${r.dtype}: ${r.queries} queries x ${r.rows} rows, depth ${r.depth}; ${r.widened} widened, ${r.float32} in float32, ${r.allRows} against every row`;
}

/** A query whose candidates do not prove its top k (its index, and the numbers). */
export interface ProofFailure {
  readonly query: number;
  readonly threshold: number;
  readonly eps: number;
  readonly kth: number;
}

/** Pure: whether `threshold + eps < kth` holds beyond doubt (the sum's own float64 rounding counted). */
export function proofHolds(threshold: number, eps: number, kth: number): boolean {
  if (threshold === -Infinity) return true;
  const bound = threshold + eps;
  return bound + Math.abs(bound) * 2 ** -50 < kth;
}

/**
 * Pure core: the candidates rescored exactly (rescore.ts), the proof re-checked with the rescored
 * scores, each query's best `depth` kept in (-score, row) order. Queries are rescored in groups of
 * equal candidate count, so one widened query does not pad every other.
 */
export function provenTopK(c: TorchCandidates, queries: Float32Array, dim: number, k: number, depth: number, read: RowReader): { topk: TopK; failures: ProofFailure[] } {
  const nq = c.offsets.length - 1;
  const out = emptyTopK(nq, depth);
  const failures: ProofFailure[] = [];
  const groups = new Map<number, number[]>();
  for (let q = 0; q < nq; q++) {
    const m = c.offsets[q + 1]! - c.offsets[q]!;
    const g = groups.get(m);
    if (g === undefined) groups.set(m, [q]);
    else g.push(q);
  }
  for (const [m, qs] of groups) {
    if (m === 0) continue;
    const cand = emptyTopK(qs.length, m);
    const sub = new Float32Array(qs.length * dim);
    qs.forEach((q, i) => {
      cand.rows.set(c.rows.subarray(c.offsets[q]!, c.offsets[q + 1]!), i * m);
      sub.set(queries.subarray(q * dim, (q + 1) * dim), i * dim);
    });
    const scored = rescoreCandidates(cand, sub, dim, read);
    qs.forEach((q, i) => {
      const kth = scored.scores[i * m + Math.min(k, m) - 1]!;
      if (!proofHolds(c.threshold[q]!, c.eps[q]!, kth)) failures.push({ query: q, threshold: c.threshold[q]!, eps: c.eps[q]!, kth });
      const keep = Math.min(depth, m);
      out.rows.set(scored.rows.subarray(i * m, i * m + keep), q * depth);
      out.scores.set(scored.scores.subarray(i * m, i * m + keep), q * depth);
    });
  }
  return { topk: out, failures };
}

/** Reads search.py's output folder. */
export function readTorchCandidates(dir: string): TorchCandidates {
  const offsets = readNpy(join(dir, "offsets.npy")).data;
  const rows = readNpy(join(dir, "rows.npy")).data;
  const threshold = readNpy(join(dir, "threshold.npy")).data;
  const eps = readNpy(join(dir, "eps.npy")).data;
  if (!(rows instanceof Int32Array) || !(threshold instanceof Float32Array) || !(eps instanceof Float32Array)) throw new Error(`${dir}: unexpected dtypes in dense.gpu.search's output`);
  return { offsets: Array.from(offsets as ArrayLike<number | bigint>, Number), rows, threshold, eps, report: JSON.parse(readFileSync(join(dir, "report.json"), "utf8")) as TorchReport };
}

const usable = new Map<string, boolean>();
/** CSPIPE_PYTHON, else the first of python3, /usr/bin/python3 that imports torch and numpy (asked once each). */
export function torchPython(env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
  // A configured interpreter is taken as it is (search.py names a missing module itself).
  if (env.CSPIPE_PYTHON) return env.CSPIPE_PYTHON;
  return ["python3", "/usr/bin/python3"].find((p) => {
    if (!usable.has(p)) usable.set(p, spawnSync(p, ["-c", "import torch, numpy"], { stdio: "ignore", env: { ...env } as NodeJS.ProcessEnv }).status === 0);
    return usable.get(p);
  });
}

let cuda: string | undefined | null = null;
/** Why this process cannot run the torch search on a GPU (no torch Python, no CUDA device), or undefined when it can; asked once. */
export function cudaMissing(env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
  if (cuda !== null) return cuda;
  const python = torchPython(env);
  const ok = python !== undefined && spawnSync(python, ["-c", "import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)"], { stdio: "ignore", env: { ...env } as NodeJS.ProcessEnv }).status === 0;
  cuda = ok ? undefined : python === undefined ? "no Python with torch and numpy here" : `${python}'s torch sees no CUDA device here`;
  return cuda;
}

/** CUDA_VISIBLE_DEVICES for GPU slots (indexes into the user's own list when set). */
function visibleFor(devices: readonly number[], inherited: string | undefined): string {
  const own = inherited?.trim() ? inherited.split(",").map((d) => d.trim()) : undefined;
  return devices.map((d) => own?.[d] ?? String(d)).join(",");
}

export interface TorchRunOptions {
  /** Folder for search.py's output (a step's workDir). */
  readonly outDir: string;
  /** GPU slots held (ctx.devices); absent or empty: the program runs on CPU. */
  readonly devices?: readonly number[];
  readonly dtype?: "auto" | "float16" | "bfloat16" | "float32";
  readonly depth?: number;
  readonly maxDepth?: number;
  readonly threads?: number;
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** Runs search.py on one index file against a float32 .npy of queries (thin adapter). */
export function runTorchCandidates(indexFile: string, queriesNpy: string, k: number, opts: TorchRunOptions): TorchCandidates {
  const env = opts.env ?? process.env;
  const python = torchPython(env);
  if (python === undefined) throw new Error("the torch dense backend needs a Python with torch and numpy: set CSPIPE_PYTHON, or use CSPIPE_DENSE_BACKEND=auto|faiss|brute-force");
  const onGpu = (opts.devices?.length ?? 0) > 0;
  const args = [PYTHON_ROOT_DIR, TORCH_SEARCH_MODULE, "--index", indexFile, "--queries", queriesNpy, "--k", String(k), "--out", opts.outDir, "--device", onGpu ? "cuda" : "cpu", "--dtype", opts.dtype ?? "auto", "--threads", String(opts.threads ?? 1)];
  if (opts.depth !== undefined) args.push("--depth", String(opts.depth));
  if (opts.maxDepth !== undefined) args.push("--max-depth", String(opts.maxDepth));
  const childEnv = { ...env, CUDA_VISIBLE_DEVICES: onGpu ? visibleFor(opts.devices!, env.CUDA_VISIBLE_DEVICES) : "", OMP_NUM_THREADS: String(opts.threads ?? 1) };
  const r = spawnSync(python, args, { encoding: "utf8", env: childEnv as NodeJS.ProcessEnv, maxBuffer: 64 << 20 });
  if (r.status !== 0 || !existsSync(join(opts.outDir, "report.json"))) {
    throw new Error(`${python} ${args.slice(0, 2).join(" ")} failed (exit ${r.status ?? r.signal}): ${(r.stderr ?? "").trim().split("\n").slice(-8).join("\n")}`);
  }
  return readTorchCandidates(opts.outDir);
}

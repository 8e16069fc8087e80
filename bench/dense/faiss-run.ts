/**
 * cspipe's side of bench/dense, one measurement per child process (faiss reads its thread
 * settings from the environment when it loads):
 *
 *   faiss <corpus.npy> <queries.npy> <k> <repeats> <method> <indexFile>
 *       method: from-buffer | read-file (vectors in memory -> faiss-node), or load-file (the
 *       pipeline's path: the index file build-flat-ip-index wrote, loaded by search-dense).
 *       Searches ask for rescoreDepth(k) candidates, as search-dense does. Prints {buildSeconds,
 *       searches: [...]}; load-file adds {rescore: the exact rescoring of every query's
 *       candidates, timed; exact: top k of the first 20 queries after it}.
 *   brute <corpus.npy> <queries.npy> <k> <nq>
 *       The TypeScript brute force (one thread) on the first nq queries: seconds, and the top k of
 *       the first 20 (the reference the rescored faiss results must equal).
 */
import { cpuUsage } from "node:process";
import { faissAvailability } from "../../steps/dense/backend.ts";
import { bruteForceSearch } from "../../steps/dense/brute-force.ts";
import { buildFlatIP, loadFlatIP, writeFlatIPFile, type FaissLoadMethod } from "../../steps/dense/faiss-index.ts";
import { rescoreDepth, rescoreShard } from "../../steps/dense/steps.ts";
import { readNpy } from "../../steps/lib/npy.ts";
import type { TopK } from "../../steps/dense/topk.ts";

function matrix(path: string): { data: Float32Array; rows: number; dim: number } {
  const a = readNpy(path);
  if (!(a.data instanceof Float32Array) || a.shape.length !== 2) throw new Error(`${path}: not a float32 matrix`);
  return { data: a.data, rows: a.shape[0]!, dim: a.shape[1]! };
}

function timed<T>(fn: () => T): { value: T; seconds: number; cpuSeconds: number } {
  const c0 = cpuUsage();
  const t0 = performance.now();
  const value = fn();
  const c = cpuUsage(c0);
  return { value, seconds: (performance.now() - t0) / 1000, cpuSeconds: (c.user + c.system) / 1e6 };
}

const head = (t: TopK, n: number) => Array.from({ length: Math.min(n, t.nq) }, (_, q) => ({ rows: [...t.rows.subarray(q * t.k, (q + 1) * t.k)], scores: [...t.scores.subarray(q * t.k, (q + 1) * t.k)] }));

function main(argv: string[]): void {
  const [mode, corpusFile, queriesFile, kArg, a4, a5, a6] = argv as [string, string, string, string, string, string, string];
  const corpus = matrix(corpusFile);
  const queries = matrix(queriesFile);
  const k = Number(kArg);
  if (mode === "brute") {
    const nq = Number(a4);
    const r = timed(() => bruteForceSearch(corpus.data, queries.data.subarray(0, nq * queries.dim), corpus.dim, k, { trusted: true }));
    console.log(JSON.stringify({ seconds: r.seconds, cpuSeconds: r.cpuSeconds, nq, exact: head(r.value, 20) }));
    return;
  }
  if (mode !== "faiss") throw new Error(`unknown mode ${mode} (faiss | brute)`);
  const avail = faissAvailability();
  if (!avail.available) {
    console.log(JSON.stringify({ unavailable: avail.reason }));
    return;
  }
  const repeats = Number(a4);
  const method = a5 as FaissLoadMethod | "load-file";
  const indexFile = a6;
  const depth = rescoreDepth(k);
  const built = timed(() => (method === "load-file" ? loadFlatIP(indexFile, { backend: "faiss" }) : buildFlatIP(corpus.data, corpus.dim, { backend: "faiss", faissMethod: method })));
  const index = built.value;
  const searches: { seconds: number; cpuSeconds: number }[] = [];
  let found: TopK | undefined;
  for (let r = 0; r < repeats; r++) {
    const s = timed(() => index.search(queries.data, depth));
    searches.push({ seconds: s.seconds, cpuSeconds: s.cpuSeconds });
    found = s.value;
  }
  const base = { buildSeconds: built.seconds, buildCpuSeconds: built.cpuSeconds, searches };
  if (method !== "load-file") {
    console.log(JSON.stringify(base));
    return;
  }
  // The pipeline's exactness: the depth candidates faiss found, rescored with the exact float32
  // dot product (search-dense's rescoreShard, reading the candidates' rows from the index file).
  const rescored = timed(() => rescoreShard(found!, queries.data, queries.dim, indexFile));
  const exact = rescored.value;
  const topk: TopK = { nq: exact.nq, k, scores: new Float32Array(exact.nq * k), rows: new Int32Array(exact.nq * k) };
  for (let q = 0; q < exact.nq; q++) {
    topk.scores.set(exact.scores.subarray(q * exact.k, q * exact.k + k), q * k);
    topk.rows.set(exact.rows.subarray(q * exact.k, q * exact.k + k), q * k);
  }
  console.log(JSON.stringify({ ...base, rescore: { seconds: rescored.seconds, cpuSeconds: rescored.cpuSeconds }, exact: head(topk, 20) }));
}

if (process.argv[2] === "write-index") {
  const m = matrix(process.argv[3]!);
  const t = timed(() => writeFlatIPFile(process.argv[4]!, m.data, m.dim));
  console.log(JSON.stringify({ seconds: t.seconds, cpuSeconds: t.cpuSeconds }));
} else {
  main(process.argv.slice(2));
}

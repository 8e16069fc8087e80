/**
 * Exact flat inner-product search: cspipe's faiss-node path (the index file the pipeline writes,
 * loaded and searched as search-dense does, and faiss-node fed from memory) beside Python FAISS
 * (Debian python3-faiss, the same libfaiss 1.7.3), with the machine's compute bound printed beside
 * them: 2 * queries * corpus * dim multiply-adds at the float32 matrix-product rate numpy/OpenBLAS
 * reaches here (2048^3 sgemm, all cores). Each engine runs in its own process under each thread
 * setting (faiss reads OMP_NUM_THREADS when it loads): unset (Python faiss: OpenMP and OpenBLAS
 * both on every core; cspipe: OpenMP on one thread, its default, steps/dense/backend.ts) and
 * OMP_NUM_THREADS=1; the best of each engine is compared. faiss-node fed from memory (fromBuffer)
 * is measured in the first repeat only. The TypeScript brute force (one thread) runs on a subset to
 * show what a kernel of our own reaches here.
 *
 *   npx tsx bench/dense/main.ts [--n 200000] [--dim 768] [--nq 1000] [--k 100] [--repeats 3] [--quick]
 *   (--quick: 50,000 x 768, 200 queries, 2 repeats)
 *
 * Exactness: the first 20 queries' top k after the pipeline's rescoring (k + margin faiss
 * candidates rescored with the exact float32 dot product) must equal the brute force's.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { writeNpy } from "../../steps/lib/npy.ts";
import { mulberry32 } from "../../steps/lib/prng.ts";
import { median, minimum } from "../engine/stats.ts";

const HERE = dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: {
    n: { type: "string" },
    dim: { type: "string", default: "768" },
    nq: { type: "string" },
    k: { type: "string", default: "100" },
    repeats: { type: "string" },
    quick: { type: "boolean", default: false },
  },
});
const n = Number(values.n ?? (values.quick ? 50_000 : 200_000));
const dim = Number(values.dim);
const nq = Number(values.nq ?? (values.quick ? 200 : 1000));
const k = Number(values.k);
const repeats = Number(values.repeats ?? (values.quick ? 2 : 3));
const BRUTE_QUERIES = Math.min(nq, 20);

interface Search {
  seconds: number;
  cpuSeconds: number;
}
type Json = Record<string, unknown>;

function runJson(cmd: string, args: readonly string[], env: Record<string, string> = {}): Json {
  const r = spawnSync(cmd, args, { encoding: "utf8", env: { ...process.env, ...env }, maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (${r.status ?? r.signal}): ${(r.stderr || r.stdout).slice(-2000)}`);
  return JSON.parse(r.stdout.trim().split("\n").at(-1)!) as Json;
}
const node = (args: readonly string[], env: Record<string, string> = {}) => runJson(process.execPath, ["--import", "tsx", join(HERE, "faiss-run.ts"), ...args], env);

function randomMatrix(rows: number, seed: number): Float32Array {
  const next = mulberry32(seed);
  const out = new Float32Array(rows * dim);
  for (let i = 0; i < out.length; i++) out[i] = next() - 0.5;
  return out;
}

const SETTINGS: Record<string, Record<string, string>> = { unset: {}, "OMP_NUM_THREADS=1": { OMP_NUM_THREADS: "1" } };

async function main(): Promise<void> {
  const flops = 2 * nq * n * dim;
  console.log(`dense bench: ${n.toLocaleString("en-US")} x ${dim} corpus, ${nq} queries, k=${k}, ${repeats} repeats (${(flops / 1e9).toFixed(0)} GFLOP per search)`);
  const dir = mkdtempSync(join(tmpdir(), "cspipe-bench-dense-"));
  try {
    const corpusFile = join(dir, "corpus.npy");
    const queriesFile = join(dir, "queries.npy");
    const indexFile = join(dir, "index.faiss");
    writeNpy(corpusFile, { dtype: "float32", shape: [n, dim], data: randomMatrix(n, 1) });
    writeNpy(queriesFile, { dtype: "float32", shape: [nq, dim], data: randomMatrix(nq, 2) });
    const written = node(["write-index", corpusFile, indexFile]);

    const rows: { engine: string; setting: string; build: number; search: number[]; cpu: number[] }[] = [];
    let peak = 0;
    let pyExact: unknown;
    let oursExact: unknown;
    for (let r = 0; r < repeats; r++) {
      for (const [setting, env] of Object.entries(SETTINGS)) {
        const py = runJson("/usr/bin/python3", [join(HERE, "faiss_peer.py"), corpusFile, queriesFile, String(k), "1"], env);
        peak = Math.max(peak, py.sgemmGflops as number);
        const ours = node(["faiss", corpusFile, queriesFile, String(k), "1", "load-file", indexFile], env);
        if ("unavailable" in ours) throw new Error(`faiss-node: ${ours.unavailable as string}`);
        const mem = r === 0 ? node(["faiss", corpusFile, queriesFile, String(k), "1", "from-buffer", indexFile], env) : undefined;
        const add = (engine: string, build: number, s: Search) => {
          let row = rows.find((x) => x.engine === engine && x.setting === setting);
          if (!row) rows.push((row = { engine, setting, build: Infinity, search: [], cpu: [] }));
          row.build = Math.min(row.build, build);
          row.search.push(s.seconds);
          row.cpu.push(s.cpuSeconds);
        };
        add("python faiss (add from numpy)", py.addSeconds as number, (py.searches as Search[])[0]!);
        add("cspipe: faiss-node, index file (the pipeline's path)", (written.seconds as number) + (ours.buildSeconds as number), (ours.searches as Search[])[0]!);
        if (mem) add("cspipe: faiss-node, from memory (fromBuffer)", mem.buildSeconds as number, (mem.searches as Search[])[0]!);
        pyExact = py.rows;
        oursExact = ours.exact;
      }
      console.log(`  repeat ${r + 1}/${repeats} done`);
    }
    const brute = node(["brute", corpusFile, queriesFile, String(k), String(BRUTE_QUERIES)]);
    const bound = flops / (peak * 1e9);

    console.log(`\ncompute bound: ${(flops / 1e9).toFixed(0)} GFLOP at ${peak.toFixed(0)} GFLOP/s (numpy sgemm 2048^3, best seen) = ${bound.toFixed(2)} s`);
    console.log("\n| engine | threads | build/add s | search s (median) | search s (min) | CPU s (median) | x bound (median) |");
    console.log("|---|---|---:|---:|---:|---:|---:|");
    for (const r of rows) {
      console.log(`| ${r.engine} | ${r.setting} | ${r.build.toFixed(2)} | ${median(r.search).toFixed(2)} | ${minimum(r.search).toFixed(2)} | ${median(r.cpu).toFixed(2)} | ${(median(r.search) / bound).toFixed(2)}x |`);
    }
    const best = (prefix: string) => rows.filter((r) => r.engine.startsWith(prefix)).sort((a, b) => median(a.search) - median(b.search))[0]!;
    const py = best("python");
    const ours = best("cspipe: faiss-node, index file");
    console.log(`\nbest python faiss: ${py.setting}, ${median(py.search).toFixed(2)} s; best cspipe (pipeline path): ${ours.setting}, ${median(ours.search).toFixed(2)} s`);
    console.log(`cspipe search vs python faiss (best each, medians): ${(median(py.search) / median(ours.search)).toFixed(2)}x; cspipe search / compute bound: ${(median(ours.search) / bound).toFixed(2)}x (goal <= 2)`);
    console.log(`cspipe build vs python add: ${(ours.build / py.build).toFixed(2)}x the time (index file written + loaded); from memory ${(best("cspipe: faiss-node, from memory").build / py.build).toFixed(2)}x (goal <= 2)`);
    const bf = brute.seconds as number;
    console.log(`TypeScript brute force, 1 thread, ${BRUTE_QUERIES} queries: ${bf.toFixed(2)} s = ${((2 * BRUTE_QUERIES * n * dim) / bf / 1e9).toFixed(1)} GFLOP/s (OpenBLAS: ${peak.toFixed(0)} GFLOP/s on all cores)`);
    const want = brute.exact as { rows: number[]; scores: number[] }[];
    const got = oursExact as { rows: number[]; scores: number[] }[];
    const same = want.filter((w, q) => JSON.stringify(w) === JSON.stringify(got[q])).length;
    const pyTop1 = (pyExact as number[][]).filter((r, q) => r[0] === want[q]?.rows[0]).length;
    console.log(`exact after the pipeline's rescoring: ${same}/${want.length} queries identical to the brute force (rows and float32 scores); python faiss top-1 agrees on ${pyTop1}/${want.length}`);
    if (same !== want.length) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();

/**
 * Exact flat inner-product search: cspipe's faiss-node path (the index file build-flat-ip-index
 * writes, loaded and searched as search-dense does, plus the exact rescoring it applies; and
 * faiss-node fed from memory, first repeat only) beside Python FAISS (Debian python3-faiss, the
 * same libfaiss 1.7.3), with the machine's compute bound printed beside them: 2 * queries * corpus
 * * dim flops at the best float32 matrix-product rate numpy/OpenBLAS reached in this run (2048^3
 * sgemm, all cores, measured in every Python child), as wall seconds and as CPU-seconds (steadier
 * on a shared machine); also the same-shape product alone (no top-k). Each engine runs in its own
 * process under each thread setting (see SETTINGS); the best of each engine is compared, and
 * cspipe's default. The TypeScript brute force (one thread) runs on 20 queries: the exactness
 * reference, and what a plain-JS kernel of our own reaches here.
 *
 *   npx tsx bench/dense/main.ts [--n 200000] [--dim 768] [--nq 1000] [--k 100] [--repeats 3] [--quick]
 *   (--quick: 50,000 x 768, 200 queries, 2 repeats)
 *
 * Exactness: the first 20 queries' top k after the pipeline's rescoring (rescoreDepth(k) faiss
 * candidates rescored with the exact float32 dot product) must equal the brute force's, rows and
 * score bits; exit code 1 otherwise.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { rescoreDepth } from "../../steps/dense/steps.ts";
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

const NPROC = String(availableParallelism());
/**
 * Thread settings, each engine in its own process per setting (libgomp reads them when faiss
 * loads). With no OMP_NUM_THREADS, Python faiss runs OpenMP on every core and cspipe on one
 * (FAISS_DEFAULT_OMP_THREADS in steps/dense/backend.ts); OpenBLAS uses every core in all of them.
 */
const SETTINGS: Record<string, Record<string, string>> = {
  "no OMP_NUM_THREADS (each engine's default)": {},
  "OMP_NUM_THREADS=1": { OMP_NUM_THREADS: "1" },
  [`OMP_NUM_THREADS=${NPROC}, OMP_WAIT_POLICY=PASSIVE`]: { OMP_NUM_THREADS: NPROC, OMP_WAIT_POLICY: "PASSIVE" },
};
const DEFAULT_SETTING = Object.keys(SETTINGS)[0]!;

interface Row {
  engine: string;
  setting: string;
  build: number[];
  search: number[];
  cpu: number[];
  rescore: number[];
}

const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : "-");

async function main(): Promise<void> {
  const flops = 2 * nq * n * dim;
  const depth = rescoreDepth(k);
  console.log(`dense bench: ${n.toLocaleString("en-US")} x ${dim} corpus, ${nq} queries, top ${k} (${depth} candidates per query, as search-dense asks), ${repeats} repeats, ${NPROC} cores (${(flops / 1e9).toFixed(0)} GFLOP per search)`);
  const dir = mkdtempSync(join(tmpdir(), "cspipe-bench-dense-"));
  try {
    const corpusFile = join(dir, "corpus.npy");
    const queriesFile = join(dir, "queries.npy");
    const indexFile = join(dir, "index.faiss");
    writeNpy(corpusFile, { dtype: "float32", shape: [n, dim], data: randomMatrix(n, 1) });
    writeNpy(queriesFile, { dtype: "float32", shape: [nq, dim], data: randomMatrix(nq, 2) });

    const rows: Row[] = [];
    const record = (engine: string, setting: string, build: number, s: Search, rescore = NaN) => {
      let row = rows.find((x) => x.engine === engine && x.setting === setting);
      if (!row) rows.push((row = { engine, setting, build: [], search: [], cpu: [], rescore: [] }));
      row.build.push(build);
      row.search.push(s.seconds);
      row.cpu.push(s.cpuSeconds);
      if (Number.isFinite(rescore)) row.rescore.push(rescore);
    };
    const peaks: number[] = [];
    const peaksCpu: number[] = [];
    const gemm: Search[] = [];
    let pyExact: unknown;
    let oursExact: unknown;
    for (let r = 0; r < repeats; r++) {
      // The pipeline's build: build-flat-ip-index writes the file (timed here, every repeat),
      // search-dense loads it (timed in the child).
      const written = node(["write-index", corpusFile, indexFile]);
      for (const [setting, env] of Object.entries(SETTINGS)) {
        const py = runJson("/usr/bin/python3", [join(HERE, "faiss_peer.py"), corpusFile, queriesFile, String(depth), "1", ...(setting === DEFAULT_SETTING ? ["--gemm"] : [])], env);
        peaks.push(py.sgemmGflops as number);
        peaksCpu.push(py.sgemmGflopsPerCpuSecond as number);
        if (typeof py.gemmSeconds === "number") gemm.push({ seconds: py.gemmSeconds, cpuSeconds: py.gemmCpuSeconds as number });
        record("python faiss: add from numpy", setting, py.addSeconds as number, (py.searches as Search[])[0]!);
        pyExact = py.rows;
        const ours = node(["faiss", corpusFile, queriesFile, String(k), "1", "load-file", indexFile], env);
        if ("unavailable" in ours) throw new Error(`faiss-node: ${ours.unavailable as string}`);
        record("cspipe: faiss-node, index file (the pipeline's path)", setting, (written.seconds as number) + (ours.buildSeconds as number), (ours.searches as Search[])[0]!, (ours.rescore as Search).seconds);
        oursExact = ours.exact;
        if (r === 0 && setting === DEFAULT_SETTING) {
          const mem = node(["faiss", corpusFile, queriesFile, String(k), "1", "from-buffer", indexFile], env);
          record("cspipe: faiss-node, from memory (fromBuffer)", setting, mem.buildSeconds as number, (mem.searches as Search[])[0]!);
        }
      }
      console.log(`  repeat ${r + 1}/${repeats} done`);
    }
    const brute = node(["brute", corpusFile, queriesFile, String(k), String(BRUTE_QUERIES)]);
    const peak = Math.max(...peaks);
    const peakCpu = Math.max(...peaksCpu);
    const bound = flops / (peak * 1e9);
    const boundCpu = flops / (peakCpu * 1e9);

    console.log(`\ncompute bound: ${(flops / 1e9).toFixed(0)} GFLOP at the best fp32 rate seen (numpy sgemm 2048^3, ${peaks.length} measurements in this run): ${peak.toFixed(0)} GFLOP/s wall = ${bound.toFixed(2)} s; ${peakCpu.toFixed(0)} GFLOP per CPU-second = ${boundCpu.toFixed(2)} CPU-s`);
    console.log(`the same-shape product alone (numpy, no top-k): ${f2(median(gemm.map((g) => g.seconds)))} s wall, ${f2(median(gemm.map((g) => g.cpuSeconds)))} CPU-s (median of ${gemm.length})`);
    console.log("\n| engine | threads | build/add s (median) | search s (median) | search s (min) | search CPU-s (median) | exact rescoring s | search / bound (wall) | search / bound (CPU) |");
    console.log("|---|---|---:|---:|---:|---:|---:|---:|---:|");
    for (const x of rows) {
      console.log(`| ${x.engine} | ${x.setting} | ${f2(median(x.build))} | ${f2(median(x.search))} | ${f2(minimum(x.search))} | ${f2(median(x.cpu))} | ${f2(median(x.rescore))} | ${f2(median(x.search) / bound)}x | ${f2(median(x.cpu) / boundCpu)}x |`);
    }
    const best = (prefix: string) => rows.filter((x) => x.engine.startsWith(prefix)).sort((a, b) => median(a.search) - median(b.search))[0]!;
    const py = best("python");
    const ours = best("cspipe: faiss-node, index file");
    const oursDefault = rows.find((x) => x.engine === ours.engine && x.setting === DEFAULT_SETTING)!;
    const pyAdd = median(py.build);
    console.log(`\nbest python faiss: ${py.setting}, ${f2(median(py.search))} s; best cspipe (pipeline path): ${ours.setting}, ${f2(median(ours.search))} s; cspipe's default: ${f2(median(oursDefault.search))} s`);
    console.log(`search, python faiss / cspipe (best each, medians): ${f2(median(py.search) / median(ours.search))}x; cspipe default search / compute bound: ${f2(median(oursDefault.search) / bound)}x wall, ${f2(median(oursDefault.cpu) / boundCpu)}x CPU (goal <= 2)`);
    console.log(`search-dense's whole search (faiss + exact rescoring), default: ${f2(median(oursDefault.search) + median(oursDefault.rescore))} s = ${f2((median(oursDefault.search) + median(oursDefault.rescore)) / bound)}x the bound`);
    console.log(`build, cspipe (index file written + loaded) / python add (medians): ${f2(median(oursDefault.build) / pyAdd)}x the time (goal <= 2); from memory ${f2(median(best("cspipe: faiss-node, from memory").build) / pyAdd)}x`);
    const bf = brute.seconds as number;
    console.log(`TypeScript brute force, 1 thread, ${BRUTE_QUERIES} queries: ${bf.toFixed(2)} s = ${((2 * BRUTE_QUERIES * n * dim) / bf / 1e9).toFixed(1)} GFLOP/s (OpenBLAS: ${peak.toFixed(0)} GFLOP/s)`);
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

/**
 * Benchmark dispatcher: runs the named benchmarks (default: engine), passing every argument from
 * the first `--option` on to each one. Every benchmark measures a peer in the same run and prints
 * the ratio, and takes `--quick` for a small size.
 *
 *   npm run bench                          # engine
 *   npm run bench -- bm25 --quick
 *   npm run bench -- engine dense --quick  # several, one after the other
 *   npm run bench -- all --quick           # every benchmark
 *   npm run bench -- --list                # name, entry file, what it measures
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));

/** Every benchmark: its entry file (relative to bench/) and what it compares. */
export const BENCHMARKS: Readonly<Record<string, { readonly entry: string; readonly what: string }>> = {
  engine: { entry: "engine/main.ts", what: "workflow engine: cold run and no-op rerun of a synthetic DAG (./cspipe, compiled, tsx) vs Snakemake" },
  bm25: { entry: "bm25/main.ts", what: "BM25 index build and top-k search, 1 thread, vs Lucene 8 (1M passages; --passages 10000000 for 10M)" },
  dense: { entry: "dense/main.ts", what: "exact flat inner-product search and build vs Python FAISS, with the machine's compute bound" },
  encode: { entry: "encode/main.ts", what: "passage encoding throughput, onnxruntime-node vs torch, each at its best thread count" },
  tokenize: { entry: "tokenize/tokenize.ts", what: "WordPiece tokenization, @huggingface/tokenizers vs the pure-TS reference" },
  training: { entry: "training/train-steps.ts", what: "DPR training steps/s on CPU, torch at 1 vs 2 threads" },
  "first-token": { entry: "training/first-token.ts", what: "a mini DPR training step with the last layer over every token vs over [CLS] only (what the trainer runs), with each one's 1-thread matmul floor" },
  warm: { entry: "warm/main.ts", what: "a Python program step's start, cold vs forked from a warm interpreter, with the interpreter's and the stand-in's own start as floors" },
  numerics: { entry: "numerics/main.ts", what: "DPR training steps/s under the pinned CPU kernels vs the machine's own and Prescott's, with the 1-thread GEMM ceiling" },
  preprocess: { entry: "preprocess/collection.ts", what: "collection preprocessing to Parquet (passages/s, peak memory) vs parse-only and in-memory peers" },
  qa: { entry: "qa/main.ts", what: "DPR reader questions/s over 50 passages, onnxruntime-node (the predict path) vs torch, each at its best thread count; FiD greedy tokens/s (torch)" },
  "gpu-search": { entry: "gpu/search.ts", what: "torch shard search (float16/bfloat16, proven depth) on a 2M x 768 shard against 4,096 queries vs the float32 matmul, with the low-precision matmul ceiling (--quick: tiny, on CPU)" },
  gpu: { entry: "gpu/main.ts", what: "GPU check: BERT-base training step at QReCC batch sizes (peak memory, steps/s), fp16 encoding, per-shard search, beside docs/scale.md's estimates (--quick: tiny, on CPU)" },
};

/** Split argv into benchmark names (leading bare words) and the arguments passed on. */
export function splitArgs(argv: readonly string[]): { names: string[]; rest: string[] } {
  const i = argv.findIndex((a) => a.startsWith("-"));
  const cut = i === -1 ? argv.length : i;
  return { names: argv.slice(0, cut), rest: argv.slice(cut) };
}

/** The benchmarks to run for `names` (`all` = every one); throws on an unknown name. */
export function resolveNames(names: readonly string[]): string[] {
  const known = Object.keys(BENCHMARKS);
  const chosen = names.length === 0 ? ["engine"] : names.includes("all") ? known : [...names];
  const unknown = chosen.filter((n) => !known.includes(n));
  if (unknown.length > 0) throw new Error(`unknown benchmark(s) ${unknown.join(", ")}; known: ${known.join(", ")} (or all)`);
  return chosen;
}

function run(argv: readonly string[]): number {
  const { names, rest } = splitArgs(argv);
  if (rest[0] === "--list") {
    for (const [name, b] of Object.entries(BENCHMARKS)) process.stdout.write(`${name.padEnd(11)} bench/${b.entry.padEnd(25)} ${b.what}\n`);
    return 0;
  }
  let code = 0;
  for (const name of resolveNames(names)) {
    const entry = join(HERE, BENCHMARKS[name]!.entry);
    if (!existsSync(entry) || !readFileSync(entry, "utf8").includes("--quick")) throw new Error(`bench/${BENCHMARKS[name]!.entry} is missing or takes no --quick`);
    process.stdout.write(`== bench/${BENCHMARKS[name]!.entry} ${rest.join(" ")}\n`);
    const r = spawnSync(process.execPath, ["--import", "tsx", entry, ...rest], { stdio: "inherit" });
    if (r.status !== 0) code = r.status ?? 1;
  }
  return code;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    process.exitCode = run(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`bench: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 2;
  }
}

/**
 * The torch shard search (issue 33 item 2) on one random shard: the program the pipeline runs
 * (steps/dense/gpu/search.py: float16/bfloat16 matmul + top-k, the proven depth, widening),
 * beside the ceiling (a large matmul in the same low dtype, same run) and the float32 torch
 * matmul + top-k, with ratios; and a check that the exact top k lies inside the candidates.
 *
 *   npx tsx bench/gpu/search.ts [--quick] [--rows N] [--queries Q] [--dim D] [--k K] [--python P]
 *   npm run bench -- gpu-search [--quick]
 *
 * Default: a QReCC-sized shard, 2,000,000 x 768, against 4,096 queries, k 100 (target: under
 * 0.5 s on one GPU). `--quick`: 20,000 x 64 against 64 queries on CPU in seconds (tested in
 * test/bench/gpu-search-bench.test.ts). Without CUDA the numbers are CPU numbers and it says so.
 * Not included: the exact float32 rescoring in TypeScript (rescore.ts) that follows in the
 * pipeline, and reading the index file (bench dense measures the rescoring).
 */
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { pythonPathEnv } from "../../steps/pytrain/launch.ts";

const HERE = dirname(fileURLToPath(import.meta.url));

export interface SearchBenchConfig {
  readonly rows: number;
  readonly queries: number;
  readonly dim: number;
  readonly k: number;
  readonly ceiling: number;
}

interface Timing {
  readonly seconds: number;
  readonly tflops: number;
}
export interface SearchBenchResult {
  readonly device: string;
  readonly torch: string;
  readonly dtype: string;
  readonly ceiling: Timing & { readonly size: number };
  readonly proven: Timing & { readonly widened: number; readonly float32: number; readonly allRows: number; readonly depths: Record<string, number> };
  readonly float32: Timing & { readonly depth: number };
  readonly norms_seconds: number;
  readonly check: { readonly queries: number; readonly exactInside: number };
}

/** The configuration from argv: --quick's tiny shard, or the QReCC shard, each size overridable. */
export function searchBenchConfig(argv: readonly string[]): SearchBenchConfig {
  const quick = argv.includes("--quick");
  const flag = (name: string, dflt: number): number => {
    const i = argv.indexOf(`--${name}`);
    const v = i >= 0 ? Number(argv[i + 1]) : dflt;
    if (!Number.isInteger(v) || v <= 0) throw new Error(`--${name} must be a positive integer, got ${argv[i + 1]}`);
    return v;
  };
  return quick
    ? { rows: flag("rows", 20_000), queries: flag("queries", 64), dim: flag("dim", 64), k: flag("k", 100), ceiling: 256 }
    : { rows: flag("rows", 2_000_000), queries: flag("queries", 4096), dim: flag("dim", 768), k: flag("k", 100), ceiling: 8192 };
}

/** The printed report (pure). */
export function searchBenchLines(cfg: SearchBenchConfig, r: SearchBenchResult): string[] {
  const gpu = r.device !== "cpu";
  const out = [`device: ${r.device} (torch ${r.torch}); shard ${cfg.rows} x ${cfg.dim}, ${cfg.queries} queries, k ${cfg.k}`];
  if (!gpu) out.push("NOTE: no CUDA device: these are CPU numbers (bfloat16 emulated by the CPU), not the GPU's.");
  out.push(`ceiling: ${r.dtype} matmul ${r.ceiling.size}^3: ${r.ceiling.tflops.toPrecision(3)} TFLOP/s`);
  const p = r.proven;
  out.push(`proven (${r.dtype} matmul + top-k, depth rule, float64 k-th scores): ${p.seconds.toFixed(3)} s, ${p.tflops.toPrecision(3)} TFLOP/s; widened ${p.widened} of ${cfg.queries} queries, ${p.float32} in float32, ${p.allRows} against every row; depths ${JSON.stringify(p.depths)}`);
  out.push(`float32 (matmul + top-${r.float32.depth}, TF32 off): ${r.float32.seconds.toFixed(3)} s, ${r.float32.tflops.toPrecision(3)} TFLOP/s`);
  out.push(`ratio proven/ceiling (TFLOP/s): ${(p.tflops / r.ceiling.tflops).toFixed(3)}   ratio float32/proven (time): ${(r.float32.seconds / p.seconds).toFixed(2)}   target < 0.5 s: ${p.seconds < 0.5 ? "met" : "not met"}${gpu ? "" : " (CPU)"}`);
  out.push(`check: exact top ${cfg.k} inside the proven candidates for ${r.check.exactInside} of ${r.check.queries} queries; shard norms (once per shard) ${r.norms_seconds.toFixed(3)} s`);
  return out;
}

function main(argv: readonly string[]): number {
  const cfg = searchBenchConfig(argv);
  const pi = argv.indexOf("--python");
  const python = pi >= 0 ? argv[pi + 1]! : (process.env.CSPIPE_PYTHON ?? "/usr/bin/python3");
  const args = [join(HERE, "search_bench.py"), "--rows", String(cfg.rows), "--queries", String(cfg.queries), "--dim", String(cfg.dim), "--k", String(cfg.k), "--ceiling", String(cfg.ceiling)];
  const r = spawnSync(python, args, { encoding: "utf8", env: { ...process.env, ...pythonPathEnv(join(HERE, "..", "..")), OMP_NUM_THREADS: "1" } });
  if (r.status !== 0) {
    process.stderr.write(`search_bench.py failed (exit ${r.status}):\n${r.stderr}`);
    return 1;
  }
  const res = JSON.parse(r.stdout.trim().split("\n").at(-1)!) as SearchBenchResult;
  process.stdout.write(searchBenchLines(cfg, res).join("\n") + "\n");
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = main(process.argv.slice(2));

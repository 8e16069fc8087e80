/**
 * A GPU check anyone can run (issue 15 item 8): on a GPU machine, with random weights,
 * - a BERT-base bi-encoder training step at QReCC's batch sizes (iteration 1: 256 queries x
 *   128 tokens + 256 passages x 384; iteration 2: 128 + 256 with the hard negatives), in one
 *   graph and with the gradient cache (chunks of 32 rows): seconds per step, steps/s, peak memory;
 * - fp16 encoding throughput at 384 tokens (passages/s);
 * - per-shard search: the pipeline's kernel (the backend interface `search-dense-shard` calls:
 *   faiss-node IndexFlatIP or the brute force, on CPU, + exact rescoring) and a float32 GPU
 *   matmul + top-k for comparison;
 * each printed beside the planning estimate of docs/scale.md, with the whole-job figure it
 * implies (QReCC's 54M passages, a 3.4M-passage shard and 16,451 test queries).
 *
 *   npx tsx bench/gpu/main.ts [--quick] [--python /path/to/python3]
 *   npm run bench -- gpu [--quick]
 *
 * `--quick` runs a tiny configuration (2-layer BERT, hidden 64, small batches and shards) so
 * the program itself is tested on CPU (test/bench/gpu-bench.test.ts). Without a CUDA device
 * every number is a CPU number and the output says so: never compare it with the estimates.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadFlatIP, writeFlatIPFile } from "../../steps/dense/faiss-index.ts";
import { rescoreDepth, rescoreShard } from "../../steps/dense/steps.ts";
import { mulberry32 } from "../../steps/lib/prng.ts";
import { ESTIMATES, QRECC } from "./estimates.ts";
import { pythonPathEnv } from "../../steps/pytrain/launch.ts";

const HERE = dirname(fileURLToPath(import.meta.url));

interface TrainCase { name: string; queries: number; passages: number; query_len: number; passage_len: number; chunk: number | null }
interface Config {
  bert: Record<string, number>;
  train: TrainCase[];
  steps: number;
  encode: { rows: number; len: number; batch: number };
  search: { rows: number; queries: number; dim: number; depth: number };
  seed: number;
  threads: number;
}
interface TrainResult { name: string; seconds_per_step?: number; steps_per_s?: number; peak_bytes: number; oom?: boolean; chunk: number | null }
interface PyResult {
  device: string;
  torch: string;
  amp: string;
  train: TrainResult[];
  encode: { rows: number; len: number; seconds: number; passages_per_s: number; dtype: string; peak_bytes: number };
  search: { rows: number; queries: number; dim: number; seconds: number; gscores_per_s: number };
}

const BERT_BASE = { vocab_size: 30522, hidden_size: 768, num_hidden_layers: 12, num_attention_heads: 12, intermediate_size: 3072, max_position_embeddings: 512, hidden_dropout_prob: 0.1, attention_probs_dropout_prob: 0.1 };
const TINY = { vocab_size: 2000, hidden_size: 64, num_hidden_layers: 2, num_attention_heads: 2, intermediate_size: 256, max_position_embeddings: 128, hidden_dropout_prob: 0.1, attention_probs_dropout_prob: 0.1 };

/** The paper's QReCC batches (full) or a tiny stand-in (quick). */
export function benchConfig(quick: boolean): Config {
  const cases = (q: number, p: number, lq: number, lp: number, chunk: number): TrainCase[] => [
    { name: "iteration 1 (IBN)", queries: q, passages: q, query_len: lq, passage_len: lp, chunk: null },
    { name: "iteration 1 (IBN)", queries: q, passages: q, query_len: lq, passage_len: lp, chunk },
    { name: "iteration 2 (+1 hard negative)", queries: q / 2, passages: p, query_len: lq, passage_len: lp, chunk: null },
    { name: "iteration 2 (+1 hard negative)", queries: q / 2, passages: p, query_len: lq, passage_len: lp, chunk },
  ];
  return quick
    ? { bert: TINY, train: cases(16, 16, 16, 32, 4), steps: 2, encode: { rows: 64, len: 64, batch: 16 }, search: { rows: 20_000, queries: 64, dim: 64, depth: 116 }, seed: 1, threads: 1 }
    : { bert: BERT_BASE, train: cases(256, 256, 128, 384, 32), steps: 5, encode: { rows: 8192, len: 384, batch: 512 }, search: { rows: 2_000_000, queries: 4096, dim: 768, depth: 116 }, seed: 1, threads: 1 };
}

/** The pipeline's shard search (backend interface + exact rescoring) on a random shard. */
function pipelineSearch(rows: number, queries: number, dim: number): { backend: string; seconds: number; gflops: number } {
  const dir = mkdtempSync(join(tmpdir(), "cspipe-bench-gpu-"));
  try {
    const r = mulberry32(7);
    const shard = Float32Array.from({ length: rows * dim }, () => r() * 2 - 1);
    const q = Float32Array.from({ length: queries * dim }, () => r() * 2 - 1);
    const file = join(dir, "index.faiss");
    writeFlatIPFile(file, shard, dim);
    const index = loadFlatIP(file);
    const t0 = performance.now();
    rescoreShard(index.search(q, rescoreDepth(100)), q, dim, file);
    const seconds = (performance.now() - t0) / 1000;
    return { backend: index.backend, seconds, gflops: (2 * rows * queries * dim) / seconds / 1e9 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const gb = (b: number): string => `${(b / 2 ** 30).toFixed(2)} GiB`;
const hours = (s: number): string => `${(s / 3600).toFixed(1)} h`;

function main(argv: readonly string[]): number {
  const quick = argv.includes("--quick");
  const pi = argv.indexOf("--python");
  const python = pi >= 0 ? argv[pi + 1]! : (process.env.CSPIPE_PYTHON ?? "/usr/bin/python3");
  const cfg = benchConfig(quick);
  const dir = mkdtempSync(join(tmpdir(), "cspipe-bench-gpu-"));
  const cfgFile = join(dir, "config.json");
  writeFileSync(cfgFile, JSON.stringify(cfg));
  const r = spawnSync(python, [join(HERE, "gpu_bench.py"), cfgFile], { encoding: "utf8", env: { ...process.env, ...pythonPathEnv(join(HERE, "..", "..")), OMP_NUM_THREADS: String(cfg.threads) } });
  rmSync(dir, { recursive: true, force: true });
  if (r.status !== 0) {
    process.stderr.write(`gpu_bench.py failed (exit ${r.status}):\n${r.stderr}`);
    return 1;
  }
  const res = JSON.parse(r.stdout.trim().split("\n").at(-1)!) as PyResult;
  const onGpu = res.device !== "cpu";
  const out: string[] = [];
  out.push(`device: ${res.device} (torch ${res.torch}, training autocast ${res.amp}); model: ${quick ? "TINY (--quick: 2 layers, hidden 64)" : "BERT-base, random weights"}`);
  if (!onGpu) out.push("NOTE: no CUDA device: these are CPU numbers (float32), not comparable with the GPU estimates beside them.");
  const peak = onGpu ? "peak" : "process peak RSS";
  out.push("", "training step (estimate: docs/scale.md, A100 at 125 TFLOP/s sustained)");
  for (const t of res.train) {
    const how = t.chunk === null ? "one graph" : `gradient cache, chunks of ${t.chunk}`;
    const est = ESTIMATES.trainStepSeconds[t.name]?.[t.chunk === null ? "plain" : "cached"];
    const measured = t.oom ? `out of memory (${peak} ${gb(t.peak_bytes)})` : `${t.seconds_per_step!.toFixed(3)} s/step (${t.steps_per_s!.toFixed(2)} steps/s), ${peak} ${gb(t.peak_bytes)}`;
    out.push(`  ${t.name}, ${how}: ${measured}${est !== undefined && !quick ? `; estimate ${est.toFixed(2)} s/step` : ""}`);
  }
  const e = res.encode;
  out.push("", `encoding (${e.dtype}, ${e.len} tokens, batch ${cfg.encode.batch}): ${e.passages_per_s.toFixed(1)} passages/s, ${peak} ${gb(e.peak_bytes)}`);
  out.push(`  estimate ${ESTIMATES.encodePassagesPerS} passages/s at 384 tokens (DPR measured ${ESTIMATES.dprPassagesPerS}/s per GPU); QReCC's ${QRECC.passages / 1e6}M passages at the measured rate: ${hours(QRECC.passages / e.passages_per_s)} on 1 device${quick ? " (tiny model: meaningless)" : ""}`);
  const s = res.search;
  const sRows = quick ? 5_000 : 200_000;
  const sQueries = quick ? 32 : 1000;
  const ps = pipelineSearch(sRows, sQueries, quick ? 64 : 768);
  const gpuGflops = (2 * s.rows * s.queries * s.dim) / s.seconds / 1e9;
  /** A QReCC shard (3.4M x 768) against the test queries, in FLOPs. */
  const shardFlop = 2 * QRECC.shardRows * QRECC.testQueries * 768;
  const note = quick ? " (tiny shard: meaningless)" : "";
  out.push("", `per-shard search (extrapolated by FLOPs to a QReCC shard of ${(QRECC.shardRows / 1e6).toFixed(2)}M x 768 and ${QRECC.testQueries} test queries)`);
  out.push(`  pipeline kernel (${ps.backend} on CPU + exact rescoring, ${sRows} x ${sQueries} queries): ${ps.gflops.toPrecision(3)} GFLOP/s -> ${(shardFlop / ps.gflops / 1e9 / 60).toFixed(1)} min per shard${note}; estimate ${ESTIMATES.shardSearchMinutesCpu16} min on 16 cores`);
  out.push(`  torch matmul + top-k on ${res.device} (float32, ${s.rows} x ${s.queries} queries): ${gpuGflops.toPrecision(3)} GFLOP/s -> ${(shardFlop / gpuGflops / 1e9).toFixed(1)} s per shard${note}; estimate ${ESTIMATES.shardSearchSecondsGpu} s on a GPU`);
  process.stdout.write(out.join("\n") + "\n");
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = main(process.argv.slice(2));

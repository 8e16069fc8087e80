/**
 * What the first-token last layer saves (steps/pytrain/bert_model.py `forward`): one training step
 * of the mini bi-encoder (setup.ts MINI_BERT, the mini vocabulary's 5,593 tokens; 32 queries x 64
 * tokens, 32 passages x 96, IBN's batch at the mini lengths, no padding) with the last layer over
 * every token and over [CLS] only, alternating in one process under the pinned kernels, one
 * thread and the program steps' allocator settings, beside each one's matmul floor (its matmul
 * FLOPs at a 1-thread GEMM's rate here).
 *
 *   npx tsx bench/training/first-token.ts [rounds=30] [--quick]   (--quick: 5 rounds)
 */
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { MINI_BERT } from "../../pipeline/definitions/dense/setup.ts";
import { numericsEnv } from "../../pipeline/executors/numerics/pins.ts";
import { ALLOCATOR_ENV } from "../../pipeline/executors/program-env.ts";
import { pythonPathEnv } from "../../steps/pytrain/launch.ts";

const HERE = dirname(fileURLToPath(import.meta.url));
const PYTHON = process.env.CSPIPE_PYTHON ?? "/usr/bin/python3";
const positional = process.argv.slice(2).find((a) => !a.startsWith("-"));
const rounds = Number(positional ?? (process.argv.includes("--quick") ? 5 : 30));
const cfg = { rounds, queries: 32, query_tokens: 64, passages: 32, passage_tokens: 96, bert: { ...MINI_BERT, vocab_size: 5593, max_position_embeddings: 512, type_vocab_size: 2 } };

interface Way { median_s: number; min_s: number; matmul_gflop: number; floor_s: number }
const env = { ...process.env, ...pythonPathEnv(join(HERE, "..", "..")), ...numericsEnv("pinned", 1), ...ALLOCATOR_ENV };
const r = spawnSync(PYTHON, [join(HERE, "first_token.py"), JSON.stringify(cfg)], { encoding: "utf8", env });
const line = r.stdout.split("\n").find((l) => l.startsWith("RESULT "));
if (r.status !== 0 || line === undefined) throw new Error(`first_token.py failed (exit ${r.status}): ${r.stderr}`);
const out = JSON.parse(line.slice(7)) as { gemm_gflops: number; whole: Way; "first-token": Way };
const ms = (s: number) => (s * 1000).toFixed(1);
console.log(`mini bi-encoder training step (${cfg.queries} x ${cfg.query_tokens} query, ${cfg.passages} x ${cfg.passage_tokens} passage tokens), ${rounds} rounds, pinned kernels, 1 thread; 1-thread GEMM ${out.gemm_gflops.toFixed(1)} GFLOP/s`);
console.log("| last layer | median step (ms) | fastest (ms) | matmul GFLOP | matmul floor (ms) | floor / median |");
console.log("|---|---:|---:|---:|---:|---:|");
for (const [name, w] of [["every token", out.whole], ["[CLS] only", out["first-token"]]] as const) {
  console.log(`| ${name} | ${ms(w.median_s)} | ${ms(w.min_s)} | ${w.matmul_gflop.toFixed(3)} | ${ms(w.floor_s)} | ${(w.floor_s / w.median_s).toFixed(2)} |`);
}
console.log(`ratio every-token / [CLS]-only (median step): ${(out.whole.median_s / out["first-token"].median_s).toFixed(2)}`);

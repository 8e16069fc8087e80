/**
 * What the kernel pins cost (issue 29): DPR training steps/s on CPU under the pinned kernels
 * (pipeline/executors/numerics/pins.ts) beside the machine's own choice (no pins: OpenBLAS's
 * detected core type, ATen's detected ISA) and the slowest safe set (Prescott, ATen without
 * AVX), with the machine's float32 GEMM ceiling measured in the same run (a 1024^3 matmul,
 * 1 thread, the machine's own kernels). The tiny BERT of bench/training at batch 32 with one
 * hard negative, 1 thread (as every mini training runs). Prints each rate and the ratios.
 *
 * Then the emulation behind the pins: the same 2-epoch training under the kernel sets other CPUs
 * (or their administrators) choose, forced through the caller's environment (OpenBLAS core types
 * Prescott, Sandybridge, Haswell, Zen, and SkylakeX where the CPU has AVX-512; ATen with and
 * without AVX2), once with the pins and once without; prints how many distinct weight files each
 * gives (pinned: 1).
 *
 *   npm run bench -- numerics [--quick]     (--quick: 2 epochs instead of 3)
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { TRAINER_MODULE, epochRowsOf, trainerArgv } from "../../steps/training/contract.ts";
import type { TrainerSettings } from "../../steps/training/config-schema.ts";
import { pythonCommand } from "../../steps/pytrain/launch.ts";
import { numericsEnv } from "../../pipeline/executors/numerics/pins.ts";
import { cpuFacts } from "../../pipeline/engine/cpu.ts";
import { writeBenchInputs, benchTrainerConfig, BENCH_BATCH, BENCH_SHAPE } from "./inputs.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const PYTHON = process.env.CSPIPE_PYTHON ?? "/usr/bin/python3";
const epochs = process.argv.includes("--quick") ? 2 : 3;
const dir = mkdtempSync(join(tmpdir(), "cspipe-bench-numerics-"));
const inputs = writeBenchInputs(join(dir, "in"));

type Env = Record<string, string | undefined>;

function childEnv(over: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, ...over })) if (v !== undefined) out[k] = v;
  return out;
}

/** Trains the tiny bi-encoder on the bench inputs under `env` (1 thread): its output folder and its stdout (the EPOCH lines, with their seconds). */
function train(name: string, env: Env, settings: Partial<TrainerSettings>): { out: string; stdout: string } {
  const cfgPath = join(dir, `cfg-${name}.json`);
  const out = join(dir, `out-${name}`);
  writeFileSync(cfgPath, JSON.stringify(benchTrainerConfig(settings)));
  const r = spawnSync(PYTHON, pythonCommand(ROOT, TRAINER_MODULE, trainerArgv(cfgPath, inputs, out, 1)), { encoding: "utf8", env: childEnv(env) });
  if (r.status !== 0) throw new Error(`trainer failed under ${name}: ${r.stderr}`);
  return { out, stdout: r.stdout };
}

/** Best steps/s over the epochs after the first (allocator and first-touch warm-up). */
function stepsPerSecond(name: string, env: Env): number {
  const { stdout } = train(name, env, { epochs, eval_before_training: false, save_checkpoint: false });
  const steps = Math.ceil(BENCH_SHAPE.queries / BENCH_BATCH);
  return Math.max(...epochRowsOf(stdout).slice(1).map((m) => steps / Number(m["train_seconds"])));
}

/** GFLOP/s of a float32 1024^3 matmul on 1 thread, best of 5, under `env`. */
function gemmCeiling(env: Env): { gflops: number; blas: string } {
  const code = [
    "import time, torch, ctypes",
    "torch.set_num_threads(1)",
    "a = torch.randn(1024, 1024); b = torch.randn(1024, 1024); a @ b",
    "best = min((lambda t0: (a @ b, time.perf_counter() - t0)[1])(time.perf_counter()) for _ in range(5))",
    "lib = ctypes.CDLL('libopenblas.so.0'); f = lib.openblas_get_corename; f.restype = ctypes.c_char_p",
    "print(2 * 1024 ** 3 / best / 1e9, f().decode())",
  ].join("\n");
  const r = spawnSync(PYTHON, ["-c", code], { encoding: "utf8", env: childEnv({ ...env, OMP_NUM_THREADS: "1", OPENBLAS_NUM_THREADS: "1" }) });
  if (r.status !== 0) throw new Error(`matmul failed: ${r.stderr}`);
  const [gflops, blas] = r.stdout.trim().split(" ");
  return { gflops: Number(gflops), blas: blas ?? "?" };
}

const unpinned: Env = { OPENBLAS_CORETYPE: undefined, ATEN_CPU_CAPABILITY: undefined, OMP_NUM_THREADS: "1", OPENBLAS_NUM_THREADS: "1" };
const ceiling = gemmCeiling(unpinned);
const host = stepsPerSecond("host", unpinned);
const pinned = stepsPerSecond("pinned", numericsEnv("pinned", 1));
const slow = stepsPerSecond("prescott", { ...unpinned, OPENBLAS_CORETYPE: "Prescott", ATEN_CPU_CAPABILITY: "default" });
console.log(`tiny BERT bi-encoder, batch 32 (+32 hard negatives), Lq ${BENCH_SHAPE.queryTokens}, Lp ${BENCH_SHAPE.passageTokens}, 1 thread, best epoch of ${epochs - 1} measured`);
console.log(`ceiling: float32 GEMM 1024^3 on 1 thread, the machine's own kernels (OpenBLAS core ${ceiling.blas}): ${ceiling.gflops.toFixed(1)} GFLOP/s`);
console.log(`host kernels (no pins):            ${host.toFixed(2)} steps/s`);
console.log(`pinned (Haswell, ATen AVX2):       ${pinned.toFixed(2)} steps/s`);
console.log(`Prescott, ATen without AVX:        ${slow.toFixed(2)} steps/s`);
console.log(`ratio pinned/host: ${(pinned / host).toFixed(3)}   ratio prescott/host: ${(slow / host).toFixed(3)}`);

/** sha256 of the query encoder's weights after a 2-epoch training under `env`. */
function weightsDigest(name: string, env: Env): string {
  const { out } = train(`emu-${name}`, env, { epochs: 2 });
  return createHash("sha256").update(readFileSync(join(out, "query_encoder.safetensors"))).digest("hex");
}

const KERNEL_SETS: Record<string, Env> = {
  "Prescott/default": { OPENBLAS_CORETYPE: "Prescott", ATEN_CPU_CAPABILITY: "default" },
  "Sandybridge/default": { OPENBLAS_CORETYPE: "Sandybridge", ATEN_CPU_CAPABILITY: "default" },
  "Haswell/avx2": { OPENBLAS_CORETYPE: "Haswell", ATEN_CPU_CAPABILITY: "avx2" },
  "Zen/avx2": { OPENBLAS_CORETYPE: "Zen", ATEN_CPU_CAPABILITY: "avx2" },
  // Only where the CPU runs it: a kernel set the CPU lacks crashes (issue 29: never force one in CI).
  ...(cpuFacts().flags.includes("avx512f") ? { "SkylakeX/avx512": { OPENBLAS_CORETYPE: "SkylakeX", ATEN_CPU_CAPABILITY: "avx512" } } : {}),
};
const digests = { pinned: new Map<string, string>(), unpinned: new Map<string, string>() };
for (const [name, set] of Object.entries(KERNEL_SETS)) {
  digests.unpinned.set(name, weightsDigest(`${name.replace("/", "-")}-unpinned`, { ...unpinned, ...set }));
  digests.pinned.set(name, weightsDigest(`${name.replace("/", "-")}-pinned`, { ...set, ...numericsEnv("pinned", 1) }));
}
console.log(`emulation: a 2-epoch training under ${Object.keys(KERNEL_SETS).join(", ")} (the caller's OPENBLAS_CORETYPE/ATEN_CPU_CAPABILITY)`);
for (const mode of ["unpinned", "pinned"] as const) {
  const m = digests[mode];
  console.log(`  ${mode.padEnd(8)}: ${new Set(m.values()).size} distinct weight files (${[...m].map(([k, v]) => `${k} ${v.slice(0, 8)}`).join(", ")})`);
}

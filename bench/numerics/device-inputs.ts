/**
 * The inputs of `bench/numerics/device-kernels.sh`, a Python-only run of the emulation on a machine
 * without Node (a lent GPU machine, a cluster node): the trainer configs, the bench inputs and one
 * env file per kernel set, unpinned and pinned (the pins from pins.ts, so they cannot drift).
 * Beside OpenBLAS core types it forces MKL dispatch and oneDNN ISA caps, which a pip wheel of torch
 * (MKL linked into torch) obeys instead of OPENBLAS_CORETYPE.
 *
 *   npx tsx bench/numerics/device-inputs.ts <dir>     (then: bash bench/numerics/device-kernels.sh <dir>)
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { numericsEnv } from "../../pipeline/executors/numerics/pins.ts";
import { benchTrainerConfig, writeBenchInputs, BENCH_BATCH, BENCH_SHAPE } from "./inputs.ts";

const dir = process.argv[2];
if (!dir) throw new Error("usage: npx tsx bench/numerics/device-inputs.ts <dir>");
mkdirSync(join(dir, "envs"), { recursive: true });
writeBenchInputs(join(dir, "in"));
writeFileSync(join(dir, "cfg-speed.json"), JSON.stringify(benchTrainerConfig({ epochs: 8, eval_before_training: false, save_checkpoint: false })));
writeFileSync(join(dir, "cfg-emu.json"), JSON.stringify(benchTrainerConfig({ epochs: 2 })));
// The speed lines' training steps per epoch, read by device-kernels.sh.
writeFileSync(join(dir, "steps-per-epoch.txt"), `${Math.ceil(BENCH_SHAPE.queries / BENCH_BATCH)}\n`);
type Env = Record<string, string | undefined>;
const unpinned: Env = { OPENBLAS_CORETYPE: undefined, ATEN_CPU_CAPABILITY: undefined, OMP_NUM_THREADS: "1", OPENBLAS_NUM_THREADS: "1", MKL_NUM_THREADS: "1", CSPIPE_THREADS: "1" };
const sets: Record<string, Env> = {
  host: {},
  "Prescott-default": { OPENBLAS_CORETYPE: "Prescott", ATEN_CPU_CAPABILITY: "default" },
  "Haswell-avx2": { OPENBLAS_CORETYPE: "Haswell", ATEN_CPU_CAPABILITY: "avx2" },
  "SkylakeX-avx512": { OPENBLAS_CORETYPE: "SkylakeX", ATEN_CPU_CAPABILITY: "avx512" },
  "mklSSE42-default": { MKL_ENABLE_INSTRUCTIONS: "SSE4_2", ATEN_CPU_CAPABILITY: "default" },
  "mklAVX512-avx512": { MKL_ENABLE_INSTRUCTIONS: "AVX512", ATEN_CPU_CAPABILITY: "avx512" },
  "mklCBWRcompat-default": { MKL_CBWR: "COMPATIBLE", ATEN_CPU_CAPABILITY: "default" },
  "onednnAVX512-avx512": { ONEDNN_MAX_CPU_ISA: "AVX512_CORE", ATEN_CPU_CAPABILITY: "avx512" },
};
const envText = (e: Env) => Object.entries(e).map(([k, v]) => (v === undefined ? `unset ${k}` : `export ${k}=${v}`)).join("\n") + "\n";
for (const [name, set] of Object.entries(sets)) {
  writeFileSync(join(dir, "envs", `unpinned-${name}.env`), envText({ ...unpinned, ...set }));
  writeFileSync(join(dir, "envs", `pinned-${name}.env`), envText({ ...unpinned, ...set, ...numericsEnv("pinned", 1) }));
}
console.log(Object.keys(sets).join(" "));

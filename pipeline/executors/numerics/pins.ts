/**
 * The CPU kernel pins: the environment every program an executor starts runs under, so that a
 * step's arithmetic does not depend on the CPU that computes it (issue 29).
 *
 * Each numeric library picks its kernels for the CPU at run time: OpenBLAS by core type
 * (DYNAMIC_ARCH builds), ATen by vector ISA, oneDNN and MKL by their own detection. Two CPUs
 * then sum in different orders and a training from scratch amplifies the last bit into another
 * model. Forcing one kernel set that every x86-64 CPU with AVX2 and FMA runs (Haswell's: the
 * core type machines preset when their detected kernels are broken) makes the bytes the same
 * on all of them; measured by emulation (`npm run bench -- numerics`: a training under
 * OPENBLAS_CORETYPE=Prescott/Sandybridge/Haswell/Zen and ATEN_CPU_CAPABILITY=default/avx2 in the
 * caller's environment gives one set of bytes once pinned, three without the pins, Zen's kernels
 * being Haswell's; test/executors/numerics-pins.test.ts forces Prescott and Haswell in CI).
 *
 * Thread counts are pinned too: a reduction split over more threads sums in another order.
 * A program gets exactly the threads its step declares (`resources.cpus`, default 1), and the
 * count is part of the step's numerics identity (identity.ts).
 *
 * `host` mode (CSPIPE_NUMERICS=host) lifts the kernel pins: the programs
 * then compute with whatever the machine and the caller's environment choose, and the identity
 * records the CPU and those choices, so such results never share a key with pinned ones.
 */
import type { ContainerRuntime } from "../../engine/step.ts";

export type NumericsMode = "pinned" | "host";

export const NUMERICS_MODES: readonly NumericsMode[] = ["pinned", "host"];

/** One pinned variable: its value and why it is there. */
export interface Pin {
  readonly value: string;
  readonly doc: string;
}

export const KERNEL_PINS = {
  OPENBLAS_CORETYPE: {
    value: "Haswell",
    doc: "OpenBLAS (DYNAMIC_ARCH) kernels: Haswell's AVX2+FMA GEMM with fixed blocking (no cache-size dependence), safe on every x86-64 CPU with AVX2",
  },
  ATEN_CPU_CAPABILITY: { value: "avx2", doc: "ATen's vectorised kernels (reductions, softmax, GELU, random normals): the AVX2 build of each" },
  ONEDNN_MAX_CPU_ISA: { value: "AVX2", doc: "oneDNN's JIT kernels capped at AVX2 (oneDNN >= 2.0)" },
  DNNL_MAX_CPU_ISA: { value: "AVX2", doc: "the same cap under oneDNN 1.x's name" },
  MKL_CBWR: { value: "AVX2", doc: "MKL's conditional numerical reproducibility branch (torch builds that use MKL instead of OpenBLAS)" },
  MKL_ENABLE_INSTRUCTIONS: { value: "AVX2", doc: "MKL's dispatch capped at AVX2" },
} as const satisfies Record<string, Pin>;

export type PinnedVariable = keyof typeof KERNEL_PINS;

/** Every variable a program's thread count is read from; all are set to the step's count. */
export const THREAD_VARIABLES = ["OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "CSPIPE_THREADS"] as const;

/**
 * Variables of the caller's environment that change kernels or threads behind a program's back
 * and are not pinned: dropped from a program's environment in pinned mode, recorded in the
 * identity in host mode (CSPIPE_TORCH_THREADS: older programs read their torch thread count
 * from it).
 */
export const KERNEL_INFLUENCES = ["OPENBLAS_L2_SIZE", "OPENBLAS_VERBOSE", "NPY_DISABLE_CPU_FEATURES", "GOTO_NUM_THREADS", "OMP_DYNAMIC", "MKL_DYNAMIC", "CSPIPE_TORCH_THREADS"] as const;

/** The threads a program step computes with: its declared cpus, else 1 (never the host's core count). */
export function stepThreads(rt: Pick<ContainerRuntime, "resources">): number {
  return rt.resources?.cpus ?? 1;
}

/**
 * The numerics part of a program's environment, applied over the inherited one: thread
 * variables always; in pinned mode the kernel pins, and the influences removed (`undefined`).
 */
export function numericsEnv(mode: NumericsMode, threads: number): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  for (const v of THREAD_VARIABLES) env[v] = String(threads);
  if (mode === "pinned") {
    for (const [k, pin] of Object.entries(KERNEL_PINS)) env[k] = pin.value;
    for (const k of KERNEL_INFLUENCES) env[k] = undefined;
  }
  return env;
}

/** The caller's values of everything the pins set or remove (host mode's identity records them). */
export function kernelChoices(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of [...Object.keys(KERNEL_PINS), ...KERNEL_INFLUENCES].sort()) {
    const v = env[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/** The mode of a run: CSPIPE_NUMERICS (`pinned`, the default, or `host`); anything else is an error naming the fix. */
export function numericsMode(env: Readonly<Record<string, string | undefined>>): NumericsMode {
  const v = env.CSPIPE_NUMERICS;
  if (v === undefined || v === "") return "pinned";
  if (v === "pinned" || v === "host") return v;
  throw new Error(`CSPIPE_NUMERICS must be 'pinned' or 'host', got '${v}'. Fix: unset it (pinned kernels, the default) or set it to 'host'`);
}

/**
 * The CPU a process computes on, as numeric libraries see it: architecture, model and the vector
 * extensions their kernel dispatch looks at. Read once per process from /proc/cpuinfo (Linux;
 * elsewhere only what `os` tells). Used by numerics identities (which kernels a library picks)
 * and by the probe cache (an answer is only valid on the CPU it was measured on).
 */
import { readFileSync } from "node:fs";
import { arch, cpus } from "node:os";

/** Extensions that change which kernels BLAS, ATen, oneDNN, onnxruntime's MLAS or numpy pick. */
export const KERNEL_FLAGS = ["sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512_bf16", "avx512_vnni", "avx_vnni", "amx_tile", "asimd", "sve"] as const;

export interface CpuFacts {
  /** Node's name of the architecture (x64, arm64, ...). */
  readonly arch: string;
  readonly model: string;
  /** The KERNEL_FLAGS this CPU has, in KERNEL_FLAGS order. */
  readonly flags: readonly string[];
}

/** Pure: facts from the text of /proc/cpuinfo (first processor's model and flags). */
export function parseCpuinfo(text: string, archName: string, fallbackModel: string): CpuFacts {
  let model = "";
  let present = new Set<string>();
  for (const line of text.split("\n")) {
    const i = line.indexOf(":");
    if (i < 0) continue;
    const key = line.slice(0, i).trim();
    const value = line.slice(i + 1).trim();
    if ((key === "model name" || key === "Model") && model === "") model = value;
    else if ((key === "flags" || key === "Features") && present.size === 0) present = new Set(value.split(/\s+/));
  }
  return { arch: archName, model: model || fallbackModel, flags: KERNEL_FLAGS.filter((f) => present.has(f)) };
}

let cached: CpuFacts | undefined;

export function cpuFacts(): CpuFacts {
  if (cached) return cached;
  let text = "";
  try {
    text = readFileSync("/proc/cpuinfo", "utf8");
  } catch {
    /* not Linux: the model from os.cpus() and no flags */
  }
  cached = parseCpuinfo(text, arch(), cpus()[0]?.model ?? "unknown");
  return cached;
}

/** An x86-64 CPU that runs the AVX2+FMA kernels the pins force (pipeline/executors/numerics/pins.ts). */
export function runsAvx2Kernels(cpu: CpuFacts): boolean {
  return cpu.arch === "x64" && cpu.flags.includes("avx2") && cpu.flags.includes("fma");
}

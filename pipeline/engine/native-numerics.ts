/**
 * The numerics of native libraries that in-process steps load into the Node process. A step's
 * key lists the npm packages its import closure loads (sources.ts); for each package here, what
 * its arithmetic depends on beyond its version enters the key's `numerics` component too, so
 * two machines that would compute other bytes never share a key.
 *
 * - onnxruntime-node: MLAS, its CPU kernel library, picks its float GEMM kernel by the CPU's
 *   vector extensions (AVX-512F, AVX2+FMA, AVX, SSE2 on x86-64; NEON on arm64) and offers no
 *   way to force one; the CUDA execution provider, where installed and a device is visible,
 *   computes on the GPU. Both choices are recorded. Its intra-op thread count is not: θ0's
 *   passage encoder gave byte-identical embeddings at 1, 2 and 4 threads (64 passages of up to
 *   96 tokens, 2026-11-28): MLAS splits a GEMM by rows and columns, never along the sum.
 * - faiss-node is not here on purpose: its candidates are rescored exactly in TypeScript
 *   (steps/dense/rescore.ts), so the search output does not depend on its BLAS kernels.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Json } from "./canonical.ts";
import { cpuFacts, type CpuFacts } from "./cpu.ts";

/** Pure: the float GEMM kernel family MLAS dispatches to on this CPU. */
export function mlasKernels(cpu: CpuFacts): string {
  if (cpu.arch === "arm64") return "neon";
  if (cpu.arch !== "x64") return `${cpu.arch}-generic`;
  if (cpu.flags.includes("avx512f")) return "avx512f";
  if (cpu.flags.includes("avx2") && cpu.flags.includes("fma")) return "fma3";
  return cpu.flags.includes("avx") ? "avx" : "sse2";
}

/** onnxruntime-node's CUDA execution provider library is installed (its postinstall fetches it). */
export function onnxCudaLibraryInstalled(): boolean {
  try {
    const pkg = dirname(createRequire(import.meta.url).resolve("onnxruntime-node/package.json"));
    const a = process.arch === "arm64" ? "arm64" : "x64";
    return existsSync(join(pkg, "bin", "napi-v6", process.platform, a, "libonnxruntime_providers_cuda.so"));
  } catch {
    return false;
  }
}

/** An NVIDIA device node or driver is visible to this process. */
export function nvidiaDeviceVisible(): boolean {
  return existsSync("/dev/nvidiactl") || existsSync("/proc/driver/nvidia/version");
}

const NATIVE: Readonly<Record<string, (cpu: CpuFacts) => Json>> = {
  "onnxruntime-node": (cpu) => ({ mlas: mlasKernels(cpu), cudaProvider: onnxCudaLibraryInstalled() && nvidiaDeviceVisible() }),
};

/**
 * The numerics identity of an in-process step from the packages its closure loads: one record per
 * native numeric package, or null when it loads none (its arithmetic is JavaScript's, which is
 * the same on every machine).
 */
export function nativeNumerics(packages: readonly string[], cpu: CpuFacts = cpuFacts()): Json {
  const out: Record<string, Json> = {};
  for (const p of [...packages].sort()) {
    const f = NATIVE[p];
    if (f) out[p] = f(cpu);
  }
  return Object.keys(out).length > 0 ? { device: "in-process", native: out } : null;
}

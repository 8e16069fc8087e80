/**
 * A program step's numerics identity (pure): everything its bytes depend on that is neither
 * its params, its inputs nor its sources, as one record that enters the key's `numerics`
 * component (engine/keys.ts). Two machines with the same identity compute the same bytes; a
 * machine that would compute other bytes gets another identity, hence another key.
 *
 * - CPU, pinned kernels (the default on x86-64 with AVX2+FMA): the kernels are forced
 *   (pins.ts), so the CPU model is not part of it; the interpreter, the versions of the
 *   modules the program imports, the BLAS (its own version string, naming the core type it
 *   runs), ATen's capability in use and the thread count are.
 * - CPU, host kernels (CSPIPE_NUMERICS=host, or a CPU the pins do not fit: no AVX2, not
 *   x86-64): additionally the CPU model, its vector extensions and the caller's kernel
 *   variables (OPENBLAS_CORETYPE=...), since the machine picks the kernels.
 * - CUDA: the GPU models, torch's CUDA and cuDNN versions besides the above. Deterministic
 *   algorithms are the trainers' default (their `deterministic` param is in the key already);
 *   measured on one H200: identical bytes across processes for BERT-base AdamW steps.
 */
import type { Json } from "../../engine/canonical.ts";
import type { CpuFacts } from "../../engine/cpu.ts";
import type { InterpreterFacts } from "./probe.ts";
import type { NumericsMode } from "./pins.ts";

export interface ProgramNumericsInput {
  readonly facts: InterpreterFacts;
  /** The modules the step's program imports (its `pythonModules`). */
  readonly modules: readonly string[];
  readonly mode: NumericsMode;
  /** The kernel pins apply: pinned mode on a CPU that runs them. */
  readonly pinned: boolean;
  readonly threads: number;
  /** The program will compute on CUDA devices. */
  readonly cuda: boolean;
  readonly cpu: CpuFacts;
  /** The caller's kernel variables (pins.ts kernelChoices), recorded when the kernels are the host's. */
  readonly choices: Readonly<Record<string, string>>;
}

export function programNumerics(i: ProgramNumericsInput): Json {
  const f = i.facts;
  const modules: Record<string, string> = {};
  for (const m of [...i.modules].sort()) modules[m] = f.modules[m] ?? "missing";
  const base: Record<string, Json> = {
    device: i.cuda ? "cuda" : "cpu",
    kernels: i.pinned ? "pinned-avx2" : "host",
    machine: f.machine ?? i.cpu.arch,
    python: f.version ?? "unknown",
    modules,
    threads: i.threads,
    blas: f.blas?.config ?? null,
    aten: f.torch?.capability ?? null,
  };
  if (!i.pinned) Object.assign(base, { cpu: { model: i.cpu.model, flags: [...i.cpu.flags] }, env: { ...i.choices } });
  if (i.cuda) {
    const t = f.torch;
    Object.assign(base, { gpus: [...new Set(t?.names ?? [])].sort(), cuda: t?.cuda ?? null, cudnn: t?.cudnn ?? null });
  }
  return base;
}

/**
 * The environment of a program step, under every executor that runs programs on a host's CPU
 * or GPU (local, Slurm; Dagger builds the same fixed part into its container): the caller's
 * environment, the step's allow-listed variables and secrets, then what cspipe fixes: unbuffered
 * output, the allocator's settings (ALLOCATOR_ENV), the device hint, the numerics (kernel pins and thread counts, pins.ts) and the
 * numerics identity the step's key promises (CSPIPE_NUMERICS_IDENTITY, canonical JSON; a program
 * may check the machine it runs on against it). Pure.
 */
import { canonicalJson, type Json } from "../engine/canonical.ts";
import type { ContainerRuntime, RunSettings } from "../engine/step.ts";
import { deviceHint } from "./gpu-env.ts";
import { numericsEnv, stepThreads } from "./numerics/pins.ts";

export const IDENTITY_ENV = "CSPIPE_NUMERICS_IDENTITY";

/**
 * glibc malloc kept from handing memory back to the kernel between a training's steps. By default
 * a freed block of 128 KiB or more is unmapped and the heap's free top trimmed at 128 KiB, so each
 * step's activations (a few MiB each) came back as fresh pages: a 3-epoch mini θ0 training took
 * 380,000-750,000 minor page faults and 3-6 s of kernel time in 20-28 s; with these, 72,000-81,000
 * faults, 0.8-0.9 s and 13-15 s, the same weights byte for byte (2026-11-30, this project's 2-core
 * AMD EPYC, pinned kernels, run side by side). Blocks up to 32 MiB (glibc's ceiling for the
 * threshold) come from the heap, which keeps up to 256 MiB free at its top and grows 64 MiB at a
 * time. Memory addresses are not arithmetic: the bytes a program computes do not depend on them,
 * so these are not in any key. Ignored by other C libraries.
 */
export const ALLOCATOR_ENV = {
  MALLOC_MMAP_THRESHOLD_: String(32 * 1024 * 1024),
  MALLOC_TRIM_THRESHOLD_: String(256 * 1024 * 1024),
  MALLOC_TOP_PAD_: String(64 * 1024 * 1024),
} as const;

export interface ProgramEnvInput {
  /** The caller's environment (inherited). */
  readonly inherited: Readonly<Record<string, string | undefined>>;
  readonly runtime: ContainerRuntime;
  readonly settings: RunSettings;
  /** The step's allow-listed variables (their values are in its key). */
  readonly env: Readonly<Record<string, string>>;
  readonly secrets: Readonly<Record<string, string>>;
  /** The kernel pins apply (pinned mode on a CPU that runs them). */
  readonly pinned: boolean;
  readonly identity: Json;
}

export function programEnv(i: ProgramEnvInput): Record<string, string> {
  const fixed: Record<string, string | undefined> = {
    PYTHONUNBUFFERED: "1",
    ...ALLOCATOR_ENV,
    CSPIPE_DEVICE_HINT: deviceHint(i.runtime, i.settings),
    ...numericsEnv(i.pinned ? "pinned" : "host", stepThreads(i.runtime)),
    [IDENTITY_ENV]: canonicalJson(i.identity),
  };
  const out: Record<string, string> = {};
  for (const layer of [i.inherited, i.env, i.secrets, fixed]) {
    for (const [k, v] of Object.entries(layer)) {
      if (v === undefined) delete out[k];
      else out[k] = v;
    }
  }
  return out;
}

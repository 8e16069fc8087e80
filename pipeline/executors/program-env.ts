/**
 * The environment of a program step, under every executor that runs programs on a host's CPU
 * or GPU (local, Slurm; Dagger builds the same fixed part into its container): the caller's
 * environment, the step's allow-listed variables and secrets, then what cspipe fixes: unbuffered
 * output, the device hint, the numerics (kernel pins and thread counts, pins.ts) and the
 * numerics identity the step's key promises (CSPIPE_NUMERICS_IDENTITY, canonical JSON; a program
 * may check the machine it runs on against it). Pure.
 */
import { canonicalJson, type Json } from "../engine/canonical.ts";
import type { ContainerRuntime, RunSettings } from "../engine/step.ts";
import { deviceHint } from "./gpu-env.ts";
import { numericsEnv, stepThreads } from "./numerics/pins.ts";

export const IDENTITY_ENV = "CSPIPE_NUMERICS_IDENTITY";

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

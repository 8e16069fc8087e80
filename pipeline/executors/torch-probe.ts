/**
 * The one GPU question of the local executor: does the interpreter a step will run with have a
 * torch that sees CUDA devices, and how many? The same question the program answers when it
 * starts (steps/training/dpr/device.py fails at once when a GPU-required step's torch sees no
 * CUDA), asked before anything runs, so a CPU-only torch (Debian's python3-torch) can never
 * train for weeks on CPU behind a GPU that `nvidia-smi` reports. The answer comes from the
 * interpreter's probe (numerics/probe.ts); this is its verdict in words.
 */
import type { InterpreterFacts } from "./numerics/probe.ts";

export interface TorchCuda {
  /** The interpreter asked. */
  readonly python: string;
  /** torch imported. */
  readonly torch: boolean;
  readonly torchVersion?: string;
  /** The CUDA version torch was built for; null for a CPU-only build. */
  readonly torchCuda?: string | null;
  /** CUDA devices torch sees (0 when none or no torch). */
  readonly devices: number;
  readonly names: readonly string[];
  /** One line for messages. */
  readonly detail: string;
}

/** Pure: the probe's facts as a CUDA verdict; `visible` is the CUDA_VISIBLE_DEVICES the probe ran with. */
export function torchCudaOf(facts: InterpreterFacts, visible: string | undefined): TorchCuda {
  const python = facts.python;
  const none = (detail: string): TorchCuda => ({ python, torch: false, devices: 0, names: [], detail });
  if (!facts.ok) return none(`${python} is ${facts.detail.startsWith("not runnable") ? facts.detail : `unusable: ${facts.detail}`}`);
  const t = facts.torch;
  if (t === undefined) return none(`${python} cannot import torch (${facts.errors.torch ?? "not asked for torch"})`);
  const base = { python, torch: true, torchVersion: t.version, torchCuda: t.cuda, devices: t.devices, names: t.names };
  const hidden = visible !== undefined ? ` (CUDA_VISIBLE_DEVICES=${JSON.stringify(visible)})` : "";
  if (t.devices > 0) return { ...base, detail: `torch ${t.version} at ${python} sees ${t.devices} CUDA device(s): ${t.names.join(", ")}` };
  const build = t.cuda === null ? "a CPU-only build: torch.version.cuda is None" : `built for CUDA ${t.cuda}`;
  return { ...base, detail: `torch ${t.version} at ${python} (${build}) sees no CUDA device${hidden}; install a CUDA build of torch, or point CSPIPE_PYTHON at an interpreter that has one` };
}

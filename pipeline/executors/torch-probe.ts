/**
 * The one GPU probe of the local executor: does the interpreter a step will run with have a
 * torch that sees CUDA devices, and how many? The same question the program answers when it
 * starts (steps/training/dpr/device.py fails at once when a GPU-required step's torch sees no
 * CUDA), asked before anything runs, so a CPU-only torch (Debian's python3-torch) can never
 * train for weeks on CPU behind a GPU that `nvidia-smi` reports. Probed once per interpreter
 * and CUDA_VISIBLE_DEVICES per process.
 */
import { spawnSync } from "node:child_process";

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

const CODE = [
  "import json, sys",
  "try:",
  "    import torch",
  "except Exception as e:",
  "    print(json.dumps({'torch': False, 'error': str(e)})); sys.exit(0)",
  "ok = torch.cuda.is_available()",
  "n = torch.cuda.device_count() if ok else 0",
  "print(json.dumps({'torch': True, 'version': torch.__version__, 'cuda': torch.version.cuda, 'devices': n,",
  "                  'names': [torch.cuda.get_device_name(i) for i in range(n)]}))",
].join("\n");

/** Pure: the probe's JSON line (or a failure to run it) as a verdict. */
export function parseTorchProbe(python: string, run: { status: number | null; stdout: string; stderr: string; error?: string }, visible: string | undefined): TorchCuda {
  const none = (detail: string): TorchCuda => ({ python, torch: false, devices: 0, names: [], detail });
  if (run.error !== undefined) return none(`${python} is not runnable (${run.error})`);
  let parsed: { torch?: boolean; error?: string; version?: string; cuda?: string | null; devices?: number; names?: string[] };
  try {
    parsed = JSON.parse(run.stdout.trim().split("\n").pop() ?? "") as typeof parsed;
  } catch {
    return none(`${python} exited ${run.status} without an answer: ${run.stderr.trim().split("\n").pop() ?? ""}`);
  }
  if (!parsed.torch) return none(`${python} cannot import torch (${parsed.error ?? "unknown error"})`);
  const devices = parsed.devices ?? 0;
  const base = { python, torch: true, torchVersion: parsed.version ?? "unknown", torchCuda: parsed.cuda ?? null, devices, names: parsed.names ?? [] };
  const hidden = visible !== undefined ? ` (CUDA_VISIBLE_DEVICES=${JSON.stringify(visible)})` : "";
  if (devices > 0) return { ...base, detail: `torch ${base.torchVersion} at ${python} sees ${devices} CUDA device(s): ${base.names.join(", ")}` };
  const build = base.torchCuda === null ? "a CPU-only build: torch.version.cuda is None" : `built for CUDA ${base.torchCuda}`;
  return { ...base, detail: `torch ${base.torchVersion} at ${python} (${build}) sees no CUDA device${hidden}; install a CUDA build of torch, or point CSPIPE_PYTHON at an interpreter that has one` };
}

const cache = new Map<string, TorchCuda>();

/** Runs the probe with `python` (cached per interpreter and CUDA_VISIBLE_DEVICES). */
export function probeTorchCuda(python: string, env: Readonly<Record<string, string | undefined>> = process.env): TorchCuda {
  const visible = env.CUDA_VISIBLE_DEVICES;
  const key = `${python}\0${visible ?? ""}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const childEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) childEnv[k] = v;
  const r = spawnSync(python, ["-c", CODE], { encoding: "utf8", timeout: 120_000, env: childEnv });
  const verdict = parseTorchProbe(python, { status: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "", ...(r.error ? { error: (r.error as NodeJS.ErrnoException).code ?? r.error.message } : {}) }, visible);
  cache.set(key, verdict);
  return verdict;
}

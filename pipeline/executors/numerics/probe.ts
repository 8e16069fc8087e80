/**
 * One probe per interpreter: what a Python interpreter computes with (its version, each module's
 * version, torch's CUDA devices, ATen's CPU capability, the BLAS it loads and the kernel core
 * type that BLAS chose), asked by running probe_interpreter.py under the environment programs
 * get. Starting Python and importing torch takes 1-2 s, so answers are remembered: in memory per
 * process, and on disk (`<cacheDir>/<digest>.json`) per interpreter, modules, kernel environment,
 * host and CPU, valid while the files the answer came from (interpreter, module files, BLAS
 * library) keep their size and mtime. A no-op rerun then starts no Python at all.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, realpathSync, renameSync, statSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { delimiter, isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import { canonicalHash, sha256Hex } from "../../engine/canonical.ts";
import { cpuFacts } from "../../engine/cpu.ts";

const SCRIPT = fileURLToPath(new URL("./probe_interpreter.py", import.meta.url));

export interface TorchFacts {
  readonly version: string;
  /** The CUDA version torch was built for; null for a CPU-only build. */
  readonly cuda: string | null;
  readonly cudnn?: number | null;
  readonly devices: number;
  readonly names: readonly string[];
  /** ATen's vector ISA in use (torch's build summary: "AVX2", "AVX512", "NO AVX", ...). */
  readonly capability?: string;
  readonly cuda_error?: string;
}

/** The probe's answer. `ok` false: the interpreter did not run or did not answer (`detail` says why). */
export interface InterpreterFacts {
  readonly python: string;
  readonly ok: boolean;
  readonly detail: string;
  readonly version?: string;
  readonly machine?: string;
  readonly executable?: string;
  /** Module -> version, for the modules that import. */
  readonly modules: Readonly<Record<string, string>>;
  /** Module -> why it does not import. */
  readonly errors: Readonly<Record<string, string>>;
  readonly torch?: TorchFacts;
  /** The loaded BLAS's own description, e.g. "OpenBLAS 0.3.21 ... DYNAMIC_ARCH ... Haswell MAX_THREADS=64". */
  readonly blas?: { readonly kind: string; readonly config: string } | null;
  /** Files the answer depends on. */
  readonly files: readonly string[];
}

interface Stamp {
  readonly size: number;
  readonly mtimeMs: number;
}

interface CacheRecord {
  readonly format: 1;
  readonly facts: InterpreterFacts;
  readonly stamps: Readonly<Record<string, Stamp>>;
}

/** Pure: the probe's output (or a failure to run it) as facts. */
export function parseProbe(python: string, run: { status: number | null; stdout: string; stderr: string; error?: string }): InterpreterFacts {
  const none = (detail: string): InterpreterFacts => ({ python, ok: false, detail, modules: {}, errors: {}, files: [] });
  if (run.error !== undefined) return none(`not runnable (${run.error})`);
  // The script's `python` is the interpreter's version; here `python` is the interpreter asked.
  let parsed: Omit<InterpreterFacts, "python" | "ok" | "detail" | "version"> & { python?: string };
  try {
    parsed = JSON.parse(run.stdout.trim().split("\n").pop() ?? "") as typeof parsed;
  } catch {
    return none(`exited ${run.status} without an answer: ${run.stderr.trim().split("\n").pop() ?? ""}`);
  }
  const { python: version, ...rest } = parsed;
  return { ...rest, python, ok: true, detail: "ok", ...(version !== undefined ? { version } : {}), modules: parsed.modules ?? {}, errors: parsed.errors ?? {}, files: parsed.files ?? [] };
}

/** `python3` -> the absolute path PATH resolves it to (as the program's spawn will), else the name. */
export function whichPython(python: string, env: Readonly<Record<string, string | undefined>>): string {
  if (isAbsolute(python) || python.includes("/")) return python;
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, python);
    try {
      if (statSync(p).isFile()) return p;
    } catch {
      /* next */
    }
  }
  return python;
}

function stampOf(path: string): Stamp | undefined {
  try {
    const s = statSync(path);
    return { size: s.size, mtimeMs: s.mtimeMs };
  } catch {
    return undefined;
  }
}

function fresh(rec: CacheRecord): boolean {
  return Object.entries(rec.stamps).every(([p, s]) => {
    const now = stampOf(p);
    return now !== undefined && now.size === s.size && now.mtimeMs === s.mtimeMs;
  });
}

const memory = new Map<string, InterpreterFacts>();

let script: string | undefined;
/** The probe program's own digest: a changed probe asks again. */
function scriptDigest(): string {
  script ??= sha256Hex(readFileSync(SCRIPT));
  return script;
}

/** Everything outside the interpreter's files that can change its answer. */
function cacheKey(python: string, modules: readonly string[], env: Readonly<Record<string, string | undefined>>): string {
  const kernelEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v !== undefined && /^(OPENBLAS_|ATEN_|ONEDNN_|DNNL_|MKL_|NPY_|OMP_|CUDA_|PYTHON|LD_LIBRARY_PATH$|VIRTUAL_ENV$|CONDA_PREFIX$)/.test(k)) kernelEnv[k] = v;
  }
  let driver = "";
  try {
    driver = readFileSync("/proc/driver/nvidia/version", "utf8");
  } catch {
    /* no NVIDIA driver */
  }
  return canonicalHash({ python, modules: [...modules].sort(), env: kernelEnv, host: hostname(), cpu: cpuFacts(), driver, script: scriptDigest() });
}

export interface ProbeOptions {
  /** Directory for remembered answers (none: memory only). */
  readonly cacheDir?: string;
}

/**
 * The facts of `python` (a name looked up on PATH, or a path) for `modules`, under `env` (the
 * environment its programs get, kernel pins included): remembered, else measured.
 */
export function probeInterpreter(python: string, modules: readonly string[], env: Readonly<Record<string, string | undefined>>, opts: ProbeOptions = {}): InterpreterFacts {
  const key = cacheKey(whichPython(python, env), modules, env);
  const hit = memory.get(key);
  if (hit) return hit;
  const file = opts.cacheDir !== undefined ? join(opts.cacheDir, `${key}.json`) : undefined;
  if (file !== undefined) {
    try {
      const rec = JSON.parse(readFileSync(file, "utf8")) as CacheRecord;
      if (rec.format === 1 && fresh(rec)) {
        memory.set(key, rec.facts);
        return rec.facts;
      }
    } catch {
      /* absent or unreadable: measure */
    }
  }
  const childEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) childEnv[k] = v;
  const r = spawnSync(python, [SCRIPT, ...modules], { encoding: "utf8", timeout: 120_000, env: childEnv });
  const facts = parseProbe(python, { status: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "", ...(r.error ? { error: (r.error as NodeJS.ErrnoException).code ?? r.error.message } : {}) });
  memory.set(key, facts);
  if (file !== undefined && facts.ok) remember(file, facts);
  return facts;
}

function remember(file: string, facts: InterpreterFacts): void {
  const stamps: Record<string, Stamp> = {};
  for (const f of facts.files) {
    const s = stampOf(f);
    if (s === undefined) return; // a file the answer names is gone already: do not remember it
    stamps[realpathSync(f)] = s;
  }
  try {
    mkdirSync(join(file, ".."), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ format: 1, facts, stamps } satisfies CacheRecord));
    renameSync(tmp, file);
  } catch {
    /* a read-only checkout: the answer is kept in memory only */
  }
}

/** Where a project remembers interpreter answers (git-ignored, beside `./cspipe`'s compiled builds). */
export function probeCacheDir(root: string): string {
  return join(root, ".cspipe", "probes");
}

/** For tests: forget what this process measured. */
export function forgetProbes(): void {
  memory.clear();
}

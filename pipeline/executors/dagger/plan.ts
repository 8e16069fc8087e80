/**
 * The pure core of the Dagger executor: a container job becomes a plan, a list of plain
 * operations (data, no SDK objects) that an interpreter applies to a Dagger container.
 * Keeping the plan as data lets tests check exactly what would be sent to an engine
 * without running one, and keeps secret *values* out of it (secrets are referenced by
 * name and resolved only when the plan is applied).
 *
 * Container layout:
 *   /cspipe/in/<input>              a directory input (read-only mount)
 *   /cspipe/in/<input>/<basename>   a file input (the file name is kept: extensions matter, e.g. np.load)
 *   /cspipe/out/<relative path>     outputs, relative to the common ancestor of the job's output paths
 *                                   (for the engine's staging layout that is the declared output path)
 *   /cspipe/src                     the project sources, only when the argv uses {src}
 *   /cspipe/params.json             the validated params
 *   /cspipe/work                    scratch directory and working directory
 *   /cspipe/bin/log_tee.py          the live-log wrapper (log-stream.ts), only when the log is streamed
 */
import { basename, dirname, relative, sep } from "node:path";
import type { ContainerJob } from "../../engine/executor.ts";
import { resolveArgv } from "../../engine/executor.ts";
import type { ContainerRuntime } from "../../engine/step.ts";
import { TOKEN_ENV } from "./log-stream.ts";
import { programEnv } from "../program-env.ts";

export const CONTAINER_ROOT = "/cspipe";
export const CONTAINER_IN = "/cspipe/in";
export const CONTAINER_OUT = "/cspipe/out";
export const CONTAINER_SRC = "/cspipe/src";
export const CONTAINER_PARAMS = "/cspipe/params.json";
export const CONTAINER_WORK = "/cspipe/work";
export const CONTAINER_TAR = "/cspipe/outputs.tar";
export const CONTAINER_LOG_TEE = "/cspipe/bin/log_tee.py";
/** Hostname under which the container reaches the host's log receiver. */
export const LOG_STREAM_ALIAS = "cspipe-log";

/** Cache volumes mounted into every container step (registry: add a row, not an if). */
export interface CacheMount {
  readonly volume: string;
  readonly path: string;
  /** Env vars pointing the tool at the mount (so it works whatever the image's defaults). */
  readonly env?: Readonly<Record<string, string>>;
  /** Mounted only for the pip layer (true) or for the program (false). */
  readonly pipLayer: boolean;
}

export const PIP_CACHE: CacheMount = { volume: "cspipe-pip", path: "/root/.cache/pip", env: { PIP_CACHE_DIR: "/root/.cache/pip" }, pipLayer: true };

export const MODEL_CACHES: readonly CacheMount[] = [
  { volume: "cspipe-huggingface", path: "/root/.cache/huggingface", env: { HF_HOME: "/root/.cache/huggingface" }, pipLayer: false },
  { volume: "cspipe-torch", path: "/root/.cache/torch", env: { TORCH_HOME: "/root/.cache/torch" }, pipLayer: false },
];

/** Env for the pip layer: quiet, non-interactive, works in images that mark their Python as externally managed. */
export const PIP_ENV: Readonly<Record<string, string>> = {
  PIP_BREAK_SYSTEM_PACKAGES: "1",
  PIP_DISABLE_PIP_VERSION_CHECK: "1",
  PIP_NO_INPUT: "1",
  PIP_PROGRESS_BAR: "off",
  PIP_ROOT_USER_ACTION: "ignore",
};

/** What the project sources mount leaves out (patterns relative to the source root). */
export const DEFAULT_SOURCE_EXCLUDES: readonly string[] = ["node_modules/", "artifacts/", "dist/", "report/", ".git/", "**/__pycache__/", "**/.pytest_cache/"];

export type PlanOp =
  | { readonly op: "from"; readonly image: string }
  | { readonly op: "mount-cache"; readonly path: string; readonly volume: string }
  | { readonly op: "mount-dir"; readonly path: string; readonly host: string; readonly readOnly: boolean; readonly exclude?: readonly string[] }
  | { readonly op: "mount-file"; readonly path: string; readonly host: string }
  | { readonly op: "env"; readonly name: string; readonly value: string }
  /** A secret env var: only the name is in the plan; the value comes from the job when applied. */
  | { readonly op: "secret"; readonly name: string }
  | { readonly op: "gpus"; readonly devices: "all" | readonly string[] }
  | { readonly op: "workdir"; readonly path: string }
  /** A host TCP port reachable from the container as `alias:port` (Dagger host service). */
  | { readonly op: "service-binding"; readonly alias: string; readonly port: number }
  | { readonly op: "exec"; readonly argv: readonly string[] };

export interface OutputMapping {
  readonly name: string;
  /** Path relative to /cspipe/out (POSIX separators). */
  readonly rel: string;
  /** Host path the engine expects (inside the staging directory). */
  readonly host: string;
  readonly dir: boolean;
}

export interface DaggerJobPlan {
  /** Everything up to and including the program's exec. */
  readonly ops: readonly PlanOp[];
  /** The program's argv as it runs in the container (placeholders mapped). */
  readonly argv: readonly string[];
  /** What the program's exec runs: `argv`, or `argv` under log_tee.py when the log is streamed. */
  readonly execArgv: readonly string[];
  /** Whether the program's output is streamed to the host while it runs. */
  readonly logStream: boolean;
  /** Run after a successful exec: one archive of /cspipe/out. */
  readonly archive: { readonly argv: readonly string[]; readonly path: string };
  readonly outputs: readonly OutputMapping[];
  /** Whether the plan asks for GPUs (false when the step runs on CPU under --allow-cpu). */
  readonly gpu: boolean;
}

export interface PlanOptions {
  /** The engine has GPUs (see gpu.ts); decides whether a GPU request is passed on. */
  readonly gpuAvailable: boolean;
  /** The CPU kernel pins apply (numerics/pins.ts; default true). */
  readonly pinned?: boolean;
  readonly sourceExcludes?: readonly string[];
  readonly modelCaches?: readonly CacheMount[];
  /** When set, enters the container env so Dagger's layer cache cannot reuse an earlier exec (CSPIPE_DAGGER_CACHE=0). */
  readonly cacheBuster?: string;
  /** Stream the program's output live (log-stream.ts); applied only when `streamsLog(argv)`. */
  readonly logStream?: LogStreamOptions;
}

export interface LogStreamOptions {
  /** Host path of log_tee.py. */
  readonly script: string;
  /** Host port of the log receiver. */
  readonly port: number;
  readonly token: string;
}

/** python, python3, python3.11, /usr/bin/python3, /opt/conda/bin/python… */
const PYTHON = /^(?:.*\/)?python(?:3(?:\.\d+)?)?$/;

/**
 * Can this program's output be streamed? Only when it is run by a Python interpreter: the
 * wrapper is a Python script, and an image is only known to have Python when the step
 * itself uses it. The wrapper runs under the same interpreter as the program.
 */
export function streamsLog(argv: readonly string[]): boolean {
  return argv.length > 0 && PYTHON.test(argv[0]!);
}

/** The exec argv that runs `argv` under log_tee.py, sending its output to `alias:port`. */
export function logTeeArgv(argv: readonly string[], port: number, alias = LOG_STREAM_ALIAS): string[] {
  return [argv[0]!, CONTAINER_LOG_TEE, "--host", alias, "--port", String(port), "--", ...argv];
}

const SAFE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
/** A pinned requirement: name[extras]==version (or ===). Entries starting with `--` are pip options. */
const PINNED = /^[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9._,-]+\])?===?[A-Za-z0-9.+!_*-]+$/;

/** Problems with a runtime that make it unrunnable under Dagger (checked at planning time). */
export function runtimeProblems(rt: ContainerRuntime): string[] {
  const problems: string[] = [];
  for (const req of rt.pip ?? []) {
    if (req.startsWith("--")) continue;
    if (!PINNED.test(req)) problems.push(`pip requirement '${req}' is not pinned: write it as name==version (e.g. numpy==1.26.4)`);
  }
  if (rt.gpu && typeof rt.gpu.count === "number" && (!Number.isInteger(rt.gpu.count) || rt.gpu.count < 1)) {
    problems.push(`gpu.count must be a positive integer or "all", got ${rt.gpu.count}`);
  }
  return problems;
}

/** The directory that contains every output path (outputs themselves map below it). */
export function outputsRoot(outputs: readonly string[]): string {
  if (outputs.length === 0) throw new Error("a container job without outputs has no outputs root");
  const within = (p: string, root: string) => p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);
  let root = dirname(outputs[0]!);
  for (const p of outputs.slice(1)) {
    while (!within(dirname(p), root) && dirname(root) !== root) root = dirname(root);
  }
  return root;
}

function toPosix(p: string): string {
  return sep === "/" ? p : p.split(sep).join("/");
}

export function mapOutputs(outputs: ContainerJob["outputs"]): OutputMapping[] {
  const names = Object.keys(outputs).sort();
  if (names.length === 0) return [];
  const root = outputsRoot(names.map((n) => outputs[n]!.path));
  return names.map((name) => {
    const o = outputs[name]!;
    const rel = toPosix(relative(root, o.path));
    if (rel === "" || rel.startsWith("..")) throw new Error(`output ${name}: path ${o.path} is not below ${root}`);
    return { name, rel, host: o.path, dir: o.dir };
  });
}

export function inputContainerPath(name: string, input: { path: string; dir: boolean }): string {
  return input.dir ? `${CONTAINER_IN}/${name}` : `${CONTAINER_IN}/${name}/${basename(input.path)}`;
}

function gpuDevices(count: number | "all"): "all" | string[] {
  return count === "all" ? "all" : Array.from({ length: count }, (_, i) => String(i));
}

/** Build the plan for one job. Pure: same job and options, same plan. */
export function planDaggerJob(job: ContainerJob, options: PlanOptions): DaggerJobPlan {
  const rt = job.runtime;
  checkJob(job);
  const outputs = mapOutputs(job.outputs);
  const argv = containerArgv(job, outputs);
  const gpu = rt.gpu !== undefined && options.gpuAvailable;
  const stream = options.logStream !== undefined && streamsLog(argv) ? options.logStream : undefined;
  const execArgv = stream ? logTeeArgv(argv, stream.port) : argv;
  const ops: PlanOp[] = [
    { op: "from", image: rt.image },
    // 1. The pip layer first: cached by (image, pins), independent of inputs and params.
    ...pipOps(rt),
    // 2. The directory skeleton (one cached layer per image + output layout).
    skeletonOp(outputs),
    // 3. Model caches.
    ...(options.modelCaches ?? MODEL_CACHES).flatMap((c) => [{ op: "mount-cache", path: c.path, volume: c.volume } as const, ...envOps(c.env ?? {})]),
    // 4. Environment (allow-listed values, then the fixed ones), then secrets by name.
    ...envOps(containerEnv(job, options, stream)),
    ...Object.keys(job.secrets).sort().map((k): PlanOp => ({ op: "secret", name: k })),
    // 5. GPUs, when the step asks for them and the engine has them: the devices the scheduler
    //    assigned (--gpus), else the first `count`.
    ...(gpu ? [{ op: "gpus", devices: job.devices !== undefined ? job.devices.map(String) : gpuDevices(rt.gpu!.count) } as const] : []),
    // 6. Mounts: inputs (read-only), params, sources (only when used).
    ...mountOps(job, options),
    // 7. The live log: the wrapper and the host's receiver. The token and the port change on
    //    every run, so Dagger never replays a streamed exec from its layer cache.
    ...(stream ? [{ op: "mount-file", path: CONTAINER_LOG_TEE, host: stream.script } as const, { op: "service-binding", alias: LOG_STREAM_ALIAS, port: stream.port } as const] : []),
    // 8. The program.
    { op: "workdir", path: CONTAINER_WORK },
    { op: "exec", argv: execArgv },
  ];
  return {
    ops,
    argv,
    execArgv,
    logStream: stream !== undefined,
    archive: { argv: ["tar", "-C", CONTAINER_OUT, "-cf", CONTAINER_TAR, "."], path: CONTAINER_TAR },
    outputs,
    gpu,
  };
}

/** The runtime is valid and every input and output name can be a container path component. */
function checkJob(job: ContainerJob): void {
  const problems = runtimeProblems(job.runtime);
  if (problems.length > 0) throw new Error(`step ${job.step}: ${problems.join("; ")}`);
  for (const name of [...Object.keys(job.inputs), ...Object.keys(job.outputs)]) {
    if (!SAFE_NAME.test(name)) throw new Error(`step ${job.step}: input/output name '${name}' cannot be a container path component`);
  }
}

/** The program's argv with its placeholders resolved to container paths. */
function containerArgv(job: ContainerJob, outputs: readonly OutputMapping[]): string[] {
  const outPath = new Map(outputs.map((o) => [o.name, `${CONTAINER_OUT}/${o.rel}`]));
  return resolveArgv(job.runtime.argv, {
    input: (n) => {
      const i = job.inputs[n];
      if (!i) throw new Error(`step ${job.step}: argv names input '${n}' which the job does not have`);
      return inputContainerPath(n, i);
    },
    output: (n) => {
      const o = outPath.get(n);
      if (!o) throw new Error(`step ${job.step}: argv names output '${n}' which the job does not have`);
      return o;
    },
    src: CONTAINER_SRC,
    params: CONTAINER_PARAMS,
    work: CONTAINER_WORK,
  });
}

/** `env` ops, by name. */
function envOps(env: Readonly<Record<string, string>>): PlanOp[] {
  return Object.keys(env)
    .sort()
    .map((k) => ({ op: "env", name: k, value: env[k]! }));
}

function pipOps(rt: ContainerJob["runtime"]): PlanOp[] {
  if (!rt.pip || rt.pip.length === 0) return [];
  return [{ op: "mount-cache", path: PIP_CACHE.path, volume: PIP_CACHE.volume }, ...envOps({ ...PIP_ENV, ...PIP_CACHE.env }), { op: "exec", argv: ["python3", "-m", "pip", "install", ...rt.pip] }];
}

function skeletonOp(outputs: readonly OutputMapping[]): PlanOp {
  const dirs = new Set<string>([CONTAINER_WORK, CONTAINER_OUT]);
  for (const o of outputs) dirs.add(o.dir ? `${CONTAINER_OUT}/${o.rel}` : dirname(`${CONTAINER_OUT}/${o.rel}`));
  return { op: "exec", argv: ["mkdir", "-p", ...[...dirs].sort()] };
}

/** The container starts from the image's environment, not the caller's: only what cspipe fixes (and the log stream's token). */
function containerEnv(job: ContainerJob, options: PlanOptions, stream: PlanOptions["logStream"]): Record<string, string> {
  const env = programEnv({ inherited: {}, runtime: job.runtime, settings: job.settings, env: job.env, secrets: {}, pinned: options.pinned ?? true, identity: job.numerics });
  if (options.cacheBuster !== undefined) env.CSPIPE_DAGGER_NONCE = options.cacheBuster;
  if (stream) env[TOKEN_ENV] = stream.token;
  return env;
}

/** Inputs (read-only), the params file, and the sources when the argv uses {src}. */
function mountOps(job: ContainerJob, options: PlanOptions): PlanOp[] {
  const ops: PlanOp[] = [];
  for (const name of Object.keys(job.inputs).sort()) {
    const i = job.inputs[name]!;
    if (i.dir) ops.push({ op: "mount-dir", path: inputContainerPath(name, i), host: i.path, readOnly: true });
    else ops.push({ op: "mount-file", path: inputContainerPath(name, i), host: i.path });
  }
  ops.push({ op: "mount-file", path: CONTAINER_PARAMS, host: job.paramsFile });
  const usesSrc = job.runtime.argv.some((a) => a.includes("{src}"));
  if (usesSrc) ops.push({ op: "mount-dir", path: CONTAINER_SRC, host: job.sourceRoot, readOnly: true, exclude: [...(options.sourceExcludes ?? DEFAULT_SOURCE_EXCLUDES)] });
  return ops;
}

/**
 * The executors' common contract. In-process steps always run in the Node process; an
 * executor only has to run *container* steps: a pinned image, an argv whose placeholders
 * it maps to its own paths, inputs to read and output paths to fill. The local executor
 * runs the argv on the host; the Dagger executor maps the same job to Dagger calls.
 */
import type { ContainerRuntime, AnyStep, RunSettings } from "./step.ts";
import type { AnalysisFailure } from "./failures.ts";
import type { Json } from "./canonical.ts";

export interface JobPath {
  /** Host path (inputs: inside a store entry; outputs: inside the staging directory). */
  readonly path: string;
  readonly dir: boolean;
}

export interface ContainerJob {
  readonly step: string;
  readonly stepId: string;
  readonly key: string;
  readonly runtime: ContainerRuntime;
  readonly inputs: Readonly<Record<string, JobPath>>;
  readonly outputs: Readonly<Record<string, JobPath>>;
  /** Host path of a JSON file with the validated params. */
  readonly paramsFile: string;
  /** Host scratch directory, deleted afterwards. */
  readonly workDir: string;
  /** Host path of the project root (for `{src}`). */
  readonly sourceRoot: string;
  /** Allow-listed environment (values are in the key). */
  readonly env: Readonly<Record<string, string>>;
  /** Secret environment (never in keys or logs). */
  readonly secrets: Readonly<Record<string, string>>;
  readonly settings: RunSettings;
  /** The numerics identity the step's key holds (fingerprint.ts); programs get it as CSPIPE_NUMERICS_IDENTITY. */
  readonly numerics: Json;
  /** GPU slots the scheduler assigned (indexes 0..N-1 of the run's --gpus); absent when the step runs without GPUs. */
  readonly devices?: readonly number[];
  readonly signal: AbortSignal;
  /** Each line the program prints (stdout and stderr). */
  onLine(line: string): void;
}

export type JobOutcome =
  | { readonly ok: true; readonly argv: readonly string[]; readonly tools?: Readonly<Record<string, string>> }
  | { readonly ok: false; readonly kind: "exit"; readonly argv: readonly string[]; readonly exitStatus: number | null; readonly signal: string | null }
  | { readonly ok: false; readonly kind: "interpreter-missing"; readonly message: string };

export interface Executor {
  readonly name: string;
  /**
   * The numerics identity of a container step run by this executor (enters its key): where and
   * with what its program computes (pipeline/executors/numerics/identity.ts).
   */
  numerics(runtime: ContainerRuntime, settings: RunSettings): Json;
  /** Checks at planning time (e.g. GPU requested but absent), before anything runs. */
  check(steps: readonly AnyStep[], settings: RunSettings): Promise<AnalysisFailure[]>;
  runContainer(job: ContainerJob): Promise<JobOutcome>;
  /** How many GPUs the steps' programs would see here (the default of --gpus); absent: unknown. */
  gpuDevices?(steps: readonly AnyStep[]): Promise<{ readonly count: number; readonly detail: string }>;
  /** Release connections etc. */
  close?(): Promise<void>;
}

export interface PathMapping {
  input(name: string): string;
  output(name: string): string;
  readonly src: string;
  readonly params: string;
  readonly work: string;
}

const PLACEHOLDER = /\{(in|out):([A-Za-z0-9_-]+)\}|\{(src|params|work)\}/g;

/** Substitute `{in:x}`, `{out:x}`, `{src}`, `{params}`, `{work}` in an argv template. */
export function resolveArgv(template: readonly string[], map: PathMapping): string[] {
  return template.map((arg) =>
    arg.replace(PLACEHOLDER, (_m, io: string | undefined, name: string | undefined, fixed: string | undefined) => {
      if (io === "in") return map.input(name!);
      if (io === "out") return map.output(name!);
      if (fixed === "src") return map.src;
      if (fixed === "params") return map.params;
      return map.work;
    }),
  );
}

/** Names referenced by placeholders, for analysis (an argv naming an undeclared input is a bug). */
export function argvPlaceholders(template: readonly string[]): { inputs: string[]; outputs: string[] } {
  const inputs: string[] = [];
  const outputs: string[] = [];
  for (const arg of template) {
    for (const m of arg.matchAll(PLACEHOLDER)) {
      if (m[1] === "in") inputs.push(m[2]!);
      if (m[1] === "out") outputs.push(m[2]!);
    }
  }
  return { inputs, outputs };
}

/** Lines of the form `PROGRESS <done> [<total>] [label...]` that programs print to report progress. */
export function parseProgressLine(line: string): { done: number; total?: number; label?: string } | undefined {
  const m = /^PROGRESS\s+(\d+)(?:\s+(\d+))?(?:\s+(.*))?$/.exec(line.trim());
  if (!m) return undefined;
  const out: { done: number; total?: number; label?: string } = { done: Number(m[1]) };
  if (m[2] !== undefined) out.total = Number(m[2]);
  if (m[3] !== undefined && m[3].length > 0) out.label = m[3];
  return out;
}

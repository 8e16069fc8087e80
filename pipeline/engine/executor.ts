/**
 * The executors' common contract. An executor has to run *container* steps: a pinned image,
 * an argv whose placeholders it maps to its own paths, inputs to read and output paths to
 * fill. The local executor runs the argv on the host; the Dagger executor maps the same job
 * to Dagger calls. In-process steps run in the Node process, unless the executor takes them
 * too (`runInProcess`: a batch system runs them as jobs on its nodes, step-body.ts there).
 */
import type { ContainerRuntime, AnyStep, ProgressSink, RunSettings } from "./step.ts";
import type { AnalysisFailure } from "./failures.ts";
import type { Json } from "./canonical.ts";
import type { Fingerprint } from "./fingerprint.ts";
import type { Resources } from "./resources.ts";
import type { BodyFailure } from "./step-body.ts";

export interface JobPath {
  /** Host path (inputs: inside a store entry; outputs: inside the staging directory). */
  readonly path: string;
  readonly dir: boolean;
}

export interface ContainerJob {
  readonly step: string;
  readonly stepId: string;
  readonly key: string;
  /** The step's runtime, its `resources` the step's effective ones (engine/resources.ts). */
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
  /** Where the job is in a queue (batch executors only). */
  onQueue?(state: QueueState): void;
}

/** A queued job's state, as a batch system reports it ("pending", "Resources"; "running", "on n2"). */
export interface QueueState {
  readonly state: "pending" | "running";
  readonly detail: string;
}

/** The executor's own verdict on a job (a batch job that failed, timed out, could not be submitted). */
export interface JobFailure {
  readonly ok: false;
  readonly kind: "job-failed";
  /** What happened, naming the job (id, state, node). */
  readonly message: string;
  /** What to change. */
  readonly fix?: string;
}

export type JobOutcome =
  | { readonly ok: true; readonly argv: readonly string[]; readonly tools?: Readonly<Record<string, string>> }
  | { readonly ok: false; readonly kind: "exit"; readonly argv: readonly string[]; readonly exitStatus: number | null; readonly signal: string | null }
  | { readonly ok: false; readonly kind: "interpreter-missing"; readonly message: string }
  | JobFailure;

/** An in-process step handed to an executor that runs it elsewhere (`Executor.runInProcess`). */
export interface InProcessJob {
  readonly step: string;
  readonly stepId: string;
  readonly key: string;
  /** The fingerprint the key was computed from (a remote runner recomputes it and must agree). */
  readonly fingerprint: Fingerprint;
  /** Host paths of the inputs, with the entries they are in. */
  readonly inputs: Readonly<Record<string, JobPath & { readonly entry: { readonly stepId: string; readonly key: string } }>>;
  readonly outputs: Readonly<Record<string, JobPath>>;
  readonly workDir: string;
  readonly scratchDir: string;
  readonly settings: RunSettings;
  readonly resources: Resources;
  readonly signal: AbortSignal;
  onLine(line: string): void;
  progress: ProgressSink;
  onQueue?(state: QueueState): void;
}

export type InProcessOutcome =
  | { readonly ok: true; readonly tools?: Readonly<Record<string, string>> }
  | { readonly ok: false; readonly kind: "body"; readonly failure: BodyFailure }
  | JobFailure;

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
  /** Run an in-process step's body elsewhere (absent: the engine runs it in this process). */
  runInProcess?(job: InProcessJob): Promise<InProcessOutcome>;
  /** A line about a step's resources as this executor would request them (`plan` prints it). */
  describeResources?(step: AnyStep): string | undefined;
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

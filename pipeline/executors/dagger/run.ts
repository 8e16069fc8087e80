/**
 * Running a plan through a narrow container interface. The real implementation wraps the
 * Dagger SDK (sdk.ts); tests use a recording fake. Nothing here imports the SDK.
 *
 * Protocol: apply the plan's operations, evaluate (the program's combined output, or an
 * exec failure), then archive /cspipe/out inside the container, export that ONE file to
 * the host and unpack it into the job's output paths (many-file exports are slow).
 * When the plan streams the program's log (log-stream.ts), lines reach the step log while
 * the program runs, and at the end only the lines that did not arrive that way are added.
 */
import { constants } from "node:os";
import type { ContainerJob, JobOutcome } from "../../engine/executor.ts";
import type { DaggerJobPlan, PlanOp } from "./plan.ts";
import { unstreamedLines, type StreamedLine } from "./log-stream.ts";
import { redactor, splitLines } from "../lines.ts";

export { redactor, splitLines };

/** The part of a Dagger container the executor uses. Immutable: each `with*` returns a new builder. */
export interface ContainerBuilder {
  from(image: string): ContainerBuilder;
  withMountedCache(path: string, volume: string): ContainerBuilder;
  withMountedDirectory(path: string, hostPath: string, opts: { readonly readOnly: boolean; readonly exclude?: readonly string[] }): ContainerBuilder;
  withMountedFile(path: string, hostPath: string): ContainerBuilder;
  withEnvVariable(name: string, value: string): ContainerBuilder;
  /** `value` is the plaintext; implementations must turn it into an engine secret and never record it. */
  withSecretVariable(name: string, value: string): ContainerBuilder;
  withGpus(devices: "all" | readonly string[]): ContainerBuilder;
  withWorkdir(path: string): ContainerBuilder;
  /** Make the host's `127.0.0.1:port` reachable from the container as `alias:port` (a Dagger host service). */
  withServiceBinding(alias: string, port: number): ContainerBuilder;
  withExec(argv: readonly string[]): ContainerBuilder;
  /** Evaluate; resolves to the last exec's combined stdout+stderr, rejects with an `ExecFailure` when an exec exits non-zero. */
  combinedOutput(): Promise<string>;
  /** Evaluate and write the container file `path` to `hostPath`. */
  exportFile(path: string, hostPath: string): Promise<void>;
}

export interface DaggerBackend {
  container(): ContainerBuilder;
  /** Engine version for the manifest's tools (optional). */
  version?(): Promise<string>;
}

/** A command in the container exited non-zero (the SDK's ExecError, normalised). */
export class ExecFailure extends Error {
  override readonly name = "ExecFailure";
  constructor(
    readonly cmd: readonly string[],
    readonly exitCode: number,
    readonly stdout: string,
    readonly stderr: string,
  ) {
    super(`command exited with ${exitCode}: ${cmd.join(" ")}`);
  }
}

/** Recognises our ExecFailure and the SDK's ExecError (by shape, so this file needs no SDK). */
export function asExecFailure(e: unknown): ExecFailure | undefined {
  if (e instanceof ExecFailure) return e;
  if (typeof e !== "object" || e === null) return undefined;
  const x = e as { name?: unknown; exitCode?: unknown; cmd?: unknown; stdout?: unknown; stderr?: unknown };
  if (x.name !== "ExecError" || typeof x.exitCode !== "number") return undefined;
  const cmd = Array.isArray(x.cmd) ? x.cmd.map(String) : [];
  return new ExecFailure(cmd, x.exitCode, typeof x.stdout === "string" ? x.stdout : "", typeof x.stderr === "string" ? x.stderr : "");
}

export function applyPlanOps(start: ContainerBuilder, ops: readonly PlanOp[], secrets: Readonly<Record<string, string>>): ContainerBuilder {
  let c = start;
  for (const op of ops) c = applyOp(c, op, secrets);
  return c;
}

const opHandlers: { [K in PlanOp["op"]]: (c: ContainerBuilder, op: Extract<PlanOp, { op: K }>, secrets: Readonly<Record<string, string>>) => ContainerBuilder } = {
  from: (c, op) => c.from(op.image),
  "mount-cache": (c, op) => c.withMountedCache(op.path, op.volume),
  "mount-dir": (c, op) => c.withMountedDirectory(op.path, op.host, op.exclude ? { readOnly: op.readOnly, exclude: op.exclude } : { readOnly: op.readOnly }),
  "mount-file": (c, op) => c.withMountedFile(op.path, op.host),
  env: (c, op) => c.withEnvVariable(op.name, op.value),
  secret: (c, op, secrets) => {
    const v = secrets[op.name];
    if (v === undefined) throw new Error(`secret ${op.name} is in the plan but not in the job`);
    return c.withSecretVariable(op.name, v);
  },
  gpus: (c, op) => c.withGpus(op.devices),
  workdir: (c, op) => c.withWorkdir(op.path),
  "service-binding": (c, op) => c.withServiceBinding(op.alias, op.port),
  exec: (c, op) => c.withExec(op.argv),
};

function applyOp(c: ContainerBuilder, op: PlanOp, secrets: Readonly<Record<string, string>>): ContainerBuilder {
  return (opHandlers[op.op] as (c: ContainerBuilder, op: PlanOp, s: Readonly<Record<string, string>>) => ContainerBuilder)(c, op, secrets);
}

/** Exit codes above 128 are how a container reports death by signal (137 = 128 + SIGKILL). */
export function signalOfExitCode(code: number): string | null {
  if (code <= 128 || code > 128 + 64) return null;
  const n = code - 128;
  const name = Object.entries(constants.signals).find(([, v]) => v === n)?.[0];
  return name ?? null;
}

/**
 * A failure during evaluation → the outcome the engine expects, plus the lines for the step
 * log. `execArgv` is what the exec ran (the program under the log wrapper, say); a failure
 * of that exec is reported with the program's `argv`.
 */
export function outcomeOfError(e: unknown, argv: readonly string[], execArgv: readonly string[] = argv): { outcome: JobOutcome; lines: string[] } {
  const x = asExecFailure(e);
  if (x) {
    const lines = [...splitLines(x.stdout), ...splitLines(x.stderr)];
    const same = (a: readonly string[], b: readonly string[]) => a.join("\0") === b.join("\0");
    const failedArgv = x.cmd.length === 0 || same(x.cmd, execArgv) ? argv : x.cmd;
    if (!same(failedArgv, argv)) lines.push(`# dagger: the failing command was a setup step, not the program: ${failedArgv.join(" ")}`);
    const exitStatus = x.exitCode >= 0 ? x.exitCode : null;
    return { outcome: { ok: false, kind: "exit", argv: failedArgv, exitStatus, signal: exitStatus === null ? "unknown" : signalOfExitCode(exitStatus) }, lines };
  }
  const message = e instanceof Error ? e.message : String(e);
  return {
    outcome: { ok: false, kind: "exit", argv, exitStatus: null, signal: "dagger-error" },
    lines: splitLines(`# dagger error: ${message}`),
  };
}

export interface RunPlanDeps {
  readonly backend: DaggerBackend;
  /** Unpack the exported archive into the job's output paths (outputs.ts). */
  extract(tarPath: string, plan: DaggerJobPlan): Promise<void>;
  /** Host path where the archive is exported. */
  readonly tarPath: string;
  /** The live log of a plan with `logStream` (log-stream.ts); its lines already went to `job.onLine`. */
  readonly stream?: LiveLog;
}

/** What runPlan needs from the log receiver. */
export interface LiveLog {
  /** Wait until the streams have ended, or `ms` passed. */
  settle(ms: number): Promise<void>;
  /** Stop emitting; the lines emitted so far. */
  freeze(): readonly StreamedLine[];
}

/** How long to wait, once the exec has finished, for the last streamed lines to arrive. */
export const STREAM_SETTLE_MS = 5000;

function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Error("cancelled"));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error("cancelled"));
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

/**
 * Run a plan. Never throws for engine-side problems: they become outcomes, with the
 * reason in the step log (via `job.onLine`, secrets redacted).
 */
export async function runPlan(plan: DaggerJobPlan, job: ContainerJob, deps: RunPlanDeps): Promise<JobOutcome> {
  const redact = redactor(job.secrets);
  const emit = (lines: readonly string[]) => {
    for (const l of lines) job.onLine(redact(l));
  };
  // Lines of the exec's full output that were not streamed (all of them without a stream).
  const rest = async (lines: readonly string[]): Promise<readonly string[]> => {
    if (!deps.stream) return lines;
    await deps.stream.settle(STREAM_SETTLE_MS);
    return unstreamedLines(lines, deps.stream.freeze());
  };
  let ran: ContainerBuilder;
  try {
    ran = applyPlanOps(deps.backend.container(), plan.ops, job.secrets);
    const output = await abortable(ran.combinedOutput(), job.signal);
    emit(await rest(splitLines(output)));
  } catch (e) {
    if (job.signal.aborted) return { ok: false, kind: "exit", argv: plan.argv, exitStatus: null, signal: "cancelled" };
    const { outcome, lines } = outcomeOfError(e, plan.argv, plan.execArgv);
    emit(asExecFailure(e) ? await rest(lines) : lines);
    return outcome;
  }
  try {
    await abortable(ran.withExec(plan.archive.argv).exportFile(plan.archive.path, deps.tarPath), job.signal);
    await deps.extract(deps.tarPath, plan);
  } catch (e) {
    if (job.signal.aborted) return { ok: false, kind: "exit", argv: plan.argv, exitStatus: null, signal: "cancelled" };
    const { outcome, lines } = outcomeOfError(e, plan.archive.argv);
    emit([`# dagger: the program succeeded but its outputs could not be exported`, ...lines]);
    return outcome;
  }
  const tools: Record<string, string> = { "container-image": job.runtime.image };
  if (deps.backend.version) {
    try {
      tools.dagger = await deps.backend.version();
    } catch {
      // the version is informational only
    }
  }
  return { ok: true, argv: plan.argv, tools };
}

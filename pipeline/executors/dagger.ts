/**
 * The Dagger executor: under `dagger run` / `dagger exec`, container steps run as Dagger
 * containers (pinned image, cached pip layer, inputs mounted read-only from the store,
 * pip/model caches as cache volumes, GPUs when asked for and present, secrets as Dagger
 * secrets), and their outputs come back as one archive unpacked into the engine's staging
 * directory, which the engine then hashes and publishes as for any executor. The store,
 * not Dagger's layer cache, is the source of truth; keys do not depend on the executor.
 *
 * The pieces: plan.ts (job → plan, pure), run.ts (plan → calls on a narrow container
 * interface), sdk.ts (that interface over the real SDK, loaded only when a container step
 * actually runs), outputs.ts (host-side unpack), gpu.ts (GPU policy), session.ts,
 * log-stream.ts + log_tee.py (live logs of Python programs; CSPIPE_DAGGER_LOG_STREAM=0 turns
 * them off). See docs/dagger.md.
 */
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ContainerJob, Executor, JobOutcome } from "../engine/executor.ts";
import type { AnalysisFailure } from "../engine/failures.ts";
import type { AnyStep, ContainerRuntime, RunSettings } from "../engine/step.ts";
import type { Json } from "../engine/canonical.ts";
import { cpuFacts } from "../engine/cpu.ts";
import { hostHasGpu } from "./local.ts";
import { kernelChoices, numericsMode, stepThreads } from "./numerics/pins.ts";
import { daggerGpuVerdict, gpuFailures, type GpuVerdict, type HostGpuProbe } from "./dagger/gpu.ts";
import { extractOutputs } from "./dagger/outputs.ts";
import { displayLine, startLogReceiver, type LogReceiver } from "./dagger/log-stream.ts";
import { planDaggerJob, runtimeProblems, streamsLog, type DaggerJobPlan } from "./dagger/plan.ts";
import { redactor, runPlan, splitLines, type DaggerBackend } from "./dagger/run.ts";
import { daggerSessionProblem } from "./dagger/session.ts";

export { daggerSessionProblem } from "./dagger/session.ts";
export { planDaggerJob, type DaggerJobPlan, type PlanOp } from "./dagger/plan.ts";
export type { ContainerBuilder, DaggerBackend } from "./dagger/run.ts";

export interface DaggerConnection {
  readonly backend: DaggerBackend;
  close(): Promise<void>;
}

export interface DaggerExecutorOptions {
  /** Environment for policy decisions (CSPIPE_DAGGER_GPU, CSPIPE_DAGGER_CACHE, runner host). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Opens the engine connection; default: the SDK session of `dagger run` (sdk.ts). Called at most once, lazily. */
  readonly connect?: () => Promise<DaggerConnection>;
  /** GPU probe of this host (default: nvidia-smi -L). */
  readonly hostGpuProbe?: HostGpuProbe;
  /** Unpacks the exported archive (default: system tar, outputs.ts). */
  readonly extract?: (tarPath: string, plan: DaggerJobPlan, scratch: string) => Promise<void>;
  readonly sourceExcludes?: readonly string[];
  /** Cache-buster value when CSPIPE_DAGGER_CACHE=0 (default: random). */
  readonly nonce?: () => string;
  /** Host path of log_tee.py (default: next to this module). */
  readonly logTeeScript?: string;
  /** Token a log stream must present (default: random per job). */
  readonly logToken?: () => string;
}

/** log_tee.py next to this module (`npm run build` copies it into dist/ with the module). */
const LOG_TEE = fileURLToPath(new URL("./dagger/log_tee.py", import.meta.url));

const defaultConnect = async (): Promise<DaggerConnection> => {
  const { openSdkSession } = await import("./dagger/sdk.ts");
  return openSdkSession(process.env);
};

export class DaggerExecutor implements Executor {
  readonly name = "dagger";
  private connection: Promise<DaggerConnection> | undefined;
  private verdict: GpuVerdict | undefined;

  constructor(private readonly options: DaggerExecutorOptions) {}

  private gpuVerdict(): GpuVerdict {
    this.verdict ??= daggerGpuVerdict(this.options.env, this.options.hostGpuProbe ?? (() => hostHasGpu(this.options.env)));
    return this.verdict;
  }

  async check(steps: readonly AnyStep[], settings: RunSettings): Promise<AnalysisFailure[]> {
    const failures: AnalysisFailure[] = [];
    for (const s of steps) {
      if (s.def.runtime.type !== "container") continue;
      for (const detail of runtimeProblems(s.def.runtime)) failures.push({ reason: "invalid-source", step: s.name, detail });
    }
    failures.push(...gpuFailures(steps, settings, () => this.gpuVerdict()));
    return failures;
  }

  /**
   * The numerics of a container step under Dagger: the image (already in the key) fixes the
   * software; the kernels are pinned in the container's environment like the local executor's;
   * the device follows the GPU policy, and the engine's machine (local or the runner host)
   * stands for the CPU and GPU models, which cannot be asked from here.
   */
  numerics(rt: ContainerRuntime): Json {
    const pinned = numericsMode(this.options.env) === "pinned";
    const cuda = rt.gpu !== undefined && this.gpuVerdict().ok;
    const remote = this.options.env._EXPERIMENTAL_DAGGER_RUNNER_HOST;
    return {
      executor: "dagger",
      device: cuda ? "cuda" : "cpu",
      kernels: pinned ? "pinned-avx2" : "host",
      threads: stepThreads(rt),
      engine: remote ?? "local",
      ...(cuda ? { gpus: this.gpuVerdict().detail } : {}),
      ...(!pinned && remote === undefined ? { cpu: { model: cpuFacts().model, flags: [...cpuFacts().flags] }, env: kernelChoices(this.options.env) } : {}),
    };
  }

  /** The engine's GPUs are not countable from here: one slot when it has any (pass --gpus N for more). */
  async gpuDevices(steps: readonly AnyStep[]): Promise<{ count: number; detail: string }> {
    if (!steps.some((s) => s.def.runtime.type === "container" && s.def.runtime.gpu !== undefined)) return { count: 0, detail: "no step asks for a GPU" };
    const v = this.gpuVerdict();
    return { count: v.ok ? 1 : 0, detail: v.ok ? `${v.detail}; one GPU slot unless --gpus says how many the engine has` : v.detail };
  }

  /**
   * The live log receiver for a job whose program is run by Python, unless
   * CSPIPE_DAGGER_LOG_STREAM=0. Undefined (and one line in the log) when it cannot start.
   */
  private async liveLog(job: ContainerJob): Promise<{ receiver: LogReceiver; script: string } | undefined> {
    if (this.options.env.CSPIPE_DAGGER_LOG_STREAM === "0" || !streamsLog(job.runtime.argv)) return undefined;
    const unavailable = (why: string) => job.onLine(`# dagger: no live log for this step (${why}); the log arrives when the step ends`);
    const script = this.options.logTeeScript ?? (existsSync(LOG_TEE) ? LOG_TEE : undefined);
    if (script === undefined) {
      unavailable(`${LOG_TEE} does not exist`);
      return undefined;
    }
    const redact = redactor(job.secrets);
    const secrets = Object.values(job.secrets).filter((v) => v.length > 0);
    try {
      const receiver = await startLogReceiver({
        token: (this.options.logToken ?? (() => randomBytes(16).toString("hex")))(),
        onLine: (line) => job.onLine(displayLine(line, redact, secrets)),
      });
      return { receiver, script };
    } catch (e) {
      unavailable(`cannot listen on 127.0.0.1: ${(e as Error).message}`);
      return undefined;
    }
  }

  async runContainer(job: ContainerJob): Promise<JobOutcome> {
    const live = await this.liveLog(job);
    try {
      return await this.run(job, live);
    } finally {
      await live?.receiver.close();
    }
  }

  private async run(job: ContainerJob, live: { receiver: LogReceiver; script: string } | undefined): Promise<JobOutcome> {
    const env = this.options.env;
    let plan: DaggerJobPlan;
    try {
      const cacheOff = env.CSPIPE_DAGGER_CACHE === "0";
      plan = planDaggerJob(job, {
        gpuAvailable: job.runtime.gpu !== undefined && this.gpuVerdict().ok,
        pinned: numericsMode(env) === "pinned",
        ...(this.options.sourceExcludes ? { sourceExcludes: this.options.sourceExcludes } : {}),
        ...(cacheOff ? { cacheBuster: (this.options.nonce ?? (() => randomBytes(8).toString("hex")))() } : {}),
        ...(live ? { logStream: { script: live.script, port: live.receiver.port, token: live.receiver.token } } : {}),
      });
    } catch (e) {
      for (const l of splitLines(`# dagger: cannot plan the container: ${(e as Error).message}`)) job.onLine(l);
      return { ok: false, kind: "exit", argv: [...job.runtime.argv], exitStatus: null, signal: "dagger-error" };
    }
    if (job.runtime.gpu && !plan.gpu) job.onLine(`# dagger: running without a GPU (--allow-cpu): ${this.gpuVerdict().detail}`);
    let connection: DaggerConnection;
    try {
      this.connection ??= (this.options.connect ?? defaultConnect)();
      connection = await this.connection;
    } catch (e) {
      this.connection = undefined;
      for (const l of splitLines(`# dagger: cannot connect to the Dagger session: ${(e as Error).message}`)) job.onLine(l);
      return { ok: false, kind: "exit", argv: plan.argv, exitStatus: null, signal: "dagger-error" };
    }
    const extract = this.options.extract ?? ((tarPath: string, p: DaggerJobPlan, scratch: string) => extractOutputs(tarPath, p.outputs, scratch));
    return runPlan(plan, job, {
      backend: connection.backend,
      tarPath: join(job.workDir, "dagger-outputs.tar"),
      extract: (tarPath, p) => extract(tarPath, p, join(job.workDir, "dagger-outputs")),
      ...(live && plan.logStream ? { stream: live.receiver } : {}),
    });
  }

  async close(): Promise<void> {
    const c = this.connection;
    this.connection = undefined;
    if (!c) return;
    try {
      await (await c).close();
    } catch {
      // a connection that never opened has nothing to close
    }
  }
}

/**
 * The registry's factory (pipeline/executors/index.ts). Does not connect: the connection
 * opens when the first container step runs, so planning and fully cached runs never touch
 * the engine. Fails fast outside a session; the SDK reads the session from `process.env`,
 * so both `env` and `process.env` must carry it.
 */
export async function createDaggerExecutor(
  env: Readonly<Record<string, string | undefined>>,
  options: Omit<DaggerExecutorOptions, "env"> = {},
): Promise<Executor | AnalysisFailure> {
  const problem = daggerSessionProblem(env) ?? (options.connect ? undefined : daggerSessionProblem(process.env));
  if (problem) return { reason: "executor-unavailable", executor: "dagger", detail: problem };
  return new DaggerExecutor({ ...options, env });
}

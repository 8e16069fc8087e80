/**
 * The local executor (the embedded default): container steps run on the host as
 * subprocesses with the same argv, inputs and outputs mapped to store paths. `python3`
 * as argv[0] is replaced by an interpreter that has the step's Python modules.
 *
 * Each program runs in a process group of its own (a Python trainer may start data-loader
 * workers): when the run is cancelled (failure mode `kill`, Ctrl-C) the whole group gets
 * SIGTERM, then SIGKILL after `stopGraceMs`; a second Ctrl-C kills the groups at once
 * (engine/interrupt.ts tracks them).
 */
import { spawn, spawnSync } from "node:child_process";
import { createInterface } from "node:readline";
import type { ContainerJob, Executor, JobOutcome } from "../engine/executor.ts";
import { resolveArgv } from "../engine/executor.ts";
import type { AnalysisFailure } from "../engine/failures.ts";
import type { AnyStep, RunSettings } from "../engine/step.ts";
import { killGroup, trackProcessGroup } from "../engine/interrupt.ts";
import { resolvePython } from "./python.ts";

export function hostHasGpu(env: Readonly<Record<string, string | undefined>> = process.env): { ok: boolean; detail: string } {
  if (env.CUDA_VISIBLE_DEVICES === "" || env.CUDA_VISIBLE_DEVICES === "-1") return { ok: false, detail: "CUDA_VISIBLE_DEVICES hides all GPUs" };
  const r = spawnSync("nvidia-smi", ["-L"], { encoding: "utf8", timeout: 10_000 });
  if (r.error || r.status !== 0) return { ok: false, detail: "no NVIDIA GPU is visible on this host (nvidia-smi -L failed)" };
  return { ok: true, detail: r.stdout.trim() };
}

export interface LocalExecutorOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Threads for numeric libraries in subprocesses (OMP/MKL/OpenBLAS); default: all cores. */
  readonly threads?: number;
  readonly gpuProbe?: () => { ok: boolean; detail: string };
  /** After SIGTERM, how long a cancelled program may take to exit before SIGKILL (default 5 s). */
  readonly stopGraceMs?: number;
}

export class LocalExecutor implements Executor {
  readonly name = "local";
  constructor(private readonly options: LocalExecutorOptions = {}) {}

  async check(steps: readonly AnyStep[], settings: RunSettings): Promise<AnalysisFailure[]> {
    const failures: AnalysisFailure[] = [];
    const gpuSteps = steps.filter((s) => s.def.runtime.type === "container" && s.def.runtime.gpu?.required);
    if (gpuSteps.length > 0 && !settings.allowCpu) {
      const gpu = (this.options.gpuProbe ?? (() => hostHasGpu(this.options.env)))();
      if (!gpu.ok) for (const s of gpuSteps) failures.push({ reason: "gpu-unavailable", step: s.name, detail: gpu.detail });
    }
    return failures;
  }

  async runContainer(job: ContainerJob): Promise<JobOutcome> {
    const env = this.options.env ?? process.env;
    let argv = resolveArgv(job.runtime.argv, {
      input: (n) => job.inputs[n]!.path,
      output: (n) => job.outputs[n]!.path,
      src: job.sourceRoot,
      params: job.paramsFile,
      work: job.workDir,
    });
    const tools: Record<string, string> = {};
    if (argv[0] === "python3" || argv[0] === "python") {
      const py = resolvePython(job.runtime.pythonModules ?? [], env);
      if (!py.ok) return { ok: false, kind: "interpreter-missing", message: `step ${job.step} ${py.message}` };
      argv = [py.probe.path, ...argv.slice(1)];
      for (const [k, v] of Object.entries(py.probe.versions ?? {})) tools[k] = v;
    }
    const threads = String(this.options.threads ?? job.runtime.resources?.cpus ?? "");
    const childEnv: Record<string, string> = {};
    for (const [k, v] of Object.entries(env)) if (v !== undefined) childEnv[k] = v;
    Object.assign(childEnv, job.env, job.secrets, { PYTHONUNBUFFERED: "1", CSPIPE_DEVICE_HINT: job.settings.allowCpu ? "cpu-allowed" : "auto" });
    // OpenBLAS and MKL keep thread pools of their own that torch.set_num_threads does not cap.
    if (threads) Object.assign(childEnv, { OMP_NUM_THREADS: threads, OPENBLAS_NUM_THREADS: threads, MKL_NUM_THREADS: threads, CSPIPE_THREADS: threads });

    return new Promise<JobOutcome>((resolve) => {
      const child = spawn(argv[0]!, argv.slice(1), { cwd: job.workDir, env: childEnv, stdio: ["ignore", "pipe", "pipe"], detached: true });
      const stopTracking = child.pid !== undefined ? trackProcessGroup(child.pid) : () => false;
      let escalation: NodeJS.Timeout | undefined;
      const untrack = () => {
        stopTracking();
        if (escalation) clearTimeout(escalation);
      };
      const onAbort = () => {
        if (child.pid === undefined) return;
        const pid = child.pid;
        killGroup(pid, "SIGTERM");
        // A program that ignores SIGTERM (or workers that linger) gets SIGKILL after the grace period.
        escalation = setTimeout(() => killGroup(pid, "SIGKILL"), this.options.stopGraceMs ?? 5000);
        escalation.unref();
      };
      if (job.signal.aborted) onAbort();
      else job.signal.addEventListener("abort", onAbort, { once: true });
      const redact = (line: string) => Object.values(job.secrets).reduce((l, s) => (s ? l.split(s).join("***") : l), line);
      createInterface({ input: child.stdout }).on("line", (l) => job.onLine(redact(l)));
      createInterface({ input: child.stderr }).on("line", (l) => job.onLine(redact(l)));
      child.on("error", (e) => {
        untrack();
        job.signal.removeEventListener("abort", onAbort);
        resolve({ ok: false, kind: "exit", argv, exitStatus: null, signal: (e as NodeJS.ErrnoException).code ?? "spawn-error" });
      });
      child.on("close", (code, signal) => {
        // Cancelled: workers the program started may outlive it; they go with it.
        if (job.signal.aborted && child.pid !== undefined) killGroup(child.pid, "SIGKILL");
        untrack();
        job.signal.removeEventListener("abort", onAbort);
        if (code === 0) resolve({ ok: true, argv, tools });
        else resolve({ ok: false, kind: "exit", argv, exitStatus: code, signal });
      });
    });
  }
}

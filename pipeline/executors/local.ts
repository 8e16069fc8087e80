/**
 * The local executor (the embedded default): container steps run on the host as
 * subprocesses with the same argv, inputs and outputs mapped to store paths. `python3`
 * as argv[0] is replaced by an interpreter that has the step's Python modules.
 *
 * Each program runs in a process group of its own (a Python trainer may start data-loader
 * workers): when the run is cancelled (failure mode `kill`, Ctrl-C) the whole group gets
 * SIGTERM, then SIGKILL after `stopGraceMs`; a second Ctrl-C kills the groups at once
 * (engine/interrupt.ts tracks them).
 *
 * GPUs: a step that requires one is checked at planning with the one probe that matters,
 * the torch of the interpreter it will run with (torch-probe.ts; `nvidia-smi` only for a
 * program that is not Python), and its program is told so (CSPIPE_DEVICE_HINT=cuda-required)
 * to fail at once rather than fall back to CPU. A GPU step gets the devices the scheduler
 * assigned it (CUDA_VISIBLE_DEVICES, mapped through the user's own CUDA_VISIBLE_DEVICES); a
 * container step that asks for no GPU sees none.
 */
import { spawn, spawnSync } from "node:child_process";
import { createInterface } from "node:readline";
import type { ContainerJob, Executor, JobOutcome } from "../engine/executor.ts";
import { resolveArgv } from "../engine/executor.ts";
import type { AnalysisFailure } from "../engine/failures.ts";
import type { AnyStep, ContainerRuntime, RunSettings } from "../engine/step.ts";
import type { Json } from "../engine/canonical.ts";
import { cpuFacts, runsAvx2Kernels } from "../engine/cpu.ts";
import { killGroup, trackProcessGroup } from "../engine/interrupt.ts";
import { resolvePython, type Prober, type PythonResolution } from "./python.ts";
import { torchCudaOf } from "./torch-probe.ts";
import { visibleDevices } from "./gpu-env.ts";
import { programEnv } from "./program-env.ts";
import { redactor } from "./lines.ts";
import { kernelChoices, numericsEnv, numericsMode, stepThreads } from "./numerics/pins.ts";
import { programNumerics } from "./numerics/identity.ts";
import { coldReason, WarmPythons } from "./warm-python.ts";

export function hostHasGpu(env: Readonly<Record<string, string | undefined>> = process.env): { ok: boolean; detail: string } {
  if (env.CUDA_VISIBLE_DEVICES === "" || env.CUDA_VISIBLE_DEVICES === "-1") return { ok: false, detail: "CUDA_VISIBLE_DEVICES hides all GPUs" };
  const r = spawnSync("nvidia-smi", ["-L"], { encoding: "utf8", timeout: 10_000 });
  if (r.error || r.status !== 0) return { ok: false, detail: "no NVIDIA GPU is visible on this host (nvidia-smi -L failed)" };
  return { ok: true, detail: r.stdout.trim() };
}

export interface LocalExecutorOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** After SIGTERM, how long a cancelled program may take to exit before SIGKILL (default 5 s). */
  readonly stopGraceMs?: number;
  /** How an interpreter is asked what it computes with (default: numerics/probe.ts, which runs it once and remembers). */
  readonly prober?: Prober;
  /** Where interpreter answers are remembered across commands (default: memory only). */
  readonly probeCacheDir?: string;
  /** GPU evidence for a program that is not Python (default: nvidia-smi -L). */
  readonly hostGpuProbe?: () => { ok: boolean; detail: string };
}

const isPython = (argv0: string | undefined): boolean => argv0 === "python3" || argv0 === "python";

export class LocalExecutor implements Executor {
  readonly name = "local";
  /** interpreter()'s answers, by module list. */
  private readonly interpreters = new Map<string, PythonResolution>();
  /** Zygotes that fork Python programs with torch already imported (warm-python.ts). */
  readonly warm = new WarmPythons();
  constructor(private readonly options: LocalExecutorOptions = {}) {}

  private get env(): Readonly<Record<string, string | undefined>> {
    return this.options.env ?? process.env;
  }

  /** The kernel pins apply: pinned mode (CSPIPE_NUMERICS) on a CPU that runs them. */
  private get pinned(): boolean {
    return numericsMode(this.env) === "pinned" && runsAvx2Kernels(cpuFacts());
  }

  /**
   * The interpreter a Python step runs with, asked under the environment its program gets; once
   * per module list and executor. The probe remembers its answers by a digest of the environment
   * and the interpreter's path, and computing that digest for each of a graph's program steps (their
   * keys' numerics, the GPU checks) cost a no-op rerun of the default target ~40 ms.
   */
  private interpreter(rt: ContainerRuntime): PythonResolution {
    const modules = rt.pythonModules ?? [];
    const asked = modules.join("\0");
    let answer = this.interpreters.get(asked);
    if (answer === undefined) {
      const env = { ...this.env, ...numericsEnv(this.pinned ? "pinned" : "host", 1) };
      answer = resolvePython(modules, env, { ...(this.options.prober ? { prober: this.options.prober } : {}), ...(this.options.probeCacheDir ? { cacheDir: this.options.probeCacheDir } : {}) });
      this.interpreters.set(asked, answer);
    }
    return answer;
  }

  /** CUDA devices the step's program will see (before the scheduler narrows them), and why. */
  private gpusOf(rt: ContainerRuntime): { devices: number; detail: string; names: readonly string[] } {
    if (!isPython(rt.argv[0])) {
      const host = (this.options.hostGpuProbe ?? (() => hostHasGpu(this.env)))();
      const names = host.ok ? host.detail.split("\n").filter((l) => l.trim()) : [];
      return { devices: names.length, detail: host.detail, names };
    }
    const py = this.interpreter(rt);
    if (!py.ok) return { devices: 0, detail: `no interpreter can run it: ${py.message}`, names: [] };
    const t = torchCudaOf(py.facts, this.env.CUDA_VISIBLE_DEVICES);
    return { devices: t.devices, detail: t.detail, names: t.names };
  }

  /** The numerics identity of a program step run here (numerics/identity.ts). */
  numerics(rt: ContainerRuntime): Json {
    const pinned = this.pinned;
    const base = { mode: numericsMode(this.env), pinned, threads: stepThreads(rt), cpu: cpuFacts(), choices: pinned ? {} : kernelChoices(this.env) };
    if (!isPython(rt.argv[0])) {
      // A program that is not Python: its libraries are unknown, so the CPU and GPUs it sees are recorded.
      const gpus = rt.gpu !== undefined ? this.gpusOf(rt).names : [];
      return { device: gpus.length > 0 ? "cuda" : "cpu", program: rt.argv[0] ?? "", kernels: pinned ? "pinned-avx2" : "host", threads: base.threads, cpu: { model: base.cpu.model, flags: [...base.cpu.flags] }, gpus: [...gpus] };
    }
    const py = this.interpreter(rt);
    if (!py.ok) return { device: "unknown", problem: py.message.split("\n")[0] ?? "" };
    const cuda = rt.gpu !== undefined && (py.facts.torch?.devices ?? 0) > 0;
    return programNumerics({ ...base, facts: py.facts, modules: rt.pythonModules ?? [], cuda });
  }

  async check(steps: readonly AnyStep[], settings: RunSettings): Promise<AnalysisFailure[]> {
    const failures: AnalysisFailure[] = [];
    if (settings.allowCpu) return failures;
    for (const s of steps) {
      const rt = s.def.runtime;
      if (rt.type !== "container" || !rt.gpu?.required) continue;
      const gpu = this.gpusOf(rt);
      if (gpu.devices === 0) failures.push({ reason: "gpu-unavailable", step: s.name, detail: gpu.detail });
    }
    return failures;
  }

  async gpuDevices(steps: readonly AnyStep[]): Promise<{ count: number; detail: string }> {
    let found: { count: number; detail: string } | undefined;
    for (const s of steps) {
      const rt = s.def.runtime;
      if (rt.type !== "container" || rt.gpu === undefined) continue;
      const g = this.gpusOf(rt);
      if (found === undefined || g.devices < found.count) found = { count: g.devices, detail: g.detail };
    }
    return found ?? { count: 0, detail: "no step asks for a GPU" };
  }

  /**
   * The argv a program step runs with on this host (placeholders mapped, `python3` replaced by the
   * interpreter that has its modules) and the tool versions it reports. The Slurm executor runs
   * the same argv on its nodes.
   */
  program(job: ContainerJob): { ok: true; argv: string[]; tools: Record<string, string> } | Extract<JobOutcome, { kind: "interpreter-missing" }> {
    let argv = resolveArgv(job.runtime.argv, {
      input: (n) => job.inputs[n]!.path,
      output: (n) => job.outputs[n]!.path,
      src: job.sourceRoot,
      params: job.paramsFile,
      work: job.workDir,
    });
    const tools: Record<string, string> = {};
    if (isPython(argv[0])) {
      const py = this.interpreter(job.runtime);
      if (!py.ok) return { ok: false, kind: "interpreter-missing", message: `step ${job.step} ${py.message}` };
      argv = [py.facts.python, ...argv.slice(1)];
      tools.python = py.facts.version ?? "unknown";
      for (const [k, v] of Object.entries(py.facts.modules)) tools[k] = v;
    }
    return { ok: true, argv, tools };
  }

  /** The environment a program step runs with (program-env.ts), before the GPUs it may see. */
  environment(job: ContainerJob): Record<string, string> {
    return programEnv({ inherited: this.env, runtime: job.runtime, settings: job.settings, env: job.env, secrets: job.secrets, pinned: this.pinned, identity: job.numerics });
  }

  async runContainer(job: ContainerJob): Promise<JobOutcome> {
    const env = this.env;
    const prepared = this.program(job);
    if (!prepared.ok) return prepared;
    const { argv, tools } = prepared;
    const childEnv = this.environment(job);
    // A step that asks for no GPU gets none; a GPU step gets the devices the scheduler gave it.
    if (job.runtime.gpu === undefined) childEnv.CUDA_VISIBLE_DEVICES = "";
    else if (job.devices !== undefined) childEnv.CUDA_VISIBLE_DEVICES = visibleDevices(job.devices, env.CUDA_VISIBLE_DEVICES);
    // What starts: the program, or its stand-in forked from a warm interpreter (same bytes, about 1.5 s sooner).
    const started = isPython(job.runtime.argv[0]) && coldReason(argv, job.runtime, childEnv, job.devices) === undefined ? await this.warm.argv(argv, job.runtime.pythonModules ?? [], childEnv) : argv;

    return new Promise<JobOutcome>((resolve) => {
      const child = spawn(started[0]!, started.slice(1), { cwd: job.workDir, env: childEnv, stdio: ["ignore", "pipe", "pipe"], detached: true });
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
      const redact = redactor(job.secrets);
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

  async close(): Promise<void> {
    await this.warm.close();
  }
}

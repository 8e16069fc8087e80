/**
 * The Slurm executor (`--executor slurm`): every step the run executes is a Slurm job on a node
 * Slurm picks. A program step runs the argv and environment of a local run (host-program.ts);
 * an in-process step runs `cspipe exec-step` on the node, which rebuilds the graph and runs
 * that one body (step-spec.ts, pipeline/commands/exec-step.ts). The DAG decides what is ready
 * (no Slurm dependencies); the store on the shared filesystem stays the one source of truth,
 * with leases held by this process, never by jobs. Keys do not depend on the executor: a program
 * step's numerics identity is the local executor's (the nodes run the same interpreter with the
 * same pinned kernels, and the job checks so on its node before the program starts).
 *
 * Pieces: config.ts (cspipe.slurm.json + flags), request.ts and cluster.ts (resources, the
 * planning check against sinfo), script.ts (batch script), commands.ts (the clients), watcher.ts
 * (one batched poll), job.ts (attempts, resubmission), attempt.ts (per-attempt staging),
 * outcome.ts (failure messages).
 */
import { writeFile, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { spawnSync } from "node:child_process";
import type { ContainerJob, Executor, InProcessJob, InProcessOutcome, JobOutcome, JobPath } from "../../engine/executor.ts";
import type { AnalysisFailure } from "../../engine/failures.ts";
import type { AnyStep, RunSettings } from "../../engine/step.ts";
import { programResources, stepResources, type Resources } from "../../engine/resources.ts";
import { onHardStop } from "../../engine/interrupt.ts";
import type { Json } from "../../engine/canonical.ts";
import type { ContainerRuntime } from "../../engine/step.ts";
import type { LocalExecutor } from "../local.ts";
import type { RunRef } from "../context.ts";
import type { SlurmSettings } from "./config.ts";
import { slurmClients, type SlurmClients } from "./commands.ts";
import { gpuCapacity, gpusPerJob, parseSinfo, requestProblem, targetPartitions, type Partition } from "./cluster.ts";
import { describeRequest, slurmRequest, type SlurmRequest } from "./request.ts";
import { JobWatcher } from "./watcher.ts";
import { runSlurmJob, type JobEnd, type SlurmJob } from "./job.ts";
import { adoptOutputs, retireAttempts, type Attempt } from "./attempt.ts";
import { endFailure } from "./outcome.ts";
import { NUMERICS_CHECK_SCHEMA, parseStepResult, STEP_SPEC_SCHEMA, type NumericsCheck, type StepSpec } from "./step-spec.ts";

type Env = Readonly<Record<string, string | undefined>>;

export interface SlurmExecutorOptions {
  readonly env: Env;
  readonly settings: SlurmSettings;
  /** How a node rebuilds the run's graph: the same project root (shared), store, data, targets and overrides. */
  readonly graph: RunRef;
  /** The project's local executor: a node runs its programs as it would (argv, interpreter, environment, numerics). */
  readonly local: LocalExecutor;
  readonly clients?: SlurmClients;
  /** The command that runs this CLI on a node (default: this Node and pipeline/main, compiled or under tsx). */
  readonly cli?: readonly string[];
}

interface ClusterView {
  readonly all: readonly Partition[];
  readonly partitions: readonly Partition[];
}

/** The CLI this process runs, as a command for a node: the compiled main.js, or main.ts under tsx. */
export function defaultCliCommand(): string[] {
  const main = new URL(import.meta.url.endsWith(".js") ? "../../main.js" : "../../main.ts", import.meta.url);
  // tsx resolved here, not from the job's working directory (which is not the project's).
  return main.pathname.endsWith(".js") ? [process.execPath, fileURLToPath(main)] : [process.execPath, "--import", import.meta.resolve("tsx"), fileURLToPath(main)];
}

const definedEnv = (env: Env): Record<string, string> => Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));

export class SlurmExecutor implements Executor {
  readonly name = "slurm";
  private readonly clients: SlurmClients;
  private readonly watcher: JobWatcher;
  private readonly live = new Set<string>();
  private readonly removeHook: () => void;
  private view: Promise<ClusterView | { error: string; fix: string }> | undefined;
  private resolvedView: ClusterView | undefined;

  constructor(private readonly options: SlurmExecutorOptions) {
    this.clients = options.clients ?? slurmClients();
    const s = options.settings;
    this.watcher = new JobWatcher(this.clients, { pollMs: s.pollMs, vanishMs: Math.max(s.exitFileGraceMs, 10 * s.pollMs), warn: (m) => process.stderr.write(`slurm: ${m}\n`) });
    // A second Ctrl-C exits at once: the jobs go first.
    this.removeHook = onHardStop(() => {
      if (this.live.size > 0) spawnSync("scancel", [...this.live], { timeout: 10_000 });
    });
  }

  /** sinfo, once per run: the partitions jobs go to. */
  private cluster(): Promise<ClusterView | { error: string; fix: string }> {
    this.view ??= (async () => {
      const r = await this.clients.sinfo();
      if (r.code !== 0) return { error: `sinfo failed: ${(r.stderr || r.spawnError || "").trim()}`, fix: "install slurm-client and point SLURM_CONF at the cluster's slurm.conf (for the test cluster: scripts/slurm-cluster.sh up <dir>)" };
      let all: Partition[];
      try {
        all = parseSinfo(r.stdout);
      } catch (e) {
        return { error: (e as Error).message, fix: "report this sinfo output as a bug" };
      }
      const t = targetPartitions(all, this.options.settings.partition);
      if (!t.ok) return { error: t.detail, fix: t.fix };
      this.resolvedView = { all, partitions: t.partitions };
      return this.resolvedView;
    })();
    return this.view;
  }

  private request(stepId: string, r: Resources, view: ClusterView | undefined): SlurmRequest {
    // GPUs are requested where the cluster has them; a GPU step on a cluster without is refused at planning unless --allow-cpu.
    const hasGpus = view === undefined || gpuCapacity(view.partitions).perNode > 0;
    return slurmRequest(stepId, r, this.options.settings, hasGpus);
  }

  /** What a program computes with on a node: what it computes with here (same software on every node, checked there). */
  numerics(runtime: ContainerRuntime): Json {
    return this.options.local.numerics(runtime);
  }

  async check(steps: readonly AnyStep[], settings: RunSettings): Promise<AnalysisFailure[]> {
    const view = await this.cluster();
    if ("error" in view) return [{ reason: "executor-unavailable", executor: "slurm", detail: `${view.error}. Fix: ${view.fix}` }];
    const failures: AnalysisFailure[] = [];
    const names = view.partitions.map((p) => p.name).join(", ");
    // One refusal per step id and request (a real graph has 144 search-dense-shard steps alike).
    const refused = new Map<string, { first: AnyStep; more: number; detail: string; fix: string }>();
    for (const s of steps) {
      const rt = s.def.runtime;
      if (rt.type === "container" && rt.gpu?.required && !settings.allowCpu && gpuCapacity(view.partitions).perNode === 0) {
        failures.push({ reason: "gpu-unavailable", step: s.name, detail: `no node of partition ${names} has a GPU (sinfo's gres)` });
        continue;
      }
      const p = requestProblem(s.def.id, this.request(s.def.id, stepResources(s), view), view.partitions, view.all);
      if (!p) continue;
      const group = refused.get(`${s.def.id}\0${p.detail}`);
      if (group) group.more++;
      else refused.set(`${s.def.id}\0${p.detail}`, { first: s, more: 0, ...p });
    }
    for (const r of refused.values()) {
      const step = r.more > 0 ? `${r.first.name} (and ${r.more} more ${r.first.def.id} steps)` : r.first.name;
      failures.push({ reason: "unschedulable", step, executor: "slurm", detail: r.detail, fix: r.fix });
    }
    return failures;
  }

  async gpuDevices(steps: readonly AnyStep[]): Promise<{ count: number; detail: string }> {
    const view = await this.cluster();
    if ("error" in view) return { count: 0, detail: view.error };
    const { total } = gpuCapacity(view.partitions);
    if (!steps.some((s) => s.def.runtime.type === "container" && s.def.runtime.gpu !== undefined)) return { count: total, detail: "no step asks for a GPU" };
    return { count: total, detail: `${total} GPUs in partition ${view.partitions.map((p) => p.name).join(", ")} (sinfo); Slurm assigns each job its own` };
  }

  describeResources(step: AnyStep): string {
    return `sbatch ${describeRequest(this.request(step.def.id, stepResources(step), this.resolvedView))}`;
  }

  async runContainer(job: ContainerJob): Promise<JobOutcome> {
    const local = this.options.local;
    const first = local.program(job);
    if (!first.ok) return first;
    const request = this.request(job.stepId, programResources(job.runtime), this.resolvedView);
    const program = local.environment(job);
    // Secrets reach the job through sbatch's environment, never the script; a GPU job sees the
    // devices Slurm assigns it (its CUDA_VISIBLE_DEVICES is kept), a step that asks for none sees none.
    for (const name of Object.keys(job.secrets)) delete program[name];
    if (job.runtime.gpu === undefined) program.CUDA_VISIBLE_DEVICES = "";
    let argv: readonly string[] = first.argv;
    const cli = this.options.cli ?? defaultCliCommand();
    const end = await this.run(job, request, program, job.secrets, async (a, outputs) => {
      const prepared = local.program({ ...job, outputs, workDir: a.work });
      argv = prepared.ok ? prepared.argv : first.argv;
      const check: NumericsCheck = { schema: NUMERICS_CHECK_SCHEMA, step: job.step, runtime: { ...job.runtime }, numerics: job.numerics, result: a.result };
      await writeFile(a.spec, JSON.stringify(check, null, 2) + "\n");
      return { argv, cwd: a.work, preflight: { argv: [...cli, "exec-step", "--numerics", "--store", this.options.graph.storeRoot, a.spec], cwd: this.options.graph.root } };
    });
    if (end.kind === "exited" && end.code === 0) return this.succeeded(job, end, async () => ({ ok: true, argv, tools: { ...first.tools, ...jobTools(end) } }));
    const refused = end.kind === "exited" ? await readResult(end.attempt) : undefined;
    await retireAttempts(job.workDir).catch(() => undefined);
    if (end.kind === "cancelled") return { ok: false, kind: "job-failed", message: "cancelled" };
    if (end.kind === "exited" && end.phase === "preflight") {
      const why = refused !== undefined && "failure" in refused && "message" in refused.failure ? refused.failure.message : `the check exited with ${end.code} (its output is in the log)`;
      return { ok: false, kind: "job-failed", message: `Slurm job ${end.job.id}${end.job.nodes ? ` on ${end.job.nodes}` : ""} did not run the program: checking its numerics there failed: ${why}` };
    }
    return { ok: false, kind: "job-failed", ...endFailure(end, { stepId: job.stepId, request, command: argv.join(" "), exitFileGraceMs: this.options.settings.exitFileGraceMs }) };
  }

  async runInProcess(job: InProcessJob): Promise<InProcessOutcome> {
    const g = this.options.graph;
    const request = this.request(job.stepId, job.resources, this.resolvedView);
    const cli = this.options.cli ?? defaultCliCommand();
    let command: readonly string[] = [];
    const end = await this.run(job, request, definedEnv(this.options.env), {}, async (a, outputs) => {
      await writeFile(a.spec, JSON.stringify(stepSpec(job, g, a, outputs), null, 2) + "\n");
      command = [...cli, "exec-step", "--store", g.storeRoot, "--data", g.data, a.spec];
      return { argv: command, cwd: g.root };
    });
    if (end.kind === "cancelled") {
      await retireAttempts(job.workDir).catch(() => undefined);
      return { ok: false, kind: "job-failed", message: "cancelled" };
    }
    const result = end.kind === "exited" ? await readResult(end.attempt) : undefined;
    if (end.kind === "exited" && end.code === 0 && result !== undefined && "ok" in result && result.ok) return this.succeeded(job, end, async () => ({ ok: true, tools: { ...result.tools, ...jobTools(end) } }));
    await retireAttempts(job.workDir).catch(() => undefined);
    if (result !== undefined && "failure" in result) {
      const f = result.failure;
      const where = `Slurm job ${end.kind === "exited" ? `${end.job.id}${end.job.nodes ? ` on ${end.job.nodes}` : ""}` : ""}`;
      if (f.reason === "key-mismatch") return { ok: false, kind: "job-failed", message: `${where} refused to run it: ${f.message}`, fix: "the nodes must see this host's sources, packages and environment: run from a project on the shared filesystem, with the same node_modules" };
      return { ok: false, kind: "body", failure: f.reason === "step-threw" ? { ...f, message: `${f.message} (${where})` } : f };
    }
    if (end.kind === "exited") {
      const why = result === undefined ? "no result file" : `an unreadable result file (${"error" in result ? result.error : "?"})`;
      return { ok: false, kind: "job-failed", message: `cspipe exec-step exited with ${end.code} in Slurm job ${end.job.id}${end.job.nodes ? ` on ${end.job.nodes}` : ""} and left ${why} (${end.attempt.result}): ${command.join(" ")}`, fix: "its output is in the log: the node must run this Node (" + process.execPath + ") and see the project at " + g.root };
    }
    return { ok: false, kind: "job-failed", ...endFailure(end, { stepId: job.stepId, request, command: command.join(" "), exitFileGraceMs: this.options.settings.exitFileGraceMs }) };
  }

  /** Scancel what is still queued or running (a run that ends with jobs out: abandoned steps). */
  async close(): Promise<void> {
    this.watcher.close();
    this.removeHook();
    if (this.live.size > 0) await this.clients.cancel([...this.live]);
  }

  private run(
    job: { step: string; stepId: string; key: string; workDir: string; outputs: Readonly<Record<string, JobPath>>; signal: AbortSignal; onLine(l: string): void; onQueue?(q: { state: "pending" | "running"; detail: string }): void },
    request: SlurmRequest,
    env: Readonly<Record<string, string>>,
    secrets: Readonly<Record<string, string>>,
    command: SlurmJob["command"],
  ): Promise<JobEnd> {
    const view = this.resolvedView;
    const gpus = request.gpus === 0 ? 0 : view ? gpusPerJob(request, view.partitions) : request.gpus === "all" ? 1 : request.gpus;
    const onQueue = job.onQueue?.bind(job);
    return runSlurmJob(
      { step: job.step, key: job.key, request, gpus, workDir: job.workDir, outputs: job.outputs, env, secrets, command, signal: job.signal, onLine: (l) => job.onLine(l), ...(onQueue ? { onQueue } : {}) },
      { settings: this.options.settings, clients: this.clients, watcher: this.watcher, live: this.live, sleep: (ms) => new Promise((r) => setTimeout(r, ms)) },
    );
  }

  private async succeeded<T>(job: { workDir: string; outputs: Readonly<Record<string, JobPath>> }, end: Extract<JobEnd, { kind: "exited" }>, ok: () => Promise<T>): Promise<T> {
    await adoptOutputs(end.attempt, job.workDir, job.outputs);
    await retireAttempts(job.workDir);
    return ok();
  }
}

function jobTools(end: Extract<JobEnd, { kind: "exited" }>): Record<string, string> {
  return { "slurm.job": end.job.id, "slurm.node": end.job.nodes, ...(end.attempts > 1 ? { "slurm.attempt": String(end.attempts) } : {}) };
}

function stepSpec(job: InProcessJob, g: RunRef, a: Attempt, outputs: Readonly<Record<string, JobPath>>): StepSpec {
  return {
    schema: STEP_SPEC_SCHEMA,
    targets: [...g.targets],
    sets: [...g.sets],
    step: job.step,
    key: job.key,
    fingerprint: job.fingerprint as unknown as Record<string, unknown>,
    inputs: Object.fromEntries(Object.entries(job.inputs).map(([k, v]) => [k, { path: v.path, dir: v.dir, stepId: v.entry.stepId, key: v.entry.key }])),
    outputs: Object.fromEntries(Object.entries(outputs).map(([k, v]) => [k, { path: v.path, dir: v.dir }])),
    workDir: a.work,
    scratchDir: job.scratchDir,
    settings: { ...job.settings },
    result: a.result,
  };
}

async function readResult(a: Attempt): Promise<ReturnType<typeof parseStepResult> | undefined> {
  const text = await readFile(a.result, "utf8").catch(() => undefined);
  return text === undefined ? undefined : parseStepResult(text);
}

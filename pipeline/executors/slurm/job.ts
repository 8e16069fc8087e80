/**
 * One step as Slurm jobs: write the attempt's batch script, submit it, stream its output into
 * the step's log while the watcher follows its state, and read how it ended: the program's exit
 * status from the exit-code file (waiting up to the grace period for a shared filesystem to
 * show it), checked against the job's final state. A node failure, preemption or boot failure
 * submits a new attempt with the failed nodes excluded, up to `nodeFailureRetries` times. A
 * stopped run cancels the job (scancel) and waits briefly for Slurm to confirm.
 */
import { readFile, writeFile } from "node:fs/promises";
import type { JobPath, QueueState } from "../../engine/executor.ts";
import type { SlurmSettings } from "./config.ts";
import type { SlurmClients } from "./commands.ts";
import type { JobWatcher, FinalState } from "./watcher.ts";
import { attemptOutputs, attemptPaths, prepareAttempt, type Attempt } from "./attempt.ts";
import { batchScript, parseExitCode, SLURM_GPU_VARIABLES } from "./script.ts";
import { FileFollower } from "./log-follow.ts";
import { placementFlags, resourceFlags, type SlurmRequest } from "./request.ts";
import { queueDetail, stateClass } from "./queue.ts";

export interface SlurmJob {
  readonly step: string;
  readonly key: string;
  readonly request: SlurmRequest;
  /** GPUs each attempt asks for (--gres=gpu:N; 0: none). */
  readonly gpus: number;
  /** The engine's workDir (`<staging>/work`) and output paths; attempts mirror them. */
  readonly workDir: string;
  readonly outputs: Readonly<Record<string, JobPath>>;
  /** What the script exports (the program's environment, without a GPU job's device variables). */
  readonly env: Readonly<Record<string, string>>;
  /** Secret variables: in sbatch's environment only, passed on by --export=<names>. */
  readonly secrets: Readonly<Record<string, string>>;
  /** The command of an attempt, given its outputs' paths; may write files into the attempt first. */
  command(a: Attempt, outputs: Readonly<Record<string, JobPath>>): Promise<{ argv: readonly string[]; cwd: string; preflight?: { argv: readonly string[]; cwd: string } }>;
  readonly signal: AbortSignal;
  onLine(line: string): void;
  onQueue?(state: QueueState): void;
}

export interface SlurmContext {
  readonly settings: SlurmSettings;
  readonly clients: SlurmClients;
  readonly watcher: JobWatcher;
  /** Jobs submitted and not yet seen to end (scancel'd by a hard stop and by close()). */
  readonly live: Set<string>;
  readonly sleep: (ms: number) => Promise<void>;
}

export type JobEnd =
  /** The program (or the check before it: `phase`) ran and exited with `code` (the exit-code file). */
  | { readonly kind: "exited"; readonly code: number; readonly phase: "program" | "preflight"; readonly job: FinalState; readonly attempt: Attempt; readonly attempts: number }
  /** The job ended without an exit status of its program (a limit, a cancel, a node failure too often, no exit-code file). */
  | { readonly kind: "ended"; readonly job: FinalState; readonly attempt: Attempt; readonly attempts: number; readonly excluded: readonly string[] }
  | { readonly kind: "not-submitted"; readonly message: string }
  | { readonly kind: "cancelled" };

const jobName = (step: string): string => `cspipe.${step}`.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 200);

export async function runSlurmJob(job: SlurmJob, ctx: SlurmContext): Promise<JobEnd> {
  const excluded: string[] = [];
  const attempts = 1 + ctx.settings.nodeFailureRetries;
  for (let n = 1; ; n++) {
    const end = await runAttempt(job, ctx, n, excluded);
    if (end.kind !== "ended" || stateClass(end.job.state) !== "retry" || n >= attempts) return end.kind === "ended" ? { ...end, excluded } : end;
    for (const node of expandNodes(end.job.nodes)) if (!excluded.includes(node)) excluded.push(node);
    job.onLine(`# slurm: job ${end.job.id} ended ${end.job.state}${end.job.nodes ? ` on ${end.job.nodes}` : ""}; attempt ${n + 1} of ${attempts} without ${excluded.join(",") || "(no node known)"}`);
    // A node the controller lost may still run the job: cancelled for when it comes back.
    await ctx.clients.cancel([end.job.id]);
  }
}

/** "n[1-3],gpu7" -> n1 n2 n3 gpu7 (what --exclude accepts either way; expanded to de-duplicate). */
export function expandNodes(list: string): string[] {
  const out: string[] = [];
  for (const part of list.split(/,(?![^[]*\])/).filter(Boolean)) {
    const m = /^(.*)\[([^\]]+)\](.*)$/.exec(part);
    if (!m) {
      out.push(part);
      continue;
    }
    for (const r of m[2]!.split(",")) {
      const [a, b] = r.split("-");
      if (b === undefined) out.push(`${m[1]}${a}${m[3]}`);
      else for (let i = Number(a); i <= Number(b); i++) out.push(`${m[1]}${String(i).padStart(a!.length, "0")}${m[3]}`);
    }
  }
  return out;
}

async function runAttempt(job: SlurmJob, ctx: SlurmContext, n: number, excluded: readonly string[]): Promise<JobEnd> {
  const a = attemptPaths(job.workDir, n);
  const outputs = attemptOutputs(a, job.workDir, job.outputs);
  await prepareAttempt(a, outputs);
  const { argv, cwd, preflight } = await job.command(a, outputs);
  const flags = [
    `--job-name=${jobName(job.step)}`,
    `--output=${a.log}`,
    `--chdir=${cwd}`,
    "--no-requeue",
    ...resourceFlags(job.request, job.gpus),
    ...placementFlags(ctx.settings),
    ...(excluded.length > 0 ? [`--exclude=${excluded.join(",")}`] : []),
  ];
  const keep = [...(job.gpus > 0 ? SLURM_GPU_VARIABLES : []), ...Object.keys(job.secrets)];
  const env = { ...job.env };
  if (job.gpus > 0) for (const v of SLURM_GPU_VARIABLES) delete env[v];
  await writeFile(a.script, batchScript({ title: `cspipe step ${job.step}, key ${job.key}, attempt ${n}`, flags, env, keep, argv, attemptDir: a.dir, ...(preflight ? { preflight } : {}) }), { mode: 0o700 });
  if (job.signal.aborted) return { kind: "cancelled" };

  const exportFlag = Object.keys(job.secrets).length > 0 ? `--export=${Object.keys(job.secrets).join(",")}` : "--export=NONE";
  const submitted = await ctx.clients.submit(a.script, exportFlag, { ...job.env, ...job.secrets }, {
    retries: ctx.settings.submitRetries,
    backoffMs: ctx.settings.submitBackoffMs,
    signal: job.signal,
    onRetry: (i, wait, err) => job.onLine(`# slurm: sbatch failed (${err.split("\n").pop()}); try ${i + 1} of ${ctx.settings.submitRetries + 1} in ${wait / 1000} s`),
  });
  if (!submitted.ok) return job.signal.aborted ? { kind: "cancelled" } : { kind: "not-submitted", message: submitted.message };
  const id = submitted.id;
  ctx.live.add(id);
  job.onLine(`# slurm: attempt ${n}: job ${id} submitted: sbatch ${flags.join(" ")} (${a.script})`);
  try {
    return await follow(job, ctx, a, id, n);
  } finally {
    ctx.live.delete(id);
  }
}

async function follow(job: SlurmJob, ctx: SlurmContext, a: Attempt, id: string, n: number): Promise<JobEnd> {
  const log = new FileFollower(a.log, job.onLine);
  const tick = setInterval(() => void log.read(), ctx.settings.pollMs);
  const final = ctx.watcher.watch(id, jobName(job.step), (s) => {
    const q = queueDetail(s);
    if (q) job.onQueue?.(q);
  });
  const onAbort = () => void ctx.clients.cancel([id]);
  job.signal.addEventListener("abort", onAbort, { once: true });
  if (job.signal.aborted) onAbort();
  try {
    const state = await raceAbort(final, job.signal, ctx);
    clearInterval(tick);
    await log.read(true);
    if (state === undefined) return { kind: "cancelled" };
    job.onLine(`# slurm: job ${id} ${state.state}${state.nodes ? ` on ${state.nodes}` : ""}${state.reason ? ` (${state.reason})` : ""}`);
    // A job purged from squeue before a poll saw it end, with accounting off, still left its exit-code file.
    if (stateClass(state.state) !== "ended" && state.state !== "VANISHED") return { kind: "ended", job: state, attempt: a, attempts: n, excluded: [] };
    const exit = await exitCode(a, ctx);
    return exit === undefined ? { kind: "ended", job: state, attempt: a, attempts: n, excluded: [] } : { kind: "exited", ...exit, job: state, attempt: a, attempts: n };
  } finally {
    clearInterval(tick);
    job.signal.removeEventListener("abort", onAbort);
    ctx.watcher.forget(id);
  }
}

/** The final state; undefined once the run is stopped (after waiting up to 8 s for Slurm to confirm the scancel). */
async function raceAbort(final: Promise<FinalState>, signal: AbortSignal, ctx: SlurmContext): Promise<FinalState | undefined> {
  const aborted = new Promise<"aborted">((resolve) => {
    if (signal.aborted) resolve("aborted");
    else signal.addEventListener("abort", () => resolve("aborted"), { once: true });
  });
  const first = await Promise.race([final, aborted]);
  if (first !== "aborted") return first;
  await Promise.race([final, ctx.sleep(8000)]);
  return undefined;
}

/** The exit status from the attempt's exit-code file, waiting up to the grace period for it to appear. */
async function exitCode(a: Attempt, ctx: SlurmContext): Promise<ReturnType<typeof parseExitCode>> {
  const step = Math.min(500, ctx.settings.pollMs);
  for (let waited = 0; ; waited += step) {
    const text = await readFile(a.exitCode, "utf8").catch(() => undefined);
    const code = text === undefined ? undefined : parseExitCode(text);
    if (code !== undefined || waited >= ctx.settings.exitFileGraceMs) return code;
    await ctx.sleep(step);
  }
}

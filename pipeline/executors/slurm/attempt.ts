/**
 * Per-attempt staging on the shared filesystem. Every submission of a step (a first try, a
 * resubmission after a node failure) writes only into its own directory,
 *
 *   <staging>/work/slurm/<n>/   job.sh, job.log (Slurm's output), outputs/ (the declared
 *                               outputs, laid out as in the staging directory), work/,
 *                               spec.json + result.json (in-process steps), exitcode
 *
 * so an attempt that keeps running on a node the controller lost (a "ghost") can never write
 * into another attempt's outputs. The attempt that succeeded has its outputs/ renamed into the
 * staging directory (one rename on one filesystem); then every attempt is renamed out of the
 * staging directory (`<staging>.attempts`, which gc and doctor remove once this process is
 * gone) before the engine publishes, so a ghost's late writes land outside the entry.
 *
 * The engine's layout (store.ts, execute.ts): a job's workDir is `<staging>/work`, its outputs
 * lie under `<staging>/outputs`.
 */
import { existsSync } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import { dirname, isAbsolute, join, relative } from "node:path";
import { randomBytes } from "node:crypto";
import type { JobPath } from "../../engine/executor.ts";

export interface Attempt {
  readonly n: number;
  readonly dir: string;
  readonly script: string;
  readonly log: string;
  readonly exitCode: string;
  readonly outputs: string;
  readonly work: string;
  readonly spec: string;
  readonly result: string;
}

/** Where the attempts of a job with this workDir live. */
export const attemptsRoot = (workDir: string): string => join(workDir, "slurm");

export function attemptPaths(workDir: string, n: number): Attempt {
  const dir = join(attemptsRoot(workDir), String(n));
  return {
    n,
    dir,
    script: join(dir, "job.sh"),
    log: join(dir, "job.log"),
    exitCode: join(dir, "exitcode"),
    outputs: join(dir, "outputs"),
    work: join(dir, "work"),
    spec: join(dir, "spec.json"),
    result: join(dir, "result.json"),
  };
}

/** The staging directory's outputs/ for a job (the engine's layout, checked). */
export function stagingOutputs(workDir: string, outputs: Readonly<Record<string, JobPath>>): string {
  const root = join(dirname(workDir), "outputs");
  for (const [name, o] of Object.entries(outputs)) {
    const rel = relative(root, o.path);
    if (rel.startsWith("..") || isAbsolute(rel)) throw new Error(`output ${name} (${o.path}) is not under ${root}: the Slurm executor expects the engine's staging layout`);
  }
  return root;
}

/** Each output's path inside an attempt. */
export function attemptOutputs(a: Attempt, workDir: string, outputs: Readonly<Record<string, JobPath>>): Record<string, JobPath> {
  const root = stagingOutputs(workDir, outputs);
  return Object.fromEntries(Object.entries(outputs).map(([name, o]) => [name, { path: join(a.outputs, relative(root, o.path)), dir: o.dir }]));
}

/** Create the attempt's directories, with each directory output and each file output's parent in place (as the engine does). */
export async function prepareAttempt(a: Attempt, outputs: Readonly<Record<string, JobPath>>): Promise<void> {
  await mkdir(a.work, { recursive: true });
  await mkdir(a.outputs, { recursive: true });
  for (const o of Object.values(outputs)) await mkdir(o.dir ? o.path : dirname(o.path), { recursive: true });
}

/** The successful attempt's outputs become the staging directory's. */
export async function adoptOutputs(a: Attempt, workDir: string, outputs: Readonly<Record<string, JobPath>>): Promise<void> {
  const root = stagingOutputs(workDir, outputs);
  await rm(root, { recursive: true, force: true });
  await rename(a.outputs, root);
}

/** Move every attempt out of the staging directory, then remove them (what a ghost still writes is removed by gc later). */
export async function retireAttempts(workDir: string): Promise<void> {
  const from = attemptsRoot(workDir);
  if (!existsSync(from)) return;
  const to = `${dirname(workDir)}.attempts-${randomBytes(3).toString("hex")}`;
  await rename(from, to);
  await rm(to, { recursive: true, force: true, maxRetries: 2 }).catch(() => undefined);
}

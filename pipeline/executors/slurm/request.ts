/**
 * A step's resources as a Slurm request (pure): the cluster's per-step-id overrides
 * (cspipe.slurm.json `resources`) over the step's own, memory in MiB, the time limit as the
 * expected minutes times the time factor, GPUs from the runtime. Then the `#SBATCH` lines
 * and the one-line summary `plan --executor slurm` prints.
 */
import type { Resources } from "../../engine/resources.ts";
import type { SlurmSettings } from "./config.ts";

export interface SlurmRequest {
  readonly cpus: number;
  readonly memMiB: number;
  /** 0: no --gres. "all": every GPU of a node (resolved against the partition by the cluster check). */
  readonly gpus: number | "all";
  readonly timeMinutes: number;
  /** The expected minutes and factor the time limit was computed from (for the TIMEOUT message). */
  readonly expectedMinutes: number;
  readonly timeFactor: number;
  /** Whether the cluster's config file replaced the step's own values. */
  readonly overridden: boolean;
}

export function slurmRequest(stepId: string, r: Resources, settings: Pick<SlurmSettings, "resources" | "timeFactor">, gpusWanted = true): SlurmRequest {
  const o = settings.resources[stepId] ?? {};
  const cpus = o.cpus ?? r.cpus;
  const memoryGiB = o.memoryGiB ?? r.memoryGiB;
  const expectedMinutes = o.expectedMinutes ?? r.expectedMinutes;
  return {
    cpus,
    memMiB: Math.ceil(memoryGiB * 1024),
    gpus: gpusWanted ? r.gpus : 0,
    timeMinutes: Math.max(1, Math.ceil(expectedMinutes * settings.timeFactor)),
    expectedMinutes,
    timeFactor: settings.timeFactor,
    overridden: settings.resources[stepId] !== undefined,
  };
}

/** Slurm's D-HH:MM:SS (minutes are its granularity). */
export function formatSlurmTime(minutes: number): string {
  const d = Math.floor(minutes / 1440);
  const h = Math.floor((minutes % 1440) / 60);
  const m = minutes % 60;
  const hms = `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}:00`;
  return d > 0 ? `${d}-${hms}` : hms;
}

/** Where a job goes and who pays: partition, account, qos and extra flags. */
export function placementFlags(settings: Pick<SlurmSettings, "partition" | "account" | "qos" | "extra">): string[] {
  const out: string[] = [];
  if (settings.partition !== undefined) out.push(`--partition=${settings.partition}`);
  if (settings.account !== undefined) out.push(`--account=${settings.account}`);
  if (settings.qos !== undefined) out.push(`--qos=${settings.qos}`);
  out.push(...settings.extra);
  return out;
}

/** One sbatch flag per resource (`gpusPerJob`: the resolved count for "all"). */
export function resourceFlags(req: SlurmRequest, gpusPerJob: number): string[] {
  const out = ["--nodes=1", "--ntasks=1", `--cpus-per-task=${req.cpus}`, `--mem=${req.memMiB}M`, `--time=${formatSlurmTime(req.timeMinutes)}`];
  if (gpusPerJob > 0) out.push(`--gres=gpu:${gpusPerJob}`);
  return out;
}

/** "cpus 4, mem 16G, gpu 1, time 02:00:00 (expected 60 min x 2)" */
export function describeRequest(req: SlurmRequest): string {
  const mem = req.memMiB % 1024 === 0 ? `${req.memMiB / 1024}G` : `${req.memMiB}M`;
  const gpu = req.gpus === 0 ? "" : `, gpu ${req.gpus}`;
  const time = `time ${formatSlurmTime(req.timeMinutes)} (expected ${req.expectedMinutes} min x ${req.timeFactor})`;
  return `cpus ${req.cpus}, mem ${mem}${gpu}, ${time}${req.overridden ? " [cspipe.slurm.json]" : ""}`;
}

/**
 * The command line of `--executor slurm` (run, plan and the default command): where jobs go
 * (`--slurm-partition`, `--slurm-account`, `--slurm-qos`, `--slurm-extra`) and how long they may
 * take (`--slurm-time-factor`). They override cspipe.slurm.json (pipeline/executors/slurm/config.ts).
 */
import { InvalidArgumentError, Option, type Command } from "commander";
import { EXECUTOR_CHOICES } from "../executors/index.ts";
import type { SlurmFlags } from "../executors/slurm/config.ts";
import { repeatable } from "./repeatable.ts";

/** `--executor <name>` with every executor; `what` says what it decides for this command. */
export function executorOption(what: string): Option {
  return new Option("--executor <name>", what).choices(EXECUTOR_CHOICES).default("auto");
}

export interface SlurmOptionValues {
  slurmPartition?: string;
  slurmAccount?: string;
  slurmQos?: string;
  slurmExtra: string[];
  slurmTimeFactor?: number;
}

function factor(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 1) throw new InvalidArgumentError("must be a number >= 1");
  return n;
}

export function addSlurmOptions(c: Command): Command {
  return c
    .option("--slurm-partition <name>", "--executor slurm: partition(s) for the jobs (default: cspipe.slurm.json's, else the cluster's default)")
    .option("--slurm-account <name>", "--executor slurm: account the jobs are charged to")
    .option("--slurm-qos <name>", "--executor slurm: quality of service of the jobs")
    .option("--slurm-extra <flag>", "--executor slurm: one more sbatch flag for every job, e.g. --slurm-extra=--constraint=a100 (repeatable)", repeatable, [] as string[])
    .option("--slurm-time-factor <x>", "--executor slurm: a job's time limit is its step's expected minutes times this (default 2)", factor);
}

/** `{ slurm: flags }` for a run or plan request, or nothing when no --slurm-* flag was given. */
export function withSlurmFlags(v: SlurmOptionValues): { slurm?: SlurmFlags } {
  const flags = slurmFlags(v);
  return flags === undefined ? {} : { slurm: flags };
}

function slurmFlags(v: SlurmOptionValues): SlurmFlags | undefined {
  const flags: SlurmFlags = {
    ...(v.slurmPartition !== undefined ? { partition: v.slurmPartition } : {}),
    ...(v.slurmAccount !== undefined ? { account: v.slurmAccount } : {}),
    ...(v.slurmQos !== undefined ? { qos: v.slurmQos } : {}),
    ...(v.slurmExtra.length > 0 ? { extra: v.slurmExtra } : {}),
    ...(v.slurmTimeFactor !== undefined ? { timeFactor: v.slurmTimeFactor } : {}),
  };
  return Object.keys(flags).length > 0 ? flags : undefined;
}

/**
 * What the Slurm executor is told: `cspipe.slurm.json` in the project root (or the file
 * CSPIPE_SLURM_CONFIG names), overridden by the command line (`--slurm-partition`, ...).
 * Validated with zod; every error names the file, the field and the fix. Pure but for reading
 * the file (`readSlurmConfig`).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";

export const SLURM_CONFIG_FILE = "cspipe.slurm.json";

const stepResources = z
  .object({
    cpus: z.number().int().min(1).optional(),
    memoryGiB: z.number().positive().optional(),
    expectedMinutes: z.number().positive().optional(),
  })
  .strict();

/** The file's schema: every field optional. */
export const slurmConfigSchema = z
  .object({
    /** Partition(s) jobs go to (sbatch --partition; a comma list lets Slurm pick). Default: the cluster's default partition. */
    partition: z.string().min(1).optional(),
    account: z.string().min(1).optional(),
    qos: z.string().min(1).optional(),
    /** Further sbatch flags, one per item, each an `#SBATCH` line (e.g. "--constraint=a100"). */
    extra: z.array(z.string().regex(/^--?[A-Za-z]/, "an sbatch flag starting with - or --").refine((s) => !/[\r\n]/.test(s), "one line")).optional(),
    /** A job's time limit is its step's expectedMinutes times this. */
    timeFactor: z.number().min(1).optional(),
    /** Seconds between two polls of the queue (one squeue for every job of the run). */
    pollSeconds: z.number().positive().optional(),
    /** How long a finished job's exit-code file may take to appear (NFS attribute caching). */
    exitFileGraceSeconds: z.number().min(0).optional(),
    /** Resubmissions of a step whose job ended NODE_FAIL, PREEMPTED or BOOT_FAIL (each on other nodes). */
    nodeFailureRetries: z.number().int().min(0).optional(),
    /** Retries of an sbatch that cannot reach the controller, with doubling waits from submitBackoffSeconds. */
    submitRetries: z.number().int().min(0).optional(),
    submitBackoffSeconds: z.number().positive().optional(),
    /** Per step id: resources that replace the steps' own on this cluster (never part of a key). */
    resources: z.record(z.string().regex(/^[a-z0-9][a-z0-9-]*$/, "a step id (kebab-case)"), stepResources).optional(),
  })
  .strict();

export type SlurmConfigFile = z.output<typeof slurmConfigSchema>;

/** Options from the command line; they override the file. */
export interface SlurmFlags {
  readonly partition?: string;
  readonly account?: string;
  readonly qos?: string;
  readonly extra?: readonly string[];
  readonly timeFactor?: number;
}

export interface SlurmSettings {
  readonly partition?: string;
  readonly account?: string;
  readonly qos?: string;
  readonly extra: readonly string[];
  readonly timeFactor: number;
  readonly pollMs: number;
  readonly exitFileGraceMs: number;
  readonly nodeFailureRetries: number;
  readonly submitRetries: number;
  readonly submitBackoffMs: number;
  readonly resources: Readonly<Record<string, z.output<typeof stepResources>>>;
  /** Where the settings came from (for messages): the file, or "defaults". */
  readonly source: string;
}

export const DEFAULTS = { timeFactor: 2, pollSeconds: 2, exitFileGraceSeconds: 60, nodeFailureRetries: 2, submitRetries: 6, submitBackoffSeconds: 2 } as const;

/** The file's path: CSPIPE_SLURM_CONFIG, else cspipe.slurm.json in the project root. */
export function slurmConfigPath(root: string, env: Readonly<Record<string, string | undefined>>): string {
  return env.CSPIPE_SLURM_CONFIG ?? join(root, SLURM_CONFIG_FILE);
}

/** Parse the file's text: the config, or one message per problem naming the file, the field and the fix. */
export function parseSlurmConfig(text: string, file: string): { ok: true; config: SlurmConfigFile } | { ok: false; errors: string[] } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { ok: false, errors: [`${file}: not JSON (${(e as Error).message}). Fix: write one JSON object, e.g. {"partition": "gpu", "account": "my-lab"}`] };
  }
  const r = slurmConfigSchema.safeParse(json);
  if (r.success) return { ok: true, config: r.data };
  const fields = Object.keys(slurmConfigSchema.shape).join(", ");
  return {
    ok: false,
    errors: r.error.issues.map((i) => {
      const field = i.path.length > 0 ? i.path.join(".") : "(top level)";
      const fix = i.code === "unrecognized_keys" ? `remove it or use one of ${fields}` : `give ${field} a valid value (pipeline/executors/slurm/config.ts documents each field)`;
      return `${file}: field '${field}': ${i.message}. Fix: ${fix}`;
    }),
  };
}

/** The file at `path` (absent: empty config). */
export function readSlurmConfig(path: string): { ok: true; config: SlurmConfigFile; found: boolean } | { ok: false; errors: string[] } {
  if (!existsSync(path)) return { ok: true, config: {}, found: false };
  const r = parseSlurmConfig(readFileSync(path, "utf8"), path);
  return r.ok ? { ...r, found: true } : r;
}

/** File and flags merged over the defaults (flags win). */
export function slurmSettings(file: SlurmConfigFile, flags: SlurmFlags, source: string): SlurmSettings {
  const pick = <T>(flag: T | undefined, fromFile: T | undefined): T | undefined => flag ?? fromFile;
  const partition = pick(flags.partition, file.partition);
  const account = pick(flags.account, file.account);
  const qos = pick(flags.qos, file.qos);
  return {
    ...(partition !== undefined ? { partition } : {}),
    ...(account !== undefined ? { account } : {}),
    ...(qos !== undefined ? { qos } : {}),
    extra: [...(file.extra ?? []), ...(flags.extra ?? [])],
    timeFactor: flags.timeFactor ?? file.timeFactor ?? DEFAULTS.timeFactor,
    pollMs: 1000 * (file.pollSeconds ?? DEFAULTS.pollSeconds),
    exitFileGraceMs: 1000 * (file.exitFileGraceSeconds ?? DEFAULTS.exitFileGraceSeconds),
    nodeFailureRetries: file.nodeFailureRetries ?? DEFAULTS.nodeFailureRetries,
    submitRetries: file.submitRetries ?? DEFAULTS.submitRetries,
    submitBackoffMs: 1000 * (file.submitBackoffSeconds ?? DEFAULTS.submitBackoffSeconds),
    resources: file.resources ?? {},
    source,
  };
}

/** Problems with command-line flags (the same rules as the file's). */
export function flagProblems(flags: SlurmFlags): string[] {
  const out: string[] = [];
  for (const x of flags.extra ?? []) {
    if (!/^--?[A-Za-z]/.test(x) || /[\r\n]/.test(x)) out.push(`--slurm-extra '${x}': expected one sbatch flag starting with - or -- (e.g. --slurm-extra=--constraint=a100). Fix: pass each flag with its own --slurm-extra`);
  }
  if (flags.timeFactor !== undefined && !(Number.isFinite(flags.timeFactor) && flags.timeFactor >= 1)) {
    out.push(`--slurm-time-factor ${flags.timeFactor}: expected a number >= 1. Fix: e.g. --slurm-time-factor 4 for time limits of 4x each step's expected minutes`);
  }
  return out;
}

/**
 * Slurm's command-line clients through execFile (never a shell): sbatch, squeue, sacct,
 * scancel, sinfo. They find the cluster the way a user's shell does (SLURM_CONF, else
 * /etc/slurm/slurm.conf). Parsing is queue.ts's and cluster.ts's; retries of a controller that
 * cannot be reached are here (`withRetries`, a pure loop over an injectable sleep).
 */
import { execFile } from "node:child_process";
import { isTransient, parseSacct, parseSqueue, SACCT_FIELDS, SQUEUE_FORMAT, type JobState } from "./queue.ts";
import { SINFO_ARGS } from "./cluster.ts";

export interface CommandResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Set when the program could not be started at all (ENOENT: not installed). */
  readonly spawnError?: string;
}

export type RunCommand = (file: string, args: readonly string[], options?: { env?: Readonly<Record<string, string>> }) => Promise<CommandResult>;

/** The real clients: 60 s each at most (a controller that hangs is a transient error). */
export const execFileCommand: RunCommand = (file, args, options = {}) =>
  new Promise((resolve) => {
    execFile(file, [...args], { encoding: "utf8", timeout: 60_000, maxBuffer: 64 * 1024 * 1024, ...(options.env ? { env: options.env } : {}) }, (err, stdout, stderr) => {
      const e = err as (NodeJS.ErrnoException & { code?: number | string; killed?: boolean }) | null;
      if (e && typeof e.code === "string") resolve({ code: null, stdout: "", stderr: String(stderr), spawnError: e.code });
      else if (e && e.killed) resolve({ code: null, stdout: String(stdout), stderr: `${String(stderr)}\n${file} timed out after 60 s (Socket timed out)` });
      else resolve({ code: e ? Number(e.code ?? 1) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
  });

export const describeResult = (file: string, r: CommandResult): string =>
  r.spawnError !== undefined ? `${file} could not be run (${r.spawnError}): is slurm-client installed and on PATH?` : `${file} exited ${r.code}: ${(r.stderr || r.stdout).trim().split("\n").slice(-3).join(" / ")}`;

export interface RetryOptions {
  readonly retries: number;
  /** The first wait; each next one doubles. */
  readonly backoffMs: number;
  readonly signal?: AbortSignal;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Told before each wait: the attempt that failed, the wait, the error. */
  readonly onRetry?: (attempt: number, waitMs: number, stderr: string) => void;
}

const defaultSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(t), resolve()), { once: true });
  });

/** Run `attempt` until it succeeds or fails for a reason other than a transient controller error, at most 1 + retries times. */
export async function withRetries(attempt: () => Promise<CommandResult>, o: RetryOptions): Promise<CommandResult> {
  const sleep = o.sleep ?? defaultSleep;
  let wait = o.backoffMs;
  for (let i = 1; ; i++) {
    const r = await attempt();
    if (r.code === 0 || r.spawnError !== undefined || i > o.retries || o.signal?.aborted || !isTransient(r.stderr)) return r;
    o.onRetry?.(i, wait, r.stderr.trim());
    await sleep(wait, o.signal);
    if (o.signal?.aborted) return r;
    wait *= 2;
  }
}

/** `sbatch --parsable <script>`: the job id ("123", or "123;cluster"). */
export function parseSbatchId(stdout: string): string | undefined {
  const m = /^(\d+)(?:;\S+)?\s*$/.exec(stdout.trim());
  return m?.[1];
}

export interface SlurmClients {
  submit(script: string, exportFlag: string, env: Readonly<Record<string, string>>, retry: RetryOptions): Promise<{ ok: true; id: string } | { ok: false; message: string }>;
  /** squeue's view of these jobs (jobs it no longer knows are absent); undefined when squeue itself failed. */
  queue(ids: readonly string[]): Promise<JobState[] | { error: string }>;
  /** sacct's (absent when accounting is off); `names` select this run's jobs among older ones with the same ids. */
  accounting(ids: readonly string[]): Promise<JobState[] | { error: string }>;
  cancel(ids: readonly string[]): Promise<CommandResult>;
  sinfo(): Promise<CommandResult>;
}

export function slurmClients(run: RunCommand = execFileCommand): SlurmClients {
  return {
    async submit(script, exportFlag, env, retry) {
      const r = await withRetries(() => run("sbatch", ["--parsable", exportFlag, script], { env }), retry);
      const id = r.code === 0 ? parseSbatchId(r.stdout) : undefined;
      return id !== undefined ? { ok: true, id } : { ok: false, message: describeResult("sbatch", r) };
    },
    async queue(ids) {
      const r = await run("squeue", ["-h", "--states=all", "-j", ids.join(","), "-o", SQUEUE_FORMAT]);
      // Every id unknown (purged after MinJobAge): squeue says so and exits 1.
      if (r.code !== 0 && /Invalid job id/i.test(r.stderr)) return [];
      if (r.code !== 0) return { error: describeResult("squeue", r) };
      return parseSqueue(r.stdout);
    },
    async accounting(ids) {
      const r = await run("sacct", ["-X", "-n", "-P", "--starttime", "now-7days", "-j", ids.join(","), "-o", SACCT_FIELDS]);
      if (r.code !== 0) return { error: describeResult("sacct", r) };
      return parseSacct(r.stdout);
    },
    cancel: (ids) => run("scancel", [...ids]),
    sinfo: () => run("sinfo", [...SINFO_ARGS]),
  };
}

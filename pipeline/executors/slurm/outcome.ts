/**
 * How a step's Slurm job ended, as the step's failure (pure): what happened, naming the job,
 * its state and node, and what to change. A limit is the step's own failure (TIMEOUT says
 * which flag raises the limit, OUT_OF_MEMORY which field raises the memory); a node failure
 * that used up its resubmissions, a cancel by someone else, or an exit-code file that never
 * appeared say so.
 */
import type { JobEnd } from "./job.ts";
import type { SlurmRequest } from "./request.ts";
import { formatSlurmTime } from "./request.ts";
import { stateClass } from "./queue.ts";

export interface EndContext {
  readonly stepId: string;
  readonly request: SlurmRequest;
  /** The command, for a program that exited non-zero. */
  readonly command: string;
  readonly exitFileGraceMs: number;
}

const where = (nodes: string): string => (nodes ? ` on ${nodes}` : "");
const config = (stepId: string, field: string, value: number): string => `"resources": {"${stepId}": {"${field}": ${value}}} in cspipe.slurm.json`;

/** The failure of a job that did not end with exit status 0 (`exited` with 0 is success, not handled here). */
export function endFailure(end: Exclude<JobEnd, { kind: "cancelled" }>, c: EndContext): { message: string; fix?: string } {
  if (end.kind === "not-submitted") {
    return { message: `sbatch did not take the job: ${end.message}`, fix: "check the partition, account, qos and extra flags (--slurm-partition, --slurm-account, --slurm-qos, --slurm-extra or cspipe.slurm.json) and that this host can reach the controller (sinfo)" };
  }
  const j = end.job;
  const attempt = end.attempts > 1 ? `, attempt ${end.attempts}` : "";
  if (end.kind === "exited") return { message: `command exited with ${end.code} in Slurm job ${j.id} (${j.state}${where(j.nodes)}${attempt}): ${c.command}` };
  const r = c.request;
  switch (j.state === "VANISHED" ? "vanished" : stateClass(j.state)) {
    case "timeout":
      return {
        message: `Slurm job ${j.id} reached its time limit of ${formatSlurmTime(r.timeMinutes)}${where(j.nodes)} (TIMEOUT)`,
        fix: `raise the limit: --slurm-time-factor ${r.timeFactor * 2} (the limit is the step's expected ${r.expectedMinutes} min x ${r.timeFactor}), or ${config(c.stepId, "expectedMinutes", r.expectedMinutes * 2)}`,
      };
    case "out-of-memory":
      return {
        message: `Slurm job ${j.id} ran out of memory${where(j.nodes)} (OUT_OF_MEMORY) with --mem=${r.memMiB}M`,
        fix: `raise the memory: ${config(c.stepId, "memoryGiB", Math.ceil((2 * r.memMiB) / 1024))}`,
      };
    case "cancelled":
      return { message: `Slurm job ${j.id} ended ${j.state}${j.reason ? ` (${j.reason})` : ""}${where(j.nodes)}, not by this run`, fix: "run again; if a limit or an administrator cancels it, ask them why (sacct -j " + j.id + ")" };
    case "retry":
      return {
        message: `Slurm job ${j.id} ended ${j.state}${where(j.nodes)} after ${end.attempts} attempts (nodes excluded: ${end.excluded.join(",") || "none"})`,
        fix: "check the nodes (sinfo -R), or allow more resubmissions with \"nodeFailureRetries\" in cspipe.slurm.json",
      };
    case "vanished":
      return {
        message: `Slurm job ${j.id} disappeared: ${j.reason}, and it left no exit-code file (${end.attempt.exitCode})`,
        fix: "turn accounting on (slurmdbd) so sacct knows finished jobs, or poll more often than MinJobAge (\"pollSeconds\" in cspipe.slurm.json)",
      };
    default:
      return {
        message: `Slurm job ${j.id} ended ${j.state}${where(j.nodes)}, but its exit-code file ${end.attempt.exitCode} did not appear within ${c.exitFileGraceMs / 1000} s`,
        fix: "the store must be on a filesystem the nodes share with this host (README, \"Running on a Slurm cluster\"); the job's own output is in the log; on a slow NFS raise \"exitFileGraceSeconds\" in cspipe.slurm.json",
      };
  }
}

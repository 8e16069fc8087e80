/**
 * Job states as Slurm 22.05 prints them in its text formats (pure): squeue's and sacct's
 * lines parsed, each state put in its class. The JSON outputs are not used: in 22.05 `squeue
 * --json` ignores `-j` and reports raw wait statuses, `sacct --json` reported SUCCESS for a
 * job that exited 5 (/work/shared/docs/slurm-notes.md).
 */

/** `squeue -h --states=all -j <ids> -o '%i|%T|%r|%N'`: id, state, reason, nodes. */
export const SQUEUE_FORMAT = "%i|%T|%r|%N";
/** `sacct -X -n -P -j <ids> -o ...`: one allocation line per job. */
export const SACCT_FIELDS = "JobIDRaw,JobName,State,ExitCode,NodeList";

export interface JobState {
  readonly id: string;
  /** The state's name without qualifiers ("CANCELLED by 0" -> "CANCELLED"). */
  readonly state: string;
  /** squeue's reason (why pending), or sacct's "CANCELLED by <uid>" qualifier. */
  readonly reason: string;
  /** Node list ("" or "(null)" while pending: ""). */
  readonly nodes: string;
  /** sacct's ExitCode "code:signal". */
  readonly exit?: { readonly code: number; readonly signal: number };
  /** sacct's JobName (to tell this cluster's job from an older one with the same id). */
  readonly name?: string;
}

const nodesOf = (s: string | undefined): string => (s === undefined || s === "(null)" || s === "None assigned" ? "" : s.trim());

export function parseSqueue(text: string): JobState[] {
  const out: JobState[] = [];
  for (const line of text.split("\n")) {
    const f = line.trim().split("|");
    if (f.length < 4 || !/^\d+$/.test(f[0]!)) continue;
    out.push({ id: f[0]!, state: f[1]!.split(" ")[0]!, reason: f[2] === "None" ? "" : f[2]!, nodes: nodesOf(f[3]) });
  }
  return out;
}

export function parseSacct(text: string): JobState[] {
  const out: JobState[] = [];
  for (const line of text.split("\n")) {
    const f = line.trim().split("|");
    if (f.length < 5 || !/^\d+$/.test(f[0]!)) continue;
    const [state, ...qual] = f[2]!.split(" ");
    const m = /^(\d+):(\d+)$/.exec(f[3]!);
    out.push({ id: f[0]!, name: f[1]!, state: state!, reason: qual.join(" "), nodes: nodesOf(f[4]), ...(m ? { exit: { code: Number(m[1]), signal: Number(m[2]) } } : {}) });
  }
  return out;
}

export type StateClass =
  | "pending"
  | "running"
  /** Ended on its own: COMPLETED, FAILED. The exit-code file says how the program ended. */
  | "ended"
  /** Ended by a limit: the step's failure, and the fix is a bigger request. */
  | "out-of-memory"
  | "timeout"
  /** Ended by someone or something else: scancel, a deadline. */
  | "cancelled"
  /** The node failed or the job was preempted: run it again elsewhere. */
  | "retry";

const CLASSES: Readonly<Record<string, StateClass>> = {
  PENDING: "pending",
  REQUEUED: "pending",
  REQUEUE_FED: "pending",
  REQUEUE_HOLD: "pending",
  RESV_DEL_HOLD: "pending",
  CONFIGURING: "running",
  RUNNING: "running",
  COMPLETING: "running",
  SIGNALING: "running",
  STAGE_OUT: "running",
  SUSPENDED: "running",
  STOPPED: "running",
  RESIZING: "running",
  COMPLETED: "ended",
  FAILED: "ended",
  OUT_OF_MEMORY: "out-of-memory",
  TIMEOUT: "timeout",
  CANCELLED: "cancelled",
  DEADLINE: "cancelled",
  REVOKED: "cancelled",
  SPECIAL_EXIT: "cancelled",
  NODE_FAIL: "retry",
  PREEMPTED: "retry",
  BOOT_FAIL: "retry",
};

/** A state's class; a state this table does not know counts as running (it is reported as is). */
export function stateClass(state: string): StateClass {
  return CLASSES[state] ?? "running";
}

export const isFinal = (state: string): boolean => !["pending", "running"].includes(stateClass(state));

/** The queue line a reporter shows: "pending (Resources)" / "running on n2 (job 12)". */
export function queueDetail(s: JobState): { state: "pending" | "running"; detail: string } | undefined {
  const c = stateClass(s.state);
  if (c === "pending") return { state: "pending", detail: `job ${s.id} ${s.state.toLowerCase()}${s.reason ? ` (${s.reason})` : ""}` };
  if (c === "running") return { state: "running", detail: `job ${s.id} ${s.state === "RUNNING" ? "running" : s.state.toLowerCase()}${s.nodes ? ` on ${s.nodes}` : ""}` };
  return undefined;
}

/** Messages of sbatch (and the other clients) that mean the controller could not be reached: retry later. */
const TRANSIENT = [
  /Unable to contact slurm controller/i,
  /Socket timed out/i,
  /Slurm temporarily unable to accept job/i,
  /Resource temporarily unavailable/i,
  /Zero Bytes were transmitted or received/i,
  /Connection refused/i,
  /slurm_persist_conn_open.*failed/i,
  /Job submit\/allocate failed: Slurm controller is (busy|unavailable)/i,
];

export function isTransient(stderr: string): boolean {
  return TRANSIENT.some((r) => r.test(stderr));
}

/**
 * Process identity on this host: a pid alone is reused by the kernel, so a holder is
 * recorded as (pid, start time), read from /proc/<pid>/stat (field 22, clock ticks since
 * boot) together with the boot id. A recorded process is alive only if a process with that
 * pid exists *and* started at the recorded time in this boot. Where /proc is absent
 * (macOS), the start time is undefined and liveness falls back to the pid.
 */
import { readFileSync } from "node:fs";
import { hostname } from "node:os";

export interface ProcessIdentity {
  readonly pid: number;
  readonly host: string;
  /** /proc/<pid>/stat starttime, as a decimal string; absent where /proc is not available. */
  readonly start?: string;
  /** /proc/sys/kernel/random/boot_id; start times are only comparable within one boot. */
  readonly boot?: string;
}

/** Field 22 (starttime) of /proc/<pid>/stat; undefined if the process does not exist or there is no /proc. */
export function processStartTime(pid: number): string | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // comm (field 2) is in parentheses and may contain spaces or ')': split after the last ')'.
  const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // rest[0] is field 3 (state); starttime is field 22, i.e. rest[19].
  const state = rest[0];
  if (state === "Z" || state === "X") return undefined; // exited, not yet reaped
  return rest[19];
}

let bootCache: string | null | undefined;
export function bootId(): string | undefined {
  if (bootCache === undefined) {
    try {
      bootCache = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    } catch {
      bootCache = null;
    }
  }
  return bootCache ?? undefined;
}

let selfCache: ProcessIdentity | undefined;
/** This process. */
export function selfIdentity(): ProcessIdentity {
  if (selfCache?.pid !== process.pid) {
    const start = processStartTime(process.pid);
    const boot = bootId();
    selfCache = { pid: process.pid, host: hostname(), ...(start !== undefined ? { start } : {}), ...(boot !== undefined ? { boot } : {}) };
  }
  return selfCache;
}

/** Does a process with this pid exist (any owner)? */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * For an identity recorded on this host: "alive", "dead", or "unknown" (another host:
 * the caller decides by a heartbeat).
 */
export function processState(id: Pick<ProcessIdentity, "pid" | "host" | "start" | "boot">): "alive" | "dead" | "unknown" {
  if (id.host !== hostname()) return "unknown";
  const boot = bootId();
  if (id.boot !== undefined && boot !== undefined && id.boot !== boot) return "dead"; // recorded before a reboot
  if (id.start !== undefined && boot !== undefined) return processStartTime(id.pid) === id.start ? "alive" : "dead";
  return pidAlive(id.pid) ? "alive" : "dead";
}

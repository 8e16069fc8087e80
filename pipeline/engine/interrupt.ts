/**
 * Stopping a run on SIGINT/SIGTERM (Ctrl-C, `kill`, a CI timeout) without turning it into a
 * crash. The first signal aborts the run's AbortSignal: the executors stop their children
 * (each container step runs in its own process group, which is signalled as a whole), no
 * new step starts, running steps are cancelled and their staging removed, leases are
 * released and the run record is written, marked interrupted; the CLI then exits with
 * 128 + the signal number (130 for SIGINT, 143 for SIGTERM).
 *
 * A second signal stops at once: every tracked process group gets SIGKILL, the hard-stop hooks
 * run (an executor's jobs elsewhere: a batch system's scancel), the leases this process holds
 * are removed synchronously, and the process exits. What that leaves (staging
 * of the steps that were running, an in-progress run record) is what a kill leaves, which
 * the next run, `gc` and `doctor` recognise by the dead pid.
 */
import { constants } from "node:os";
import { dropHeldLeasesSync } from "./lease.ts";

export type StopSignal = "SIGINT" | "SIGTERM";
const SIGNALS: readonly StopSignal[] = ["SIGINT", "SIGTERM"];

/** 128 + the signal's number: the shell's convention for "terminated by a signal". */
export function signalExitCode(signal: StopSignal): number {
  return 128 + constants.signals[signal];
}

const groups = new Set<number>();

/**
 * Track a child that leads its own process group (spawned with `detached: true`), so a hard
 * stop can kill it with everything it started. Returns the function that stops tracking it.
 */
export function trackProcessGroup(pid: number): () => void {
  groups.add(pid);
  return () => groups.delete(pid);
}

/** Send `signal` to every tracked process group (and the leader, should it have left its group). */
export function signalProcessGroups(signal: NodeJS.Signals): void {
  for (const pid of groups) killGroup(pid, signal);
}

export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      /* already gone */
    }
  }
}

const hardStopHooks = new Set<() => void>();

/** Run `hook` (synchronously) when a second signal stops the process at once; returns the function that removes it. */
export function onHardStop(hook: () => void): () => void {
  hardStopHooks.add(hook);
  return () => hardStopHooks.delete(hook);
}

/** The hooks, each once; one that throws does not keep the others from running. */
export function runHardStopHooks(): void {
  for (const h of [...hardStopHooks]) {
    try {
      h();
    } catch {
      /* stopping anyway */
    }
  }
}

export interface Interrupt {
  /** Aborted (with the signal's name as its reason) at the first SIGINT or SIGTERM. */
  readonly signal: AbortSignal;
  /** The first signal received, if any. */
  received(): StopSignal | undefined;
  /** Remove the handlers (the default behaviour of the signals returns). */
  dispose(): void;
}

export interface InterruptOptions {
  /** Called at the first signal (e.g. to tell the user that a second one kills at once). */
  readonly onFirst?: (signal: StopSignal) => void;
  /** How the second signal ends the process (tests replace it). Default: process.exit. */
  readonly exit?: (code: number) => void;
}

export function installInterruptHandlers(options: InterruptOptions = {}): Interrupt {
  const controller = new AbortController();
  let first: StopSignal | undefined;
  const handlers = new Map<StopSignal, () => void>();
  for (const sig of SIGNALS) {
    const handler = () => {
      if (first === undefined) {
        first = sig;
        options.onFirst?.(sig);
        controller.abort(sig);
        return;
      }
      signalProcessGroups("SIGKILL");
      runHardStopHooks();
      dropHeldLeasesSync();
      (options.exit ?? ((code: number) => process.exit(code)))(signalExitCode(first));
    };
    handlers.set(sig, handler);
    process.on(sig, handler);
  }
  return {
    signal: controller.signal,
    received: () => first,
    dispose: () => {
      for (const [sig, h] of handlers) process.off(sig, h);
      handlers.clear();
    },
  };
}

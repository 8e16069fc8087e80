/**
 * Where a command's time goes, for the engine benchmark (bench/engine/noop.ts): each phase ends
 * with a User Timing mark (`cspipe:<phase>`, its detail the process's CPU milliseconds so far),
 * so the launcher (scripts/launch.mjs), the CLI and the session mark one shared timeline. With
 * `CSPIPE_PHASES=<file>` the CLI writes the marks there when the process exits; without it the
 * marks cost a few microseconds each and are never read.
 */
import { writeFileSync } from "node:fs";
import type { PerformanceMark } from "node:perf_hooks";

const PREFIX = "cspipe:";

/** One phase boundary: milliseconds since the process's time origin, and CPU milliseconds (user + system) used by then. */
export interface PhaseMark {
  readonly name: string;
  readonly atMs: number;
  readonly cpuMs: number;
}

export interface PhaseReport {
  readonly marks: readonly PhaseMark[];
  /** Time spent hashing source closures (SourceScanner), inside the phases it happened in. */
  readonly fingerprintMs: number;
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** The end of phase `name`. */
export function markPhase(name: string): void {
  performance.mark(`${PREFIX}${name}`, { detail: cpuMs() });
}

/** The marks so far, in time order (the launcher's included). */
export function phaseMarks(): PhaseMark[] {
  return (performance.getEntriesByType("mark") as PerformanceMark[])
    .filter((m) => m.name.startsWith(PREFIX))
    .map((m) => ({ name: m.name.slice(PREFIX.length), atMs: m.startTime, cpuMs: typeof m.detail === "number" ? m.detail : Number.NaN }))
    .sort((a, b) => a.atMs - b.atMs);
}

/** With CSPIPE_PHASES set, write the marks and `fingerprintMs()`'s answer to that file when the process exits. */
export function writePhasesOnExit(env: Readonly<Record<string, string | undefined>>, fingerprintMs: () => number): void {
  const file = env.CSPIPE_PHASES;
  if (!file) return;
  process.on("exit", () => {
    markPhase("exit");
    const report: PhaseReport = { marks: phaseMarks(), fingerprintMs: fingerprintMs() };
    writeFileSync(file, `${JSON.stringify(report)}\n`);
  });
}

/** Plain lines, for CI logs and pipes. */
import type { EngineEvent } from "../engine/events.ts";
import { describeFailure, describeFailures } from "../engine/failures.ts";
import { metricsLine, overallLine } from "./overall.ts";

/** `error`: where the refusals before a run go (stderr; default: `write`). */
export function plainReporter(write: (line: string) => void, options: { verbose?: boolean; error?: (line: string) => void } = {}): (e: EngineEvent) => void {
  const lastPct = new Map<string, number>();
  return (e) => {
    switch (e.type) {
      case "cache-hit":
        if (options.verbose) write(`cached    ${e.step} ${e.key.slice(0, 12)}`);
        break;
      case "waiting":
        write(`waiting   ${e.step}: another run holds its lease${e.holder ? ` (${e.holder})` : ""}`);
        break;
      case "started":
        write(`run       ${e.step} ${e.key.slice(0, 12)}`);
        break;
      case "progress": {
        if (e.total === undefined || e.total === 0) break;
        const pct = Math.floor((100 * e.done) / e.total / 25) * 25;
        if (pct > (lastPct.get(e.step) ?? -1) && pct > 0) {
          lastPct.set(e.step, pct);
          write(`progress  ${e.step} ${pct}% (${e.done}/${e.total}${e.label ? ` ${e.label}` : ""})`);
        }
        break;
      }
      case "metrics":
        write(`epoch     ${e.step} ${metricsLine(e)}`);
        break;
      case "queue":
        write(`${e.state.padEnd(10)}${e.step}: ${e.detail}`);
        break;
      case "log":
        if (options.verbose) write(`  ${e.step} | ${e.line}`);
        break;
      case "tampered":
        write(`tampered  ${e.step} ${e.key.slice(0, 12)}: outputs ${e.outputs.join(", ")} changed on disk; recomputing`);
        break;
      case "succeeded":
        write(`${e.reused ? "reused " : "done   "}   ${e.step} ${e.key.slice(0, 12)}${e.reused ? " (computed by another run)" : ` in ${e.seconds.toFixed(1)} s`}`);
        break;
      case "failed":
        if (e.failure.reason !== "cancelled") write(`FAILED    ${describeFailure(e.failure)}`);
        break;
      case "analysis-failed":
        for (const line of describeFailures(e.failures)) (options.error ?? write)(line);
        break;
      case "finished":
        write(finishedLine(e));
        break;
      case "plan": {
        const count = (s: string) => e.steps.filter((x) => x.status === s).length;
        write(`plan      ${e.steps.length} steps: ${count("cached")} cached, ${count("run")} to run, ${count("pending")} waiting on those`);
        break;
      }
      case "numerics":
        for (const g of e.groups) write(`numerics  ${g.steps} program step${g.steps === 1 ? "" : "s"}: ${g.description}`);
        break;
      case "overall":
        if (e.trigger === "plan" || e.trigger === "succeeded" || e.trigger === "failed") write(`overall   ${overallLine(e)}`);
        break;
    }
  };
}

/** The last line of a run: ok, FAILED, or stopped by a signal (not a failure: what finished is kept). */
export function finishedLine(e: Extract<EngineEvent, { type: "finished" }>): string {
  const counts = `${e.executed} executed, ${e.cached} cached, ${e.failed} failed in ${e.seconds.toFixed(2)} s`;
  if (e.interrupted !== undefined) return `stopped by ${e.interrupted}: ${counts}; the steps that finished are kept, a rerun continues from them`;
  return `${e.ok ? "ok" : "FAILED"}: ${counts}`;
}

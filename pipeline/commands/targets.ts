/**
 * `targets`: every target with what a cold run of it costs on this data source (expected time with
 * 2 steps at once, from the reference run's durations, `?` where cost hints carry a quarter of it)
 * and whether its steps need a GPU, then its description. `*` marks the default target.
 */
import type { Command } from "commander";
import type { AnyStep } from "../engine/step.ts";
import type { Project } from "../session.ts";
import type { PlanRow } from "../engine/plan.ts";
import { formatDuration } from "../reporters/overall.ts";
import { planDocument, estimateNote } from "./plan.ts";

export interface TargetsCommandIO {
  readonly project: () => Promise<Project>;
  readonly out: (line: string) => void;
}

/** "needs a GPU" when a step requires one, "GPU optional" when steps use one if present, else "CPU". */
export function gpuNeed(steps: readonly AnyStep[]): string {
  const gpu = steps.flatMap((s) => (s.def.runtime.type === "container" && s.def.runtime.gpu !== undefined ? [s.def.runtime.gpu] : []));
  return gpu.some((g) => g.required) ? "needs a GPU" : gpu.length > 0 ? "GPU optional" : "CPU";
}

/** A target's cold-run estimate ("28:31", "2:54:54?") and GPU need; "-" when its graph cannot be built here. */
export async function targetCost(p: Project, name: string, concurrency = 2): Promise<{ time: string; gpu: string }> {
  let g;
  try {
    g = p.graph([name]);
  } catch {
    return { time: "-", gpu: "-" };
  }
  if (!g.ok) return { time: "-", gpu: "-" };
  const reference = p.targets.referenceCost(p.data);
  const estimates = { recorded: new Map<string, number>(), ...(reference !== undefined ? { reference } : {}) };
  // Cold: every step runs (no store is read).
  const rows: PlanRow[] = g.graph.order.map((s) => ({ step: s.name, stepId: s.def.id, status: "run" }));
  const doc = planDocument([name], g.graph, rows, estimates, concurrency);
  const guess = estimateNote(doc.summary.estimates).startsWith("(a guess");
  return { time: `${formatDuration(doc.summary.expectedSeconds)}${guess ? "?" : ""}`, gpu: gpuNeed(g.graph.order) };
}

export function registerTargetsCommand(program: Command, io: TargetsCommandIO): void {
  program
    .command("targets")
    .description("list targets (* = default) with a cold run's expected time and whether they need a GPU")
    .action(async () => {
      const p = await io.project();
      const rows: string[][] = [];
      for (const t of p.targets.list()) {
        const c = await targetCost(p, t.name);
        rows.push([t.name === p.targets.default ? "*" : " ", t.name, c.time, c.gpu, t.description]);
      }
      const w = [1, 2, 3].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
      for (const r of rows) io.out(`${r[0]} ${r[1]!.padEnd(w[0]!)}  ${r[2]!.padStart(w[1]!)}  ${r[3]!.padEnd(w[2]!)}  ${r[4]}`);
      io.out(`(--data ${p.data}; time: a cold run with 2 steps at once, from the reference run's step durations, ? where cost hints carry a quarter of it or more)`);
    });
}

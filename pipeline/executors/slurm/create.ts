/** `--executor slurm`: the settings from cspipe.slurm.json and the flags, then the executor (or why not). */
import type { AnalysisFailure } from "../../engine/failures.ts";
import type { ExecutorContext } from "../context.ts";
import { LocalExecutor } from "../local.ts";
import { flagProblems, readSlurmConfig, slurmConfigPath, slurmSettings } from "./config.ts";
import { SlurmExecutor } from "./executor.ts";

export async function createSlurmExecutor(env: Readonly<Record<string, string | undefined>>, ctx: ExecutorContext): Promise<SlurmExecutor | AnalysisFailure> {
  const run = ctx.run;
  if (run === undefined) return { reason: "executor-unavailable", executor: "slurm", detail: "it needs the run it serves (project root, store, targets): create it through the session" };
  const path = slurmConfigPath(run.root, env);
  const file = readSlurmConfig(path);
  const flags = ctx.slurm ?? {};
  const problems = [...(file.ok ? [] : file.errors), ...flagProblems(flags)];
  if (problems.length > 0 || !file.ok) return { reason: "executor-unavailable", executor: "slurm", detail: problems.join("\n  ") };
  const settings = slurmSettings(file.config, flags, file.found ? path : "defaults");
  return new SlurmExecutor({ env, settings, graph: run, local: ctx.local?.() ?? new LocalExecutor({ env }) });
}

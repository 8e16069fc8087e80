/** Executor registry and `--executor auto` selection. */
import type { Executor } from "../engine/executor.ts";
import type { AnalysisFailure } from "../engine/failures.ts";
import { LocalExecutor } from "./local.ts";
import type { ExecutorContext } from "./context.ts";

export type ExecutorChoice = "local" | "dagger" | "slurm" | "auto";
export const EXECUTOR_CHOICES: readonly ExecutorChoice[] = ["local", "dagger", "slurm", "auto"];

export function inDaggerSession(env: Readonly<Record<string, string | undefined>>): boolean {
  return Boolean(env.DAGGER_SESSION_PORT && env.DAGGER_SESSION_TOKEN);
}

type Env = Readonly<Record<string, string | undefined>>;
type Factory = (env: Env, ctx: ExecutorContext) => Promise<Executor | AnalysisFailure>;

const registry: Record<Exclude<ExecutorChoice, "auto">, Factory> = {
  local: async (env, ctx) => ctx.local?.() ?? new LocalExecutor({ env }),
  dagger: async (env) => {
    if (!inDaggerSession(env)) {
      return {
        reason: "executor-unavailable",
        executor: "dagger",
        detail:
          "not inside a Dagger session (DAGGER_SESSION_PORT and DAGGER_SESSION_TOKEN are unset). " +
          "Start one with 'dagger run ./cspipe run ...', or use --executor local.",
      };
    }
    // Loaded only when used: the SDK adapter is not needed by local runs.
    return (await import("./dagger.ts")).createDaggerExecutor(env);
  },
  slurm: async (env, ctx) => (await import("./slurm/create.ts")).createSlurmExecutor(env, ctx),
};

export async function createExecutor(choice: ExecutorChoice, env: Env, ctx: ExecutorContext = {}): Promise<Executor | AnalysisFailure> {
  const name = choice === "auto" ? (inDaggerSession(env) ? "dagger" : "local") : choice;
  return registry[name](env, ctx);
}

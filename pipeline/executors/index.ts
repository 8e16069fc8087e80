/** Executor registry and `--executor auto` selection. */
import type { Executor } from "../engine/executor.ts";
import type { AnalysisFailure } from "../engine/failures.ts";
import { LocalExecutor } from "./local.ts";

export type ExecutorChoice = "local" | "dagger" | "auto";

export function inDaggerSession(env: Readonly<Record<string, string | undefined>>): boolean {
  return Boolean(env.DAGGER_SESSION_PORT && env.DAGGER_SESSION_TOKEN);
}

/** What a factory may reuse: the project's local executor (its interpreter answers are remembered). */
export interface ExecutorContext {
  readonly local?: () => LocalExecutor;
}

type Factory = (env: Readonly<Record<string, string | undefined>>, ctx: ExecutorContext) => Promise<Executor | AnalysisFailure>;

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
};

export async function createExecutor(choice: ExecutorChoice, env: Readonly<Record<string, string | undefined>>, ctx: ExecutorContext = {}): Promise<Executor | AnalysisFailure> {
  const name = choice === "auto" ? (inDaggerSession(env) ? "dagger" : "local") : choice;
  return registry[name](env, ctx);
}

/**
 * Running an in-process step's body and telling how it ended, wherever it runs: in the
 * engine's process (execute.ts) or in a process a batch executor started on another machine
 * (pipeline/commands/exec-step.ts), which sends the same `BodyFailure` back as JSON.
 */
import type { InProcessRuntime, InputKinds, OutputDecls, StepContext } from "./step.ts";
import type { RunFailure } from "./failures.ts";
import { InputError } from "./errors.ts";
import { storeIoProblem } from "./store-errors.ts";

/** How a body failed: a run failure without the step and log, which the engine adds. */
export type BodyFailure =
  | { readonly reason: "bad-input"; readonly message: string; readonly file?: string; readonly line?: number; readonly field?: string; readonly fix?: string }
  | { readonly reason: "step-threw"; readonly message: string }
  | { readonly reason: "store-failed"; readonly code: string; readonly path: string; readonly message: string; readonly fix: string }
  | { readonly reason: "cancelled" };

/** `detail`: what the step's log gets about the failure (the input error's message, a stack). */
export type BodyOutcome = { readonly ok: true } | { readonly ok: false; readonly failure: BodyFailure; readonly detail?: string };

type AnyInProcess = InProcessRuntime<unknown, InputKinds, OutputDecls>;

/** Run `rt` with `ctx`; `storeRoot` tells a full disk or read-only store under the step's writes from the step's own bug. */
export async function runStepBody(rt: AnyInProcess, ctx: StepContext<unknown, InputKinds, OutputDecls>, storeRoot: string): Promise<BodyOutcome> {
  try {
    await rt.run(ctx);
  } catch (e) {
    if (ctx.signal.aborted) return { ok: false, failure: { reason: "cancelled" } };
    if (e instanceof InputError) {
      const f: { -readonly [K in keyof Extract<BodyFailure, { reason: "bad-input" }>]: Extract<BodyFailure, { reason: "bad-input" }>[K] } = { reason: "bad-input", message: e.message };
      if (e.file !== undefined) f.file = e.file;
      if (e.line !== undefined) f.line = e.line;
      if (e.field !== undefined) f.field = e.field;
      if (e.fix !== undefined) f.fix = e.fix;
      return { ok: false, failure: f, detail: e.message };
    }
    const io = storeIoProblem(e, storeRoot, true);
    if (io) return { ok: false, failure: { reason: "store-failed", code: io.code, path: io.path, message: io.message, fix: io.fix } };
    const err = e as Error;
    return { ok: false, failure: { reason: "step-threw", message: err.message ?? String(err) }, detail: err.stack ?? String(err) };
  }
  // A step whose work finished is published even if the run was stopped meanwhile: its outputs are
  // complete, and a rerun then starts from it. A step that observed the stop threw above (cancelled).
  return { ok: true };
}

/** The run failure of `step` for a body failure; `log` is the step's log. */
export function bodyRunFailure(f: BodyFailure, step: string, log: string): RunFailure {
  switch (f.reason) {
    case "cancelled":
      return { reason: "cancelled", step };
    case "store-failed":
      return { ...f, step };
    case "step-threw":
      return { ...f, step, log };
    case "bad-input":
      return { ...f, step, log };
  }
}

/**
 * Running a small graph built by a command on the user's files (`bm25`, `diagnose`) through the
 * engine, so its steps are cached in the store like any target's: the steps become the one target
 * of a registry, the session runs it (same store, leases, run records, reporters as `run`), and the
 * caller gets each step's entry back. Engine progress goes to stderr so stdout stays the command's.
 * Exit code: 0 ok, 2 analysis failure or bad input (a step threw an InputError), 1 other failures.
 */
import type { AnyStep, RunSettings } from "../engine/step.ts";
import type { Entry } from "../engine/store.ts";
import type { EventSink } from "../engine/events.ts";
import type { Project } from "../session.ts";

export interface StepRunIO {
  readonly stdout: { write(chunk: string): unknown };
  readonly stderr: { write(chunk: string): unknown; readonly isTTY?: boolean };
  readonly env: Readonly<Record<string, string | undefined>>;
}

export interface StepRunOptions {
  /** Store directory (default: $CSPIPE_STORE, else <project root>/artifacts). */
  readonly store?: string;
  /** Name of the graph in run records, e.g. "bm25-index". */
  readonly target: string;
  readonly json?: boolean;
  readonly verbose?: boolean;
  readonly concurrency?: number;
  /** --data-dir, --offline, --allow-unpinned for steps that fetch datasets.lock entries. */
  readonly settings?: RunSettings;
}

export type StepRunOutcome = { readonly exitCode: 0; readonly entries: ReadonlyMap<string, Entry> } | { readonly exitCode: 1 | 2 };

/** The project a command runs in: the checkout's root, the chosen store, no targets yet. */
export async function openProject(io: StepRunIO, store: string | undefined, steps: () => readonly AnyStep[], target: string): Promise<Project> {
  const { findProjectRoot } = await import("../engine/sources.ts");
  const { TargetRegistry } = await import("../engine/targets.ts");
  const { Project } = await import("../session.ts");
  const targets = new TargetRegistry().register({ name: target, description: `${target} command`, steps: () => steps() }, { default: true });
  return new Project({ root: findProjectRoot(), targets, env: io.env, ...(store !== undefined ? { store } : {}) });
}

async function reporter(io: StepRunIO, json: boolean, verbose: boolean): Promise<EventSink> {
  const line = (l: string): void => void io.stderr.write(`${l}\n`);
  if (json) return (await import("../reporters/json.ts")).jsonReporter(line);
  if (io.stderr.isTTY === true) return (await import("../reporters/tty.ts")).ttyReporter(io.stderr as NodeJS.WriteStream);
  return (await import("../reporters/plain.ts")).plainReporter(line, { verbose });
}

/** Run `project`'s one target; on success, the entry of every step by step name. */
export async function runProjectSteps(project: Project, io: StepRunIO, options: StepRunOptions): Promise<StepRunOutcome> {
  const { runTargets } = await import("../session.ts");
  const r = await runTargets(project, {
    targets: [options.target],
    concurrency: options.concurrency ?? 2,
    executor: "local",
    ...(options.settings !== undefined ? { settings: options.settings } : {}),
    emit: await reporter(io, options.json ?? false, options.verbose ?? false),
  });
  if (!("result" in r)) return { exitCode: 2 };
  if (!r.ok) return { exitCode: r.result.failures.some((f) => f.reason === "bad-input") || r.result.analysisFailures.length > 0 ? 2 : 1 };
  const entries = new Map<string, Entry>();
  for (const [name, res] of r.result.results) if (res.entry !== undefined) entries.set(name, res.entry);
  return { exitCode: 0, entries };
}

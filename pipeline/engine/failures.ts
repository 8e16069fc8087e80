/**
 * Failures are values. Analysis failures are collected for the whole graph before
 * anything runs; run failures carry what a person needs to act (argv, exit status, log).
 * Only the CLI turns them into an exit code.
 */
import { didYouMean } from "./nearest.ts";

export type AnalysisFailure =
  | { readonly reason: "unknown-target"; readonly target: string; readonly known: readonly string[] }
  | { readonly reason: "unknown-step"; readonly step: string; readonly known: readonly string[] }
  | { readonly reason: "cycle"; readonly steps: readonly string[] }
  | { readonly reason: "duplicate-step-name"; readonly step: string }
  | { readonly reason: "missing-input"; readonly step: string; readonly input: string }
  /** A list, record or optional input wired with a value of another shape (`detail`: what it expects). */
  | { readonly reason: "wrong-wiring"; readonly step: string; readonly input: string; readonly detail: string }
  | { readonly reason: "unknown-output"; readonly step: string; readonly input: string; readonly producer: string; readonly output: string }
  | { readonly reason: "kind-mismatch"; readonly step: string; readonly input: string; readonly expected: string; readonly actual: string }
  | { readonly reason: "invalid-params"; readonly step: string; readonly issues: readonly string[] }
  | { readonly reason: "dataset-not-locked"; readonly step: string; readonly dataset: string }
  /** `file` and `urls`: where the entry's file comes from (its datasets.lock entry), so the message can say what to place where. */
  | { readonly reason: "dataset-unpinned"; readonly step: string; readonly dataset: string; readonly file?: string; readonly urls?: readonly string[] }
  | { readonly reason: "image-not-pinned"; readonly step: string; readonly image: string }
  | { readonly reason: "input-not-cached"; readonly step: string; readonly input: string; readonly producer: string }
  | { readonly reason: "digest-mismatch"; readonly step: string; readonly outputs: readonly string[]; readonly key: string }
  | { readonly reason: "gpu-unavailable"; readonly step: string; readonly detail: string }
  | { readonly reason: "executor-unavailable"; readonly executor: string; readonly detail: string }
  /** A run-wide setting (an environment variable or option) with a value it cannot take; `detail` names the fix. */
  | { readonly reason: "invalid-setting"; readonly setting: string; readonly detail: string }
  | { readonly reason: "invalid-source"; readonly step: string; readonly detail: string }
  /** A resource declaration that no executor could honour (engine/resources.ts). */
  | { readonly reason: "invalid-resources"; readonly step: string; readonly detail: string }
  /** The executor cannot run this step where it would send it (a batch system's partitions are too small for it); `fix` says what to change. */
  | { readonly reason: "unschedulable"; readonly step: string; readonly executor: string; readonly detail: string; readonly fix: string }
  /** A `--set` argument the target's parameter space refused (the message names the argument, path, type and fix), or a target that takes none. */
  | { readonly reason: "invalid-override"; readonly targets: readonly string[]; readonly message: string };

export type RunFailure =
  | { readonly reason: "step-threw"; readonly step: string; readonly message: string; readonly log: string }
  | {
      readonly reason: "bad-input";
      readonly step: string;
      readonly message: string;
      readonly file?: string;
      readonly line?: number;
      readonly field?: string;
      readonly fix?: string;
      readonly log: string;
    }
  | {
      readonly reason: "exit-nonzero";
      readonly step: string;
      readonly argv: readonly string[];
      readonly exitStatus: number | null;
      readonly signal: string | null;
      readonly log: string;
      readonly tail: readonly string[];
    }
  | { readonly reason: "interpreter-missing"; readonly step: string; readonly message: string; readonly log: string }
  | { readonly reason: "missing-output"; readonly step: string; readonly output: string; readonly expected: string; readonly log: string }
  | { readonly reason: "upstream-failed"; readonly step: string; readonly upstream: string }
  | { readonly reason: "cancelled"; readonly step: string }
  /**
   * The executor's verdict on a job it ran for the step (a batch system's job that failed, ran out
   * of memory or time, or could not be submitted): what happened with the job's id, and the fix.
   */
  | { readonly reason: "job-failed"; readonly step: string; readonly message: string; readonly fix?: string; readonly log: string; readonly tail: readonly string[] }
  | {
      /** Writing into the store failed (disk full, read-only, permissions): the path, the cause and the fix. */
      readonly reason: "store-failed";
      readonly step: string;
      readonly code: string;
      readonly path: string;
      readonly message: string;
      readonly fix: string;
    }
  | {
      /** An input's bytes changed during the run, and recomputing its producer gave other bytes. */
      readonly reason: "input-changed";
      readonly step: string;
      readonly input: string;
      readonly producer: string;
    };

export type Failure = AnalysisFailure | RunFailure;

/** A failure's words, by its reason. */
type Describers<F extends { readonly reason: string }> = { readonly [R in F["reason"]]: (f: Extract<F, { readonly reason: R }>) => string };

/** The log's path and its last lines, if any, each on a line of its own. */
const logTail = (f: { readonly log: string; readonly tail: readonly string[] }): string => `\n  log: ${f.log}${f.tail.length ? `\n  last lines:\n    ${f.tail.join("\n    ")}` : ""}`;

const ANALYSIS_WORDS: Describers<AnalysisFailure> = {
  "unknown-target": (f) => `unknown target '${f.target}'${didYouMean(f.target, f.known)} ('targets' lists all ${f.known.length})`,
  "unknown-step": (f) =>
    `unknown step '${f.step}'${didYouMean(f.step, f.known)} ('plan <target>' lists the ${f.known.length} step${f.known.length === 1 ? "" : "s"} of a target's graph)`,
  "cycle": (f) => `cycle: ${f.steps.join(" -> ")}`,
  "duplicate-step-name": (f) => `two different steps are both named '${f.step}': give one a distinct name`,
  "missing-input": (f) => `${f.step}: input '${f.input}' is not wired`,
  "wrong-wiring": (f) => `${f.step}: input '${f.input}' ${f.detail}`,
  "unknown-output": (f) => `${f.step}: input '${f.input}' refers to output '${f.output}' which step '${f.producer}' does not declare`,
  "kind-mismatch": (f) => `${f.step}: input '${f.input}' expects kind ${f.expected} but is wired to ${f.actual}`,
  "invalid-params": (f) => `${f.step}: invalid params: ${f.issues.join("; ")}`,
  "dataset-not-locked": (f) => `${f.step}: dataset '${f.dataset}' has no entry in datasets.lock`,
  "dataset-unpinned": (f) =>
    `${f.step}: datasets.lock entry '${f.dataset}' has no sha256 yet, so its download cannot be verified. Pin it with 'lock --update ${f.dataset}' on a machine with internet (then commit datasets.lock), or pass --allow-unpinned to fetch it once unverified`,
  "image-not-pinned": (f) => `${f.step}: container image '${f.image}' is not pinned by digest (use name@sha256:<digest>)`,
  "input-not-cached": (f) => `${f.step}: --only needs input '${f.input}' from step '${f.producer}' in the cache; run '${f.producer}' first`,
  "digest-mismatch": (f) => `${f.step}: cached entry ${f.key.slice(0, 12)} fails verification (outputs ${f.outputs.join(", ")} changed on disk)`,
  "gpu-unavailable": (f) => `${f.step}: requests a GPU but ${f.detail}. Run on a GPU machine, or pass --allow-cpu to run it on CPU`,
  "executor-unavailable": (f) => `executor ${f.executor} is unavailable: ${f.detail}`,
  "invalid-setting": (f) => `${f.setting}: ${f.detail}`,
  "invalid-source": (f) => `${f.step}: ${f.detail}`,
  "invalid-resources": (f) => `${f.step}: invalid resources: ${f.detail}. Fix: the step's resources (its runtime's, or use(..., { resources }) in pipeline/definitions)`,
  "unschedulable": (f) => `${f.step}: ${f.executor} cannot run it: ${f.detail}. Fix: ${f.fix}`,
  "invalid-override": (f) => `${f.message} [target${f.targets.length > 1 ? "s" : ""} ${f.targets.join(", ")}]`,
};

const RUN_WORDS: Describers<RunFailure> = {
  "step-threw": (f) => `${f.step} failed: ${f.message} (log: ${f.log})`,
  "bad-input": (f) => `${f.step}: ${f.message} (log: ${f.log})`,
  "exit-nonzero": (f) => `${f.step}: command exited with ${f.exitStatus ?? f.signal}: ${f.argv.join(" ")}${logTail(f)}`,
  "interpreter-missing": (f) => `${f.step}: ${f.message}`,
  "missing-output": (f) => `${f.step}: did not produce output '${f.output}' (expected ${f.expected}); log: ${f.log}`,
  "upstream-failed": (f) => `${f.step}: not run because '${f.upstream}' failed`,
  "cancelled": (f) => `${f.step}: cancelled`,
  "job-failed": (f) => `${f.step}: ${f.message}${logTail(f)}${f.fix ? `\n  Fix: ${f.fix}` : ""}`,
  "store-failed": (f) => `${f.step}: cannot write the store: ${f.message}. Fix: ${f.fix}`,
  "input-changed": (f) =>
    `${f.step}: input '${f.input}' changed on disk while this run was going, and recomputing '${f.producer}' gave different bytes (is it deterministic?); run again`,
};

const WORDS = { ...ANALYSIS_WORDS, ...RUN_WORDS } as Record<Failure["reason"], (f: Failure) => string>;

/** One line (or a few) a person can act on. */
export function describeFailure(f: Failure): string {
  return WORDS[f.reason](f);
}

type Unpinned = Extract<AnalysisFailure, { reason: "dataset-unpinned" }>;
type NoGpu = Extract<AnalysisFailure, { reason: "gpu-unavailable" }>;

/** "a, b, c and 5 more". */
function someOf(names: readonly string[], n = 3): string {
  return names.length <= n ? names.join(", ") : `${names.slice(0, n).join(", ")} and ${names.length - n} more`;
}

/** The unpinned datasets a run fetches, first and as one instruction: which files, from where, and --data-dir. */
function unpinnedLines(failures: readonly Unpinned[]): string[] {
  const byEntry = new Map<string, Unpinned>();
  for (const f of failures) if (!byEntry.has(f.dataset)) byEntry.set(f.dataset, f);
  const entries = [...byEntry.values()].sort((a, b) => (a.dataset < b.dataset ? -1 : 1));
  const w0 = Math.max(...entries.map((e) => e.dataset.length));
  const w1 = Math.max(...entries.map((e) => (e.file ?? "").length));
  return [
    `error: ${entries.length} datasets.lock entr${entries.length === 1 ? "y" : "ies"} this run fetches ha${entries.length === 1 ? "s" : "ve"} no sha256 yet, so ${entries.length === 1 ? "its download" : "their downloads"} cannot be verified. Fix: get the files below, put them in one directory under these names, and pass --data-dir <dir> --allow-unpinned (or pin them first: lock --update <entries> --data-dir <dir>); --allow-unpinned alone downloads them unverified`,
    ...entries.map((e) => `  ${e.dataset.padEnd(w0)}  ${(e.file ?? "").padEnd(w1)}  ${(e.urls ?? []).join(" ")}`.trimEnd()),
  ];
}

/**
 * Every failure as the lines a person reads, most actionable first: the unpinned datasets as one
 * instruction with each file and its URL; failures that differ only in their step (the same GPU
 * missing for 128 steps) as one line naming a few steps and the count; the rest one line each.
 */
export function describeFailures(failures: readonly Failure[]): string[] {
  const unpinned = failures.filter((f): f is Unpinned => f.reason === "dataset-unpinned");
  const lines = unpinned.length > 0 ? unpinnedLines(unpinned) : [];
  const gpu = new Map<string, string[]>();
  for (const f of failures) if (f.reason === "gpu-unavailable") gpu.set((f as NoGpu).detail, [...(gpu.get((f as NoGpu).detail) ?? []), (f as NoGpu).step]);
  for (const [detail, steps] of gpu) {
    lines.push(steps.length === 1 ? `error: ${describeFailure({ reason: "gpu-unavailable", step: steps[0]!, detail })}` : `error: ${steps.length} steps request a GPU (${someOf(steps)}) but ${detail}. Run on a GPU machine, or pass --allow-cpu to run them on CPU`);
  }
  const seen = new Set(lines);
  for (const f of failures) {
    if (f.reason === "dataset-unpinned" || f.reason === "gpu-unavailable") continue;
    const line = `error: ${describeFailure(f)}`;
    if (!seen.has(line)) lines.push(line);
    seen.add(line);
  }
  return lines;
}

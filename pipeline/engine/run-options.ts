/** What a run of a graph is given and what it returns (runGraph, engine.ts, re-exports them). */
import type { RunSettings } from "./step.ts";
import type { Entry, RunAbout, Store } from "./store.ts";
import type { Executor } from "./executor.ts";
import type { EventSink } from "./events.ts";
import type { AnalysisFailure, RunFailure } from "./failures.ts";
import type { KeyContext } from "./keys.ts";
import type { Planned } from "./plan.ts";

export type FailureMode = "stop" | "continue" | "kill";

export interface RunOptions {
  readonly store: Store;
  readonly executor: Executor;
  readonly keys: KeyContext;
  readonly sourceRoot: string;
  readonly settings: RunSettings;
  readonly emit: EventSink;
  readonly concurrency: number;
  readonly failureMode: FailureMode;
  /** Step names to rerun even when cached. */
  readonly force: ReadonlySet<string>;
  /**
   * The plan made just before this run (the `plan` event's): used only when made over this graph
   * with this key context. Its keys are taken where the inputs' digests are the planned ones, and
   * the entries it read are checked instead of read again (entry-guard.ts `lookup`).
   */
  readonly planned?: Planned;
  /** When set, only these steps may execute; every other step must be a cache hit. */
  readonly only?: ReadonlySet<string>;
  /** Re-hash cached outputs before trusting them (instead of checking their stat stamps). */
  readonly verify: boolean;
  readonly targets: readonly string[];
  readonly tools: Readonly<Record<string, string>>;
  /** Record the run (for gc and explain); default true. */
  readonly record?: boolean;
  /** Step name -> seconds of its last execution (Store.measuredSeconds): scheduling only. */
  readonly measured?: ReadonlyMap<string, number>;
  /** Aborted (reason: the signal's name) to stop the run: see engine.ts's module comment. */
  readonly signal?: AbortSignal;
  /** How long cancelled steps may take to finish after `signal` before they are abandoned (default 10 s). */
  readonly stopGraceMs?: number;
  /** GPU slots (devices.ts): steps that ask for GPUs take devices instead of a --concurrency slot. Default 0. */
  readonly gpus?: number;
  /** What the targets were built with (data source, overrides), kept in the run record for `compare`. */
  readonly about?: RunAbout;
}

export interface StepResult {
  readonly step: string;
  readonly status: "cached" | "executed" | "failed" | "skipped";
  readonly key?: string;
  readonly entry?: Entry;
}

export interface RunResult {
  readonly ok: boolean;
  readonly results: ReadonlyMap<string, StepResult>;
  readonly failures: readonly RunFailure[];
  readonly analysisFailures: readonly AnalysisFailure[];
  readonly executed: number;
  readonly cached: number;
  /** The signal that stopped the run, if one did. */
  readonly interrupted?: string;
}

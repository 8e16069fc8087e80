/** Events emitted by the scheduler; reporters (TTY bars, plain lines, JSON lines) consume them. */
import type { EstimateSource } from "./schedule.ts";
import type { AnalysisFailure, RunFailure } from "./failures.ts";

export type StepStatus = "cached" | "run" | "pending";

export type EngineEvent =
  | {
      readonly type: "plan";
      /**
       * Every step of the run; `expectedSeconds` (its last measured duration, else the reference run's, else its cost
       * hint: `estimate` says which) and `after` (its producers) let reporters estimate the time left.
       */
      readonly steps: readonly { readonly step: string; readonly status: StepStatus; readonly key?: string; readonly expectedSeconds?: number; readonly estimate?: EstimateSource; readonly after?: readonly string[] }[];
      /** Steps executed at once. */
      readonly concurrency?: number;
    }
  /** Overall progress of a run (pipeline/reporters/overall.ts): steps done of total, cached vs run, expected time left. */
  | {
      readonly type: "overall";
      readonly done: number;
      readonly total: number;
      readonly cached: number;
      readonly executed: number;
      readonly failed: number;
      readonly running: number;
      /** Expected seconds until the run finishes (null before the plan is known). */
      readonly etaSeconds: number | null;
      readonly elapsedSeconds: number;
      /** The event that prompted this update. */
      readonly trigger: "plan" | "cache-hit" | "started" | "succeeded" | "failed" | "finished";
    }
  /** Where the run's program steps compute (numerics identities in words, pipeline/executors/numerics/identity.ts) and how many steps each. */
  | { readonly type: "numerics"; readonly groups: readonly { readonly description: string; readonly steps: number }[] }
  /** Numbers a step's program reported as it went (a trainer's `EPOCH {json}` line: train loss, dev recall). */
  | { readonly type: "metrics"; readonly step: string; readonly epoch?: number; readonly values: Readonly<Record<string, number>> }
  | { readonly type: "analysis-failed"; readonly failures: readonly AnalysisFailure[] }
  | { readonly type: "cache-hit"; readonly step: string; readonly key: string }
  | { readonly type: "waiting"; readonly step: string; readonly key: string; readonly holder?: string }
  | { readonly type: "started"; readonly step: string; readonly key: string; readonly log: string }
  | { readonly type: "progress"; readonly step: string; readonly done: number; readonly total?: number; readonly label?: string }
  | { readonly type: "log"; readonly step: string; readonly line: string }
  /** Where a step's job is in a batch system's queue: pending (and why) or running (and where). */
  | { readonly type: "queue"; readonly step: string; readonly state: "pending" | "running"; readonly detail: string }
  | {
      /** A cached entry whose bytes (or manifest) no longer match: moved aside (`movedTo`) and recomputed. */
      readonly type: "tampered";
      readonly step: string;
      readonly key: string;
      readonly outputs: readonly string[];
      readonly problem?: string;
      readonly movedTo?: string;
    }
  | { readonly type: "succeeded"; readonly step: string; readonly key: string; readonly seconds: number; readonly reused: boolean }
  | { readonly type: "failed"; readonly failure: RunFailure }
  | {
      readonly type: "finished";
      readonly ok: boolean;
      readonly executed: number;
      readonly cached: number;
      readonly failed: number;
      readonly seconds: number;
      /** Set when a signal stopped the run (SIGINT, SIGTERM). */
      readonly interrupted?: string;
    };

export type EventSink = (event: EngineEvent) => void;

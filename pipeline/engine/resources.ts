/**
 * A step's effective resources (pure): the default of its kind, overridden field by field by
 * its runtime's declaration, then by the step's own (`use(def, { resources })`: a data
 * source's profile). GPUs are the runtime's `gpu.count`. Never part of a key.
 */
import type { AnyStep, ContainerRuntime, StepResources } from "./step.ts";

export interface Resources {
  readonly cpus: number;
  readonly memoryGiB: number;
  readonly expectedMinutes: number;
  /** GPUs the step asks for (0: none; "all": every GPU of a machine). */
  readonly gpus: number | "all";
}

/** An in-process step: one core of a Node process, a modest heap, minutes. */
export const IN_PROCESS_DEFAULTS: Required<StepResources> = { cpus: 1, memoryGiB: 2, expectedMinutes: 30 };
/** A program step that declares nothing. */
export const PROGRAM_DEFAULTS: Required<StepResources> = { cpus: 1, memoryGiB: 4, expectedMinutes: 60 };

export function stepResources(step: AnyStep): Resources {
  const rt = step.def.runtime;
  const base = rt.type === "in-process" ? IN_PROCESS_DEFAULTS : PROGRAM_DEFAULTS;
  const merged = { ...base, ...defined(rt.resources), ...defined(step.resources) };
  return { ...merged, gpus: rt.type === "container" && rt.gpu !== undefined ? rt.gpu.count : 0 };
}

/**
 * A program step's runtime with its effective resources: what its job runs with (execute.ts) and
 * what its numerics identity is computed from (the thread count is `cpus`), so the two agree.
 */
export function effectiveRuntime(step: AnyStep & { readonly def: { readonly runtime: ContainerRuntime } }): ContainerRuntime {
  const r = stepResources(step);
  return { ...step.def.runtime, resources: { cpus: r.cpus, memoryGiB: r.memoryGiB, expectedMinutes: r.expectedMinutes } };
}

/** A program job's resources: the engine puts the step's effective ones into its runtime (execute.ts). */
export function programResources(rt: ContainerRuntime): Resources {
  return { ...PROGRAM_DEFAULTS, ...defined(rt.resources), gpus: rt.gpu?.count ?? 0 };
}

function defined(r: StepResources | undefined): StepResources {
  if (r === undefined) return {};
  return Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)) as StepResources;
}

/** What is wrong with a declaration (analysis reports each as `invalid-resources`). */
export function resourceProblems(r: Resources): string[] {
  const out: string[] = [];
  if (!Number.isInteger(r.cpus) || r.cpus < 1) out.push(`cpus must be an integer >= 1, got ${r.cpus}`);
  if (!(Number.isFinite(r.memoryGiB) && r.memoryGiB > 0)) out.push(`memoryGiB must be a number > 0, got ${r.memoryGiB}`);
  if (!(Number.isFinite(r.expectedMinutes) && r.expectedMinutes > 0)) out.push(`expectedMinutes must be a number > 0, got ${r.expectedMinutes}`);
  return out;
}

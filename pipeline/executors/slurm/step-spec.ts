/**
 * An in-process step run as a Slurm job: what the submitting process writes into the attempt
 * (`spec.json`) and what the runner on the node (`cspipe exec-step`, pipeline/commands/exec-step.ts)
 * writes back (`result.json`, renamed into place). The node rebuilds the graph from the same
 * sources on the shared filesystem, finds the step by name, recomputes its fingerprint from the
 * inputs in the store and runs the body only when the key is the one the submitter computed.
 */
import { rename, writeFile } from "node:fs/promises";
import { z } from "zod";
import type { BodyFailure } from "../../engine/step-body.ts";
import type { RunSettings } from "../../engine/step.ts";

export const STEP_SPEC_SCHEMA = "cspipe.slurm-step/1";
export const STEP_RESULT_SCHEMA = "cspipe.slurm-result/1";

const jobPath = z.object({ path: z.string().min(1), dir: z.boolean() }).strict();

export const stepSpecShape = z
  .object({
    schema: z.literal(STEP_SPEC_SCHEMA),
    /** The run's targets and --set overrides: the graph the step belongs to. */
    targets: z.array(z.string()),
    sets: z.array(z.string()),
    step: z.string().min(1),
    key: z.string().regex(/^[0-9a-f]{64}$/),
    /** The submitter's fingerprint: on a mismatch the node names the first component that differs. */
    fingerprint: z.record(z.string(), z.unknown()),
    inputs: z.record(z.string(), jobPath.extend({ stepId: z.string().min(1), key: z.string().min(1) }).strict()),
    outputs: z.record(z.string(), jobPath),
    workDir: z.string().min(1),
    scratchDir: z.string().min(1),
    settings: z.object({ dataDir: z.string().optional(), allowCpu: z.boolean().optional(), offline: z.boolean().optional(), allowUnpinned: z.boolean().optional() }).strict(),
    /** Where the node writes result.json. */
    result: z.string().min(1),
  })
  .strict();

export type StepSpec = z.output<typeof stepSpecShape>;

export const NUMERICS_CHECK_SCHEMA = "cspipe.slurm-numerics/1";

/**
 * A program step's check on its node, before the program starts (`cspipe exec-step --numerics`):
 * the node computes the step's numerics identity as the local executor would there and refuses
 * (result.json, exit 3) when it is not the one the key holds (pipeline/executors/numerics/verify.ts).
 */
export const numericsCheckShape = z
  .object({
    schema: z.literal(NUMERICS_CHECK_SCHEMA),
    step: z.string().min(1),
    /** The step's runtime as the engine handed it (its resources the effective ones). */
    runtime: z.record(z.string(), z.unknown()),
    /** The identity in the step's key. */
    numerics: z.unknown(),
    result: z.string().min(1),
  })
  .strict();

export type NumericsCheck = z.output<typeof numericsCheckShape>;

/** The run's settings as the spec carries them. */
export function specSettings(spec: StepSpec): RunSettings {
  const s = spec.settings;
  return {
    ...(s.dataDir !== undefined ? { dataDir: s.dataDir } : {}),
    ...(s.allowCpu !== undefined ? { allowCpu: s.allowCpu } : {}),
    ...(s.offline !== undefined ? { offline: s.offline } : {}),
    ...(s.allowUnpinned !== undefined ? { allowUnpinned: s.allowUnpinned } : {}),
  };
}

/** Why a node refused to run the step: its key is not the submitter's. */
export interface KeyMismatch {
  readonly reason: "key-mismatch";
  readonly message: string;
}

export type StepResult = { readonly schema: typeof STEP_RESULT_SCHEMA; readonly ok: true; readonly tools: Readonly<Record<string, string>> } | { readonly schema: typeof STEP_RESULT_SCHEMA; readonly ok: false; readonly failure: BodyFailure | KeyMismatch };

const optional = { file: z.string().optional(), line: z.number().optional(), field: z.string().optional(), fix: z.string().optional() };
const failureShape = z.discriminatedUnion("reason", [
  z.object({ reason: z.literal("bad-input"), message: z.string(), ...optional }).strict(),
  z.object({ reason: z.literal("step-threw"), message: z.string() }).strict(),
  z.object({ reason: z.literal("store-failed"), code: z.string(), path: z.string(), message: z.string(), fix: z.string() }).strict(),
  z.object({ reason: z.literal("cancelled") }).strict(),
  z.object({ reason: z.literal("key-mismatch"), message: z.string() }).strict(),
]);

export const stepResultShape = z.discriminatedUnion("ok", [
  z.object({ schema: z.literal(STEP_RESULT_SCHEMA), ok: z.literal(true), tools: z.record(z.string(), z.string()) }).strict(),
  z.object({ schema: z.literal(STEP_RESULT_SCHEMA), ok: z.literal(false), failure: failureShape }).strict(),
]);

/** A result file's text, or why it cannot be read. */
export function parseStepResult(text: string): StepResult | { error: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { error: `not JSON (${(e as Error).message})` };
  }
  const r = stepResultShape.safeParse(json);
  if (!r.success) return { error: r.error.issues.map((i) => `${i.path.join(".") || "(top)"}: ${i.message}`).join("; ") };
  return r.data as StepResult;
}

/** Write `text` to `path` atomically (a temporary file renamed over it): how the node's runner leaves result.json. */
export async function writeAtomically(path: string, text: string): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  await writeFile(tmp, text);
  await rename(tmp, path);
}

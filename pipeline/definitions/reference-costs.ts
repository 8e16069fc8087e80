/**
 * How long each step of the mini reproduction takes on the reference machine (the project's
 * 2-core build machine), so that a fresh store's `plan`, `targets` and live ETA start from
 * measured numbers instead of cost hints. `reference-costs.json` holds:
 *  - `measured`: seconds per step name, the least of the run records of a cheap cold run on a
 *    quiet machine (`scripts/reference-costs.ts` writes them);
 *  - `derived.byName`: steps measured only on the machine under load, scaled by the quiet/loaded
 *    ratio of the steps measured both ways;
 *  - `derived.byStepId`: for steps no run reached, per step id: the trainings from the README's
 *    measured cold run (2,658 training seconds over 32 trainings, 2026-11-29), other ids the median of their
 *    measured steps.
 * Never part of a key; a store's own run records take precedence (Project.estimates). Mini data
 * only: real data runs on other machines, sizes and GPUs, so its estimates stay cost hints (a guess).
 */
import { readFileSync } from "node:fs";
import type { ReferenceCost } from "../engine/schedule.ts";

export interface ReferenceCosts {
  readonly machine: string;
  readonly measured: { readonly command: string; readonly seconds: Readonly<Record<string, number>> };
  /** `fixed`: ids set by hand (kept when the script rewrites the file); `byStepId`: fixed and medians together; `loadScale`: the factor applied to `byName`. */
  readonly derived: { readonly note: string; readonly loadScale: number; readonly fixed: Readonly<Record<string, number>>; readonly byName: Readonly<Record<string, number>>; readonly byStepId: Readonly<Record<string, number>> };
}

export const REFERENCE_COSTS_FILE = new URL("./reference-costs.json", import.meta.url);

export function readReferenceCosts(file: URL | string = REFERENCE_COSTS_FILE): ReferenceCosts {
  const r = JSON.parse(readFileSync(file, "utf8")) as ReferenceCosts;
  const ok = (m: unknown) => m !== null && typeof m === "object" && Object.values(m).every((v) => typeof v === "number" && Number.isFinite(v) && v >= 0);
  if (!ok(r.measured?.seconds) || !ok(r.derived?.byName) || !ok(r.derived?.byStepId)) throw new Error(`${String(file)}: measured.seconds, derived.byName and derived.byStepId must map names to seconds >= 0`);
  return r;
}

/** The mini reference run's cost of a step: measured by name, else derived by name, else by step id; loaded on first use. */
export function miniReferenceCost(): ReferenceCost {
  let costs: ReferenceCosts | undefined;
  return (step) => {
    costs ??= readReferenceCosts();
    return costs.measured.seconds[step.name] ?? costs.derived.byName[step.name] ?? costs.derived.byStepId[step.def.id];
  };
}

/**
 * Picking one number out of an evaluation's metrics.json: an aggregate metric, or the
 * same metric inside one breakdown group (question type or source domain), with the N it
 * was averaged over. Pure; shared by the table and figure render steps.
 */
import { z } from "zod";
import { InputError } from "../../pipeline/engine/errors.ts";
import type { MetricsFile } from "../eval/steps.ts";

/** A breakdown group of metrics.json: `byQuestionType` or `byDomain`, group `value`. */
export interface GroupRef {
  readonly by: "questionType" | "domain";
  readonly value: string;
}

export const groupRefSchema = z.object({ by: z.enum(["questionType", "domain"]), value: z.string().min(1) }).strict();

const BREAKDOWN_FIELD = { questionType: "byQuestionType", domain: "byDomain" } as const satisfies Record<GroupRef["by"], keyof MetricsFile>;

export interface PickedValue {
  readonly value: number;
  readonly n: number;
}

/**
 * The value of `metric` in the aggregate (no group) or in one breakdown group.
 * A metric the evaluation did not compute is an InputError (a configuration mistake);
 * a group with no turns (absent from the breakdown) returns undefined: there is no number.
 */
export function pickMetric(m: MetricsFile, metric: string, group: GroupRef | undefined, file?: string): PickedValue | undefined {
  const where = file === undefined ? {} : { file };
  const aggregate = m.aggregate.metrics[metric];
  if (aggregate === undefined) {
    throw new InputError(`metric '${metric}' missing (the evaluation computed ${Object.keys(m.aggregate.metrics).sort().join(", ")})`, {
      ...where,
      field: `aggregate.metrics.${metric}`,
      fix: "add the metric to the evaluation's metrics param",
    });
  }
  if (group === undefined) return { value: aggregate, n: m.aggregate.n };
  if (group.value === "all") return { value: aggregate, n: m.aggregate.n };
  const breakdown = m[BREAKDOWN_FIELD[group.by]];
  const g = breakdown.groups.find((x) => x.group === group.value);
  if (g === undefined) return undefined;
  const value = g.metrics[metric];
  if (value === undefined) {
    throw new InputError(`metric '${metric}' missing in group ${group.by}=${group.value}`, { ...where, field: `${BREAKDOWN_FIELD[group.by]}.${group.value}`, fix: "re-run the evaluation" });
  }
  return { value, n: g.n };
}

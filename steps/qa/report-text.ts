/** The text report of a QA evaluation (the `evaluate-qa` command): EM and F1 x100 with N per group, aligned as `evaluate` prints its tables. */
import type { QaMetricsFile } from "./evaluate.ts";
import { table } from "../eval/report-text.ts";

const pct = (v: number | undefined): string => (v === undefined ? "-" : (100 * v).toFixed(1));

export function renderQaReport(m: QaMetricsFile, header: string, withBreakdowns: boolean): string {
  const c = m.aggregate.counts;
  const rows: string[][] = [["group", "N", "EM", "F1"], ["all", String(m.aggregate.n), pct(m.aggregate.metrics["em"]), pct(m.aggregate.metrics["f1"])]];
  if (withBreakdowns) {
    for (const b of [m.byQuestionType, m.byDomain]) for (const g of b.groups) rows.push([`${b.by}=${g.group}`, String(g.n), pct(g.metrics["em"]), pct(g.metrics["f1"])]);
  }
  const counts = `${c.references} references, ${c.predictions} predictions: ${c.scored} scored, ${c.skipped} skipped by the rule, ${c.missingPredictions} without a prediction, ${c.ignoredPredictions} predictions for unknown questions ignored`;
  return `${[header, counts, "", ...table(rows)].join("\n")}\n`;
}

/** The text report of a QA evaluation (the `evaluate-qa` command): EM and F1 x100 with N per group. */
import type { QaMetricsFile } from "./evaluate.ts";

const pct = (v: number | undefined): string => (v === undefined ? "-" : (100 * v).toFixed(1));

export function renderQaReport(m: QaMetricsFile, header: string, withBreakdowns: boolean): string {
  const c = m.aggregate.counts;
  const lines = [
    header,
    `${c.references} references, ${c.predictions} predictions: ${c.scored} scored, ${c.skipped} skipped by the rule, ${c.missingPredictions} without a prediction, ${c.ignoredPredictions} predictions for unknown questions ignored`,
    "",
    "| group | N | EM | F1 |",
    "| --- | ---: | ---: | ---: |",
    `| all | ${m.aggregate.n} | ${pct(m.aggregate.metrics["em"])} | ${pct(m.aggregate.metrics["f1"])} |`,
  ];
  if (withBreakdowns) {
    for (const b of [m.byQuestionType, m.byDomain]) for (const g of b.groups) lines.push(`| ${b.by}=${g.group} | ${g.n} | ${pct(g.metrics["em"])} | ${pct(g.metrics["f1"])} |`);
  }
  return `${lines.join("\n")}\n`;
}

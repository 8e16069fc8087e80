/**
 * The `report` target: every registered section (a rendered table or figure) copied into
 * one directory with `index.md` and `index.html`, exported to `./report/` after a run.
 * Sections are a plain array: later stages append their own (`[...LEXICAL_SECTIONS, ...]`).
 */
import { use, type OutputRef } from "../engine/step.ts";
import type { DataSource, Target, TargetContext } from "../engine/targets.ts";
import { writeReportDef } from "../../steps/report/steps.ts";
import { DATA_LABEL, figure2aBm25, table1Bm25, table2Bm25, table3Bm25 } from "./lexical.ts";

export interface ReportSection {
  readonly kind: "table" | "figure";
  /** Unique among sections; the report step's input name. */
  readonly id: string;
  build(ctx: TargetContext): OutputRef<"table"> | OutputRef<"figure">;
}

export const LEXICAL_SECTIONS: ReportSection[] = [
  { kind: "table", id: "table2-bm25", build: table2Bm25 },
  { kind: "table", id: "table1-bm25", build: table1Bm25 },
  { kind: "table", id: "table3-bm25", build: table3Bm25 },
  { kind: "figure", id: "figure2a-bm25", build: figure2aBm25 },
];

/** One sentence on the data behind the numbers, per source. */
export const DATASET_DESCRIPTIONS: Readonly<Record<DataSource, string>> = {
  mini: "The seeded mini benchmark: synthetic conversations written in the native formats of QReCC (test split), TopiOCQA (dev) and OR-QuAC (test), read by the same parsers and steps as the real data.",
  real: "QReCC test (16,451 turns, 8,209 with gold; normalized evaluation skips the rest), TopiOCQA dev, OR-QuAC test.",
};

const NOTES: readonly string[] = [
  "Every table cell and figure point carries the cache key of the evaluation step that produced it (see the JSON/CSV files).",
  "Paper numbers are shown as printed; early-version tables are marked as such in their captions.",
];

/** The report step over the given sections (for the target and for tests). */
export function reportStep(sections: readonly ReportSection[], ctx: TargetContext, name = "write-report") {
  const seen = new Set<string>();
  for (const s of sections) {
    if (seen.has(s.id)) throw new Error(`report section '${s.id}' is listed twice`);
    seen.add(s.id);
  }
  const tables = sections.filter((s) => s.kind === "table");
  const figures = sections.filter((s) => s.kind === "figure");
  const inputs: Record<string, OutputRef> = {};
  for (const s of [...tables, ...figures]) inputs[s.id] = s.build(ctx);
  const def = writeReportDef(
    tables.map((s) => s.id),
    figures.map((s) => s.id),
  );
  return use(def, {
    name,
    params: { title: `cspipe report: shortcut dependency in conversational search (${DATA_LABEL[ctx.data]})`, data: ctx.data, datasetDescription: DATASET_DESCRIPTIONS[ctx.data], notes: [...NOTES] } as never,
    inputs: inputs as never,
  });
}

/** The report target; `name` is also the directory it is exported to (./<name>/). */
export function reportTarget(sections: readonly ReportSection[], name = "report", about = "linking every table and figure"): Target {
  const step = (ctx: TargetContext) => reportStep(sections, ctx, name === "report" ? "write-report" : `write-${name}`);
  return {
    name,
    description: `${name}/index.md and ${name}/index.html ${about} (${sections.map((s) => s.id).join(", ")})`,
    steps: (ctx) => [step(ctx)],
    exports: (ctx) => ({ [name]: step(ctx).out.report }),
  };
}

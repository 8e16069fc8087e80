/**
 * A paper figure as data: a bar chart (categories x series) or a line chart (x positions x
 * series) whose every point names where its number comes from: one evaluation's
 * metrics.json (`{input, metric, group?}`) or a printed paper number
 * (`{paper: {table, row, column}}`). The pure part here renders resolved points to SVG
 * (svg.ts) and to a JSON record of exactly the numbers plotted, with provenance per point.
 */
import { z } from "zod";
import { InputError } from "../../pipeline/engine/errors.ts";
import { renderBarChartSvg, renderLineChartSvg } from "./svg.ts";
import type { NumberFormat } from "./format.ts";
import { groupRefSchema, type GroupRef } from "./metric-value.ts";
import { asFraction, loadPaperNumbers, paperTable, type PaperNumbers } from "./paper-numbers.ts";

const formatSchema = z.union([
  z.object({ kind: z.literal("fixed"), digits: z.number().int() }).strict(),
  z.object({ kind: z.literal("percent"), digits: z.number().int() }).strict(),
  z.object({ kind: z.literal("integer") }).strict(),
]);

const metricPoint = z.object({ input: z.string().min(1), metric: z.string().min(1), group: groupRefSchema.optional() }).strict();
const paperPoint = z.object({ paper: z.object({ table: z.string().min(1), row: z.string().min(1), column: z.string().min(1) }).strict() }).strict();

export const figureSpecSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, "lowercase letters, digits and dashes"),
    chart: z.enum(["bar", "line"]),
    title: z.string().min(1),
    caption: z.string(),
    yLabel: z.string(),
    /** Line charts: the x axis label. */
    xLabel: z.string().optional(),
    /** Bar charts: the groups along the x axis; line charts: the x positions. */
    categories: z.array(z.string()).min(1),
    /** One point per category; null = no point. */
    series: z.array(z.object({ name: z.string().min(1), points: z.array(z.union([metricPoint, paperPoint]).nullable()) }).strict()).min(1),
    valueFormat: formatSchema.optional(),
    yMax: z.number().positive().optional(),
  })
  .strict();

export type FigureSpec = z.infer<typeof figureSpecSchema>;
export type PointSpec = NonNullable<FigureSpec["series"][number]["points"][number]>;
export type MetricPointSpec = z.infer<typeof metricPoint>;

/** A plotted number and where it came from. */
export type ResolvedPoint =
  | { readonly source: "ours"; readonly value: number; readonly n: number; readonly stepKey: string; readonly input: string; readonly metric: string; readonly group: GroupRef | null }
  | { readonly source: "paper"; readonly value: number; readonly table: string; readonly row: string; readonly column: string };

export interface FigureJson {
  readonly id: string;
  readonly chart: "bar" | "line";
  readonly title: string;
  readonly caption: string;
  readonly categories: readonly string[];
  readonly series: readonly { name: string; points: ({ category: string } & (ResolvedPoint | { source: "none"; value: null }))[] }[];
}

/** Every series has one point (or null) per category. */
export function checkFigureSpec(spec: FigureSpec): void {
  for (const s of spec.series) {
    if (s.points.length !== spec.categories.length) {
      throw new InputError(`figure '${spec.id}' series '${s.name}' has ${s.points.length} points for ${spec.categories.length} categories`, {
        field: `series.${s.name}.points`,
        fix: "give one point (or null) per category",
      });
    }
  }
  if (spec.chart === "line" && spec.xLabel === undefined) throw new InputError(`line figure '${spec.id}' has no xLabel`, { field: "xLabel", fix: "name the x axis" });
}

/** A printed paper number as a fraction (percent units divided by 100), so it plots beside ours. */
export function resolvePaperPoint(p: { table: string; row: string; column: string }, doc: PaperNumbers = loadPaperNumbers()): ResolvedPoint | undefined {
  const table = paperTable(p.table, doc);
  const column = table.columns.find((c) => c.id === p.column);
  const row = table.rows.find((r) => r.id === p.row);
  if (column === undefined || row === undefined) {
    throw new InputError(`paper table '${p.table}' has no ${column === undefined ? `column '${p.column}'` : `row '${p.row}'`}`, {
      field: "paper",
      fix: column === undefined ? `use one of: ${table.columns.map((c) => c.id).join(", ")}` : `use one of: ${table.rows.map((r) => r.id).join(", ")}`,
    });
  }
  const v = row.values[column.id];
  if (v === undefined || v === null) return undefined;
  return { source: "paper", value: asFraction(v, column.unit), table: p.table, row: p.row, column: p.column };
}

/** Render resolved points (`points[s][c]`, undefined = no number) to SVG and JSON. Pure. */
export function renderFigure(spec: FigureSpec, points: readonly (readonly (ResolvedPoint | undefined)[])[]): { svg: string; json: string; data: FigureJson } {
  checkFigureSpec(spec);
  const series = spec.series.map((s, si) => ({ name: s.name, values: spec.categories.map((_, ci) => points[si]?.[ci]?.value ?? null) }));
  const base = {
    title: spec.title,
    yLabel: spec.yLabel,
    series,
    ...(spec.yMax !== undefined ? { yMax: spec.yMax } : {}),
    ...(spec.valueFormat !== undefined ? { valueFormat: spec.valueFormat as NumberFormat } : {}),
  };
  const svg = spec.chart === "bar" ? renderBarChartSvg({ ...base, categories: spec.categories }) : renderLineChartSvg({ ...base, x: spec.categories, xLabel: spec.xLabel ?? "" });
  const data: FigureJson = {
    id: spec.id,
    chart: spec.chart,
    title: spec.title,
    caption: spec.caption,
    categories: spec.categories,
    series: spec.series.map((s, si) => ({
      name: s.name,
      points: spec.categories.map((category, ci) => {
        const p = points[si]?.[ci];
        return p === undefined ? { category, source: "none" as const, value: null } : { category, ...p };
      }),
    })),
  };
  return { svg, json: JSON.stringify(data, null, 2) + "\n", data };
}

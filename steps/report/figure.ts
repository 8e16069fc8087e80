/**
 * A paper figure as data: a bar chart (categories x series) or a line chart (x positions x
 * series). Every point names where its numbers come from:
 *   `{input, metric, group?}`          one evaluation's metrics.json (aggregate or one group)
 *   `{inputs: [...], metric, group?}`  one evaluation per training seed: mean ± sample sd
 *   `paper: {table, row, column}`      beside either, the paper's printed number (a marker)
 *   `{paper: {...}}`                   the paper's number alone
 *   `{noInput: "reason"}`              no number by construction (drawn as "n/a")
 * The figure JSON (`FigureJson`) records exactly the numbers plotted, with their provenance
 * keys and N, and is everything the SVG view needs (svg.ts): the report re-renders it with
 * links to its provenance pages. Pure.
 */
import { z } from "zod";
import { InputError } from "../../pipeline/engine/errors.ts";
import { formatCount, formatSchema, type NumberFormat } from "./format.ts";
import { groupRefSchema, type GroupRef } from "./metric-value.ts";
import { asFraction, formatPaperValue, loadPaperNumbers, paperTable, type PaperNumbers } from "./paper-numbers.ts";
import { labelText } from "./label.ts";

const paperRef = z.object({ table: z.string().min(1), row: z.string().min(1), column: z.string().min(1) }).strict();
const metricPoint = z
  .object({ input: z.string().min(1).optional(), inputs: z.array(z.string().min(1)).min(1).readonly().optional(), metric: z.string().min(1), group: groupRefSchema.optional(), paper: paperRef.optional() })
  .strict()
  .refine((p) => (p.input === undefined) !== (p.inputs === undefined), { message: "give either `input` (one evaluation) or `inputs` (one per seed)" });
const paperPoint = z.object({ paper: paperRef }).strict();
const noInputPoint = z.object({ noInput: z.string().min(1) }).strict();

export const figureSpecSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, "lowercase letters, digits and dashes"),
    chart: z.enum(["bar", "line"]),
    title: z.string().min(1),
    caption: z.string(),
    yLabel: z.string(),
    /** Unit after the y label; default from valueFormat ("%" for percent); "" for none. */
    yUnit: z.string().optional(),
    /** Line charts: the x axis label. */
    xLabel: z.string().optional(),
    /** Bar charts: the groups along the x axis; line charts: the x positions. */
    categories: z.array(z.string()).min(1).readonly(),
    /** One point per category; null = no point. */
    series: z.array(z.object({ name: z.string().min(1), points: z.array(z.union([metricPoint, paperPoint, noInputPoint]).nullable()).readonly() }).strict()).min(1).readonly(),
    valueFormat: formatSchema.optional(),
    /** Upper end of the y axis; default: a round number above the largest value, error bar and paper marker. */
    yMax: z.number().positive().optional(),
  })
  .strict();

export type FigureSpec = z.input<typeof figureSpecSchema>;
export type PointSpec = NonNullable<FigureSpec["series"][number]["points"][number]>;
export type MetricPointSpec = z.infer<typeof metricPoint>;
export type PaperRef = z.infer<typeof paperRef>;

/** Our number at a point: the mean over `seeds` evaluations (their keys), with its N. */
export interface OursValue {
  readonly value: number;
  readonly sd: number | null;
  readonly seeds: number;
  readonly n: number;
  readonly stepKeys: readonly string[];
  readonly metric: string;
  readonly group: GroupRef | null;
}

/** The paper's number at a point, as a fraction when printed in percent (so it plots beside ours). */
export interface PaperValue {
  readonly value: number;
  readonly printed: string;
  readonly table: string;
  readonly row: string;
  readonly column: string;
}

export interface FigurePoint {
  readonly category: string;
  readonly ours: OursValue | null;
  readonly paper: PaperValue | null;
  /** Why there is no number of ours where the spec asked for one (no input, no turns). */
  readonly absent: string | null;
}

export interface FigureJson {
  readonly schema: "cspipe.figure/2";
  readonly id: string;
  readonly chart: "bar" | "line";
  readonly title: string;
  readonly caption: string;
  /** The N of the plotted numbers, in words ("N = 200 turns", or per category / series). */
  readonly nNote: string;
  readonly yLabel: string;
  /** Unit after the y label (null: from valueFormat; "": none). */
  readonly yUnit: string | null;
  readonly xLabel: string | null;
  readonly valueFormat: NumberFormat;
  readonly yMax: number | null;
  readonly categories: readonly string[];
  readonly series: readonly { readonly name: string; readonly points: readonly FigurePoint[] }[];
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

/** A printed paper number as a fraction (percent units divided by 100), so it plots beside ours; undefined for the paper's "-". */
export function resolvePaperPoint(p: PaperRef, doc: PaperNumbers = loadPaperNumbers()): PaperValue | undefined {
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
  return { value: asFraction(v, column.unit), printed: formatPaperValue(v, column), table: p.table, row: p.row, column: p.column };
}

/** "N = 200 turns", or N per category / per series when it varies along one of them. */
export function describeN(categories: readonly string[], series: readonly { name: string; points: readonly FigurePoint[] }[]): string {
  const cells: { s: string; c: string; n: number }[] = [];
  for (const s of series) s.points.forEach((p, ci) => p.ours !== null && cells.push({ s: s.name, c: categories[ci]!, n: p.ours.n }));
  if (cells.length === 0) return "";
  const all = new Set(cells.map((x) => x.n));
  if (all.size === 1) return `N = ${formatCount([...all][0]!)} turns per point.`;
  const uniformBy = (key: "s" | "c"): Map<string, number> | undefined => {
    const m = new Map<string, number>();
    for (const x of cells) {
      const prev = m.get(x[key]);
      if (prev !== undefined && prev !== x.n) return undefined;
      m.set(x[key], x.n);
    }
    return m;
  };
  const byCategory = uniformBy("c");
  if (byCategory) return `N (turns) per category: ${[...byCategory].map(([c, n]) => `${labelText(c)} ${formatCount(n)}`).join(", ")}.`;
  const bySeries = uniformBy("s");
  if (bySeries) return `N (turns) per series: ${[...bySeries].map(([s, n]) => `${labelText(s)} ${formatCount(n)}`).join(", ")}.`;
  return `N varies by point (${formatCount(Math.min(...all))} to ${formatCount(Math.max(...all))} turns; see each point's tooltip).`;
}

/** The figure JSON from resolved points (`points[s][c]`). Pure. */
export function figureData(spec: FigureSpec, points: readonly (readonly FigurePoint[])[]): FigureJson {
  checkFigureSpec(spec);
  const series = spec.series.map((s, si) => ({ name: s.name, points: spec.categories.map((category, ci) => points[si]?.[ci] ?? { category, ours: null, paper: null, absent: null }) }));
  return {
    schema: "cspipe.figure/2",
    id: spec.id,
    chart: spec.chart,
    title: spec.title,
    caption: spec.caption,
    nNote: describeN(spec.categories, series),
    yLabel: spec.yLabel,
    yUnit: spec.yUnit ?? null,
    xLabel: spec.xLabel ?? null,
    valueFormat: spec.valueFormat ?? { kind: "fixed", digits: 3 },
    yMax: spec.yMax ?? null,
    categories: [...spec.categories],
    series,
  };
}

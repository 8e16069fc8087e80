/**
 * Render a results table (ours beside the paper's numbers) as Markdown, CSV and JSON.
 *
 * A table spec names the rows (systems/variants) and columns (metrics); cells carry our
 * value, the N it was averaged over and the cache key of the step that produced it
 * (provenance). Paper numbers come from paper-numbers.json through `paperRow` /
 * `paperColumn` references. Output is deterministic: fixed formats, spec order, no dates.
 */
import { InputError } from "../../pipeline/engine/errors.ts";
import { csvLine, escapeMarkdownCell, formatNumber, formatPaperNumber } from "./format.ts";
import type { NumberFormat } from "./format.ts";
import type { PaperTable } from "./paper-numbers.ts";
import type { GroupRef } from "./metric-value.ts";

export interface TableColumnSpec {
  readonly id: string;
  readonly header: string;
  /** Canonical metric name (e.g. "recall@10"), as in the aggregates. */
  readonly metric: string;
  readonly format: NumberFormat;
  /** Column id in the paper table, if the paper has this column. */
  readonly paperColumn?: string;
  /** Take the metric from one breakdown group (e.g. question type "first") instead of the aggregate. */
  readonly group?: GroupRef;
}

export interface TableRowSpec {
  readonly id: string;
  readonly label: string;
  /** Row id in the paper table, if the paper has this row. */
  readonly paperRow?: string;
}

export interface TableSpec {
  readonly id: string;
  readonly title: string;
  readonly caption: string;
  readonly columns: readonly TableColumnSpec[];
  readonly rows: readonly TableRowSpec[];
}

export interface Cell {
  readonly value: number;
  readonly n: number;
  /** Cache key of the step that produced the number. */
  readonly stepKey: string;
}

/** rowId -> columnId -> cell. Absent cells render as "-". */
export type Cells = Readonly<Record<string, Readonly<Record<string, Cell | undefined>> | undefined>>;

export interface RenderedCell {
  readonly value: number | null;
  readonly formatted: string;
  readonly n: number | null;
  readonly stepKey: string | null;
  readonly paper: number | null;
  readonly paperFormatted: string;
}

export interface RenderedTableJson {
  readonly id: string;
  readonly title: string;
  readonly caption: string;
  readonly paperTable: string | null;
  readonly columns: readonly { id: string; header: string; metric: string; format: NumberFormat; paperColumn: string | null; group: GroupRef | null }[];
  readonly rows: readonly { id: string; label: string; paperRow: string | null; cells: Record<string, RenderedCell> }[];
}

export interface RenderedTable {
  readonly markdown: string;
  readonly csv: string;
  readonly json: string;
  readonly data: RenderedTableJson;
}

const DASH = "-";

function checkSpec(spec: TableSpec, cells: Cells, paper: PaperTable | undefined): void {
  const colIds = new Set<string>();
  for (const c of spec.columns) {
    if (colIds.has(c.id)) throw new InputError(`table '${spec.id}' repeats column '${c.id}'`, { field: "columns", fix: "give each column a unique id" });
    colIds.add(c.id);
    if (c.paperColumn !== undefined && paper !== undefined && !paper.columns.some((pc) => pc.id === c.paperColumn)) {
      throw new InputError(`table '${spec.id}' column '${c.id}' refers to paper column '${c.paperColumn}', which '${paper.id}' lacks`, { field: `columns.${c.id}.paperColumn`, fix: `use one of: ${paper.columns.map((pc) => pc.id).join(", ")}` });
    }
  }
  const rowIds = new Set<string>();
  for (const r of spec.rows) {
    if (rowIds.has(r.id)) throw new InputError(`table '${spec.id}' repeats row '${r.id}'`, { field: "rows", fix: "give each row a unique id" });
    rowIds.add(r.id);
    if (r.paperRow !== undefined && paper !== undefined && !paper.rows.some((pr) => pr.id === r.paperRow)) {
      throw new InputError(`table '${spec.id}' row '${r.id}' refers to paper row '${r.paperRow}', which '${paper.id}' lacks`, { field: `rows.${r.id}.paperRow`, fix: `use one of: ${paper.rows.map((pr) => pr.id).join(", ")}` });
    }
  }
  for (const rowId of Object.keys(cells)) {
    if (!rowIds.has(rowId)) throw new InputError(`cells for unknown row '${rowId}' in table '${spec.id}'`, { field: "cells", fix: "add the row to the spec or drop the cells" });
    for (const colId of Object.keys(cells[rowId] ?? {})) {
      if (!colIds.has(colId)) throw new InputError(`cell for unknown column '${colId}' (row '${rowId}') in table '${spec.id}'`, { field: "cells", fix: "add the column to the spec or drop the cell" });
    }
  }
}

function renderCell(spec: TableSpec, row: TableRowSpec, col: TableColumnSpec, cells: Cells, paper: PaperTable | undefined): RenderedCell {
  const cell = cells[row.id]?.[col.id];
  let paperValue: number | null = null;
  let paperFormatted = DASH;
  if (paper !== undefined && row.paperRow !== undefined && col.paperColumn !== undefined) {
    const pc = paper.columns.find((c) => c.id === col.paperColumn)!;
    const pv = paper.rows.find((r) => r.id === row.paperRow)!.values[pc.id];
    if (pv !== undefined && pv !== null) {
      paperValue = pv;
      paperFormatted = formatPaperNumber(pv, pc.unit, pc.digits);
    }
  }
  if (cell !== undefined && !Number.isFinite(cell.value)) {
    throw new InputError(`cell ${row.id}/${col.id} of table '${spec.id}' is ${cell.value}`, { field: `${row.id}.${col.id}`, fix: "pass finite metric values" });
  }
  return {
    value: cell?.value ?? null,
    formatted: cell === undefined ? DASH : formatNumber(cell.value, col.format),
    n: cell?.n ?? null,
    stepKey: cell?.stepKey ?? null,
    paper: paperValue,
    paperFormatted,
  };
}

/** N shown for a row: the single N of its cells, "n1/n2" when they differ, "-" when none. */
function rowN(cellsOfRow: readonly RenderedCell[]): string {
  const ns = [...new Set(cellsOfRow.map((c) => c.n).filter((n): n is number => n !== null))].sort((a, b) => a - b);
  return ns.length === 0 ? DASH : ns.join("/");
}

export function renderTable(spec: TableSpec, cells: Cells, paper?: PaperTable): RenderedTable {
  checkSpec(spec, cells, paper);
  const rows = spec.rows.map((row) => {
    const rendered: Record<string, RenderedCell> = {};
    for (const col of spec.columns) rendered[col.id] = renderCell(spec, row, col, cells, paper);
    return { row, rendered };
  });
  const hasPaper = paper !== undefined;

  // Markdown
  const header = ["System"];
  const align = ["---"];
  for (const col of spec.columns) {
    header.push(escapeMarkdownCell(col.header));
    align.push("---:");
    if (hasPaper) {
      header.push(escapeMarkdownCell(`${col.header} (paper)`));
      align.push("---:");
    }
  }
  header.push("N");
  align.push("---:");
  const md: string[] = [`## ${escapeMarkdownCell(spec.title)}`, "", spec.caption, "", `| ${header.join(" | ")} |`, `| ${align.join(" | ")} |`];
  for (const { row, rendered } of rows) {
    const line = [escapeMarkdownCell(row.label)];
    for (const col of spec.columns) {
      const c = rendered[col.id]!;
      line.push(c.formatted);
      if (hasPaper) line.push(c.paperFormatted);
    }
    line.push(rowN(Object.values(rendered)));
    md.push(`| ${line.join(" | ")} |`);
  }
  md.push("");
  if (hasPaper) md.push(`Paper numbers: ${paper.label} (${paper.source} version), as printed.`, "");
  const provenance: string[] = [];
  for (const { row, rendered } of rows) {
    const keys = [...new Set(Object.values(rendered).map((c) => c.stepKey).filter((k): k is string => k !== null))].sort();
    if (keys.length > 0) provenance.push(`- ${escapeMarkdownCell(row.label)}: ${keys.map((k) => `\`${k}\``).join(", ")}`);
  }
  if (provenance.length > 0) md.push("Provenance (step cache keys):", "", ...provenance, "");

  // CSV (long form: one line per cell)
  const csv: string[] = [csvLine(["table", "row", "row_label", "column", "metric", "ours", "ours_formatted", "paper", "paper_formatted", "n", "step_key"])];
  for (const { row, rendered } of rows) {
    for (const col of spec.columns) {
      const c = rendered[col.id]!;
      csv.push(csvLine([spec.id, row.id, row.label, col.id, col.metric, c.value === null ? "" : String(c.value), c.value === null ? "" : c.formatted, c.paper === null ? "" : String(c.paper), c.paper === null ? "" : c.paperFormatted, c.n === null ? "" : String(c.n), c.stepKey ?? ""]));
    }
  }

  const data: RenderedTableJson = {
    id: spec.id,
    title: spec.title,
    caption: spec.caption,
    paperTable: paper?.id ?? null,
    columns: spec.columns.map((c) => ({ id: c.id, header: c.header, metric: c.metric, format: c.format, paperColumn: c.paperColumn ?? null, group: c.group ?? null })),
    rows: rows.map(({ row, rendered }) => ({ id: row.id, label: row.label, paperRow: row.paperRow ?? null, cells: rendered })),
  };
  return { markdown: md.join("\n"), csv: csv.join("\n") + "\n", json: JSON.stringify(data, null, 2) + "\n", data };
}

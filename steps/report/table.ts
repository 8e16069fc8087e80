/**
 * A results table (ours beside the paper's numbers) as data: the table JSON is the one
 * record every view is rendered from (Markdown, CSV here; HTML in table-html.ts, inside the
 * report, where cells link to provenance pages).
 *
 * A table spec names the rows (systems/variants) and columns (metrics). Columns may carry a
 * `band` (a dataset or question type): adjacent columns of one band share a header and an N.
 * A cell is fed by one evaluation, or by several (one per training seed): then it holds their
 * mean, the sample standard deviation (n - 1) and the number of seeds, and keeps every
 * evaluation's cache key (provenance). A cell can also be declared to have no input (e.g.
 * X_t \ {q_t} on a first turn is empty), which renders "-" with a footnote, as the paper does.
 * Paper numbers come from paper-numbers.json through `paperRow` / `paperColumn` references.
 * Output is deterministic: fixed formats, spec order, no dates.
 */
import { InputError } from "../../pipeline/engine/errors.ts";
import { csvLine, formatNumber, formatPaperNumber, formatUnit } from "./format.ts";
import type { NumberFormat } from "./format.ts";
import type { PaperTable } from "./paper-numbers.ts";
import type { GroupRef } from "./metric-value.ts";
import type { CellStatus, RenderedCell, RenderedRow, RenderedTableJson } from "./rendered-table.ts";
import { renderTableMarkdown } from "./table-markdown.ts";

export interface TableColumnSpec {
  readonly id: string;
  readonly header: string;
  /** Canonical metric name (e.g. "recall@10"), as in the aggregates. */
  readonly metric: string;
  readonly format: NumberFormat;
  /** Column id in the paper table, if the paper has this column. */
  readonly paperColumn?: string | undefined;
  /** Take the metric from one breakdown group (e.g. question type "first") instead of the aggregate. */
  readonly group?: GroupRef | undefined;
  /** Column band (e.g. "QReCC test", "first"): adjacent columns of one band share a header and an N. */
  readonly band?: string | undefined;
  /** Unit shown under the header; default from the format ("%" for percent, "fraction" for fixed). */
  readonly unit?: string | undefined;
}

export interface TableRowSpec {
  readonly id: string;
  readonly label: string;
  /** Row id in the paper table, if the paper has this row. */
  readonly paperRow?: string | undefined;
}

export interface TableSpec {
  readonly id: string;
  readonly title: string;
  readonly caption: string;
  readonly columns: readonly TableColumnSpec[];
  readonly rows: readonly TableRowSpec[];
  /** What N counts, when not retrieval turns (the default legend: turns with a gold passage). */
  readonly counted?: string | undefined;
}

/** One evaluation's number for a cell. */
export interface CellInput {
  readonly value: number;
  readonly n: number;
  /** Cache key of the step that produced the number. */
  readonly stepKey: string;
}

/** What feeds a cell: one evaluation, several (seeds), or a statement that the metric is undefined. */
export type CellSource = CellInput | readonly CellInput[] | { readonly noInput: string } | { readonly noTurns: string };

/** rowId -> columnId -> cell source. Absent cells render as "-". */
export type Cells = Readonly<Record<string, Readonly<Record<string, CellSource | undefined>> | undefined>>;

export type { CellStatus, RenderedCell, RenderedColumn, RenderedRow, RenderedTableJson } from "./rendered-table.ts";

export interface RenderedTable {
  readonly markdown: string;
  readonly csv: string;
  readonly json: string;
  readonly data: RenderedTableJson;
}

export const DASH = "-";

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

/** Mean and sample standard deviation (n - 1; null for one value), summed in the given order. */
export function meanSd(values: readonly number[]): { mean: number; sd: number | null } {
  if (values.length === 0) throw new RangeError("meanSd of no values");
  let sum = 0;
  for (const v of values) sum += v;
  const mean = sum / values.length;
  if (values.length === 1) return { mean, sd: null };
  let ss = 0;
  for (const v of values) ss += (v - mean) * (v - mean);
  return { mean, sd: Math.sqrt(ss / (values.length - 1)) };
}

/** "58.3 ± 1.2": the mean, and the sd in the same format and digits when there is one. */
export function formatMeanSd(mean: number, sd: number | null, format: NumberFormat): string {
  return sd === null ? formatNumber(mean, format) : `${formatNumber(mean, format)} ± ${formatNumber(sd, format)}`;
}

/** Several evaluations of one cell: sorted by key (so the sum, and its last bits, do not depend on wiring order). */
export function combineInputs(inputs: readonly CellInput[], where: string): { value: number; sd: number | null; n: number; stepKeys: string[] } {
  const sorted = [...inputs].sort((a, b) => (a.stepKey < b.stepKey ? -1 : a.stepKey > b.stepKey ? 1 : a.value - b.value));
  for (const i of sorted) if (!Number.isFinite(i.value)) throw new InputError(`${where} is ${i.value}`, { field: where, fix: "pass finite metric values" });
  const ns = [...new Set(sorted.map((i) => i.n))].sort((a, b) => a - b);
  if (ns.length > 1) {
    throw new InputError(`${where} averages evaluations over different numbers of queries (${ns.join(", ")})`, { field: where, fix: "average only seeds of one evaluation setup (same split and filter)" });
  }
  const { mean, sd } = meanSd(sorted.map((i) => i.value));
  return { value: mean, sd, n: ns[0]!, stepKeys: [...new Set(sorted.map((i) => i.stepKey))] };
}

function paperNumber(row: TableRowSpec, col: TableColumnSpec, paper: PaperTable | undefined): { paper: number | null; paperFormatted: string } {
  if (paper === undefined || row.paperRow === undefined || col.paperColumn === undefined) return { paper: null, paperFormatted: DASH };
  const pc = paper.columns.find((c) => c.id === col.paperColumn)!;
  const pv = paper.rows.find((r) => r.id === row.paperRow)!.values[pc.id];
  if (pv === undefined || pv === null) return { paper: null, paperFormatted: DASH };
  return { paper: pv, paperFormatted: formatPaperNumber(pv, pc.unit, pc.digits) };
}

function renderCell(spec: TableSpec, row: TableRowSpec, col: TableColumnSpec, source: CellSource | undefined, note: (text: string) => string, paper: PaperTable | undefined): RenderedCell {
  const p = paperNumber(row, col, paper);
  const empty = (status: CellStatus, mark: string | null): RenderedCell => ({ status, value: null, sd: null, seeds: 0, n: null, formatted: DASH, stepKeys: [], note: mark, ...p });
  if (source === undefined) return empty("none", null);
  if ("noInput" in source) return empty("no-input", note(source.noInput));
  if ("noTurns" in source) return empty("no-turns", note(source.noTurns));
  const inputs: readonly CellInput[] = Array.isArray(source) ? source : [source as CellInput];
  if (inputs.length === 0) return empty("none", null);
  const c = combineInputs(inputs, `cell ${row.id}/${col.id} of table '${spec.id}'`);
  return { status: "value", value: c.value, sd: c.sd, seeds: inputs.length, n: c.n, formatted: formatMeanSd(c.value, c.sd, col.format), stepKeys: c.stepKeys, note: null, ...p };
}

const NOTE_MARKS = "abcdefghijklmnopqrstuvwxyz";

export function renderTable(spec: TableSpec, cells: Cells, paper?: PaperTable): RenderedTable {
  checkSpec(spec, cells, paper);
  const notes: { mark: string; text: string }[] = [];
  const note = (text: string): string => {
    let n = notes.find((x) => x.text === text);
    if (n === undefined) {
      if (notes.length >= NOTE_MARKS.length) throw new InputError(`table '${spec.id}' has more than ${NOTE_MARKS.length} distinct footnotes`, { field: "cells", fix: "reuse footnote texts" });
      notes.push((n = { mark: NOTE_MARKS[notes.length]!, text }));
    }
    return n.mark;
  };
  const rows: RenderedRow[] = spec.rows.map((row) => {
    const rendered: Record<string, RenderedCell> = {};
    for (const col of spec.columns) rendered[col.id] = renderCell(spec, row, col, cells[row.id]?.[col.id], note, paper);
    return { id: row.id, label: row.label, paperRow: row.paperRow ?? null, cells: rendered };
  });
  const data: RenderedTableJson = {
    schema: "cspipe.table/2",
    id: spec.id,
    title: spec.title,
    caption: spec.caption,
    paperTable: paper?.id ?? null,
    paperLabel: paper === undefined ? null : `${paper.label} (${paper.source} version)`,
    columns: spec.columns.map((c) => ({
      id: c.id,
      header: c.header,
      band: c.band ?? null,
      unit: c.unit ?? formatUnit(c.format),
      metric: c.metric,
      format: c.format,
      paperColumn: c.paperColumn ?? null,
      group: c.group ?? null,
    })),
    rows,
    notes,
    maxSeeds: Math.max(1, ...rows.flatMap((r) => Object.values(r.cells).map((c) => c.seeds))),
    counted: spec.counted ?? null,
  };

  // CSV (long form: one line per cell; every evaluation key, space-separated)
  const csv: string[] = [csvLine(["table", "row", "row_label", "band", "column", "metric", "unit", "ours", "ours_sd", "seeds", "ours_formatted", "paper", "paper_formatted", "n", "status", "step_keys"])];
  for (const row of rows) {
    for (const col of data.columns) {
      const c = row.cells[col.id]!;
      csv.push(
        csvLine([
          spec.id,
          row.id,
          row.label,
          col.band ?? "",
          col.id,
          col.metric,
          col.unit,
          c.value === null ? "" : String(c.value),
          c.sd === null ? "" : String(c.sd),
          String(c.seeds),
          c.value === null ? "" : c.formatted,
          c.paper === null ? "" : String(c.paper),
          c.paper === null ? "" : c.paperFormatted,
          c.n === null ? "" : String(c.n),
          c.status,
          c.stepKeys.join(" "),
        ]),
      );
    }
  }
  return { markdown: renderTableMarkdown(data), csv: csv.join("\n") + "\n", json: JSON.stringify(data, null, 2) + "\n", data };
}

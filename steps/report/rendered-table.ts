/** A rendered table as data (table.ts renders it; table-markdown.ts, table-layout.ts and table-html.ts lay it out). */
import type { NumberFormat } from "./format.ts";
import type { GroupRef } from "./metric-value.ts";

/** Why a cell holds no number: not computed, undefined by construction, or an empty breakdown group. */
export type CellStatus = "value" | "none" | "no-input" | "no-turns";

export interface RenderedCell {
  readonly status: CellStatus;
  /** Mean over the seeds (the value itself for one seed). */
  readonly value: number | null;
  /** Sample standard deviation over the seeds (null for one seed). */
  readonly sd: number | null;
  /** Evaluations averaged (0 when there is no number). */
  readonly seeds: number;
  readonly n: number | null;
  /** "58.3", "58.3 ± 1.2" (sd with the cell's digits), or "-". */
  readonly formatted: string;
  /** Cache keys of the evaluations behind the number, sorted. */
  readonly stepKeys: readonly string[];
  /** Footnote mark ("a", "b", ...) for "no-input" / "no-turns" cells. */
  readonly note: string | null;
  readonly paper: number | null;
  readonly paperFormatted: string;
}

export interface RenderedColumn {
  readonly id: string;
  readonly header: string;
  readonly band: string | null;
  readonly unit: string;
  readonly metric: string;
  readonly format: NumberFormat;
  readonly paperColumn: string | null;
  readonly group: GroupRef | null;
}

export interface RenderedRow {
  readonly id: string;
  readonly label: string;
  readonly paperRow: string | null;
  readonly cells: Readonly<Record<string, RenderedCell>>;
}

export interface RenderedTableJson {
  readonly schema: "cspipe.table/2";
  readonly id: string;
  readonly title: string;
  readonly caption: string;
  readonly paperTable: string | null;
  /** E.g. "Table 2 (final version)"; null without paper numbers. */
  readonly paperLabel: string | null;
  readonly columns: readonly RenderedColumn[];
  readonly rows: readonly RenderedRow[];
  /** Footnotes referenced by cells' `note`. */
  readonly notes: readonly { readonly mark: string; readonly text: string }[];
  /** Largest number of seeds behind any cell (1 when every cell is a single evaluation). */
  readonly maxSeeds: number;
  /** What N counts; null: the evaluated split's turns with a gold passage. */
  readonly counted: string | null;
}

/**
 * How a rendered table is laid out for reading, shared by the Markdown and HTML views:
 * - bands: runs of adjacent columns with one `band` (a dataset, a question type), each with
 *   its N: one number under the band when every cell of the band averages over the same
 *   turns, else an N column inside the band (one N per row);
 * - panels: a table wider than `maxColumns` number columns (ours and paper count apart) is
 *   split between bands into several panels of whole bands, in order (Table 1's four
 *   question types become two panels of two), each repeating the row labels.
 * Pure.
 */
import type { RenderedColumn, RenderedTableJson } from "./rendered-table.ts";

export interface BandLayout {
  readonly label: string | null;
  readonly columns: readonly RenderedColumn[];
  /** The band's N when all its numbers share one (null when it has no number). */
  readonly n: number | null;
  /** Row id -> N ("n1/n2" style list when a row's cells differ) when the band's N varies by row. */
  readonly perRowN: Readonly<Record<string, readonly number[]>> | null;
}

export interface Panel {
  readonly bands: readonly BandLayout[];
}

/** Number columns per panel above which a table is split between bands. */
export const MAX_PANEL_COLUMNS = 12;

function bandsOf(t: RenderedTableJson): BandLayout[] {
  const runs: { label: string | null; columns: RenderedColumn[] }[] = [];
  for (const c of t.columns) {
    const last = runs[runs.length - 1];
    if (last !== undefined && last.label !== null && last.label === c.band) last.columns.push(c);
    else runs.push({ label: c.band, columns: [c] });
  }
  return runs.map((r) => {
    const perRow: Record<string, number[]> = {};
    const all = new Set<number>();
    for (const row of t.rows) {
      const ns = [...new Set(r.columns.map((c) => row.cells[c.id]?.n).filter((n): n is number => typeof n === "number"))].sort((a, b) => a - b);
      perRow[row.id] = ns;
      for (const n of ns) all.add(n);
    }
    const uniform = all.size <= 1;
    return { label: r.label, columns: r.columns, n: uniform ? ([...all][0] ?? null) : null, perRowN: uniform ? null : perRow };
  });
}

/** Number columns a band takes: ours (+ paper) per column, plus its N column. */
export function bandWidth(b: BandLayout, withPaper: boolean): number {
  return b.columns.length * (withPaper ? 2 : 1) + (b.perRowN === null ? 0 : 1);
}

export function tableLayout(t: RenderedTableJson, maxColumns = MAX_PANEL_COLUMNS): Panel[] {
  const withPaper = t.paperTable !== null;
  const panels: BandLayout[][] = [];
  let width = 0;
  for (const b of bandsOf(t)) {
    const w = bandWidth(b, withPaper);
    const current = panels[panels.length - 1];
    if (current === undefined || (width + w > maxColumns && current.length > 0)) {
      panels.push([b]);
      width = w;
    } else {
      current.push(b);
      width += w;
    }
  }
  return panels.map((bands) => ({ bands }));
}

/** The sentence every table carries about N and, when cells average seeds, about ±. */
export function tableLegend(t: RenderedTableJson): string[] {
  const counted = t.counted ?? "turns of the evaluated split with a gold passage; under a question type, the labelled turns of that type";
  const out = [`N: the number of turns each number averages over (${counted}).`];
  if (t.maxSeeds > 1) out.push("a ± b: mean and sample standard deviation over training seeds (the cell's page lists each seed's evaluation).");
  return out;
}

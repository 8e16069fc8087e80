/**
 * The Markdown view of a rendered table (GitHub flavour): one pipe table per panel
 * (table-layout.ts), row labels typeset with `<sub>`/`<sup>` (label.ts), headers with band,
 * metric and unit, the paper's number right after ours, N per band (a last "N" row, or an N
 * column where it varies by row), "-" with a footnote mark where a metric is undefined, and
 * the legend. With `href`, numbers link to their provenance pages (the report's index.md).
 */
import { formatCount } from "./format.ts";
import { labelMarkdown } from "./label.ts";
import type { RenderedCell, RenderedTableJson } from "./rendered-table.ts";
import { tableLayout, tableLegend, type BandLayout } from "./table-layout.ts";

export interface TableViewOptions {
  /** Link target of a cell with a number (relative to the page the table is embedded in). */
  readonly href?: (cell: RenderedCell) => string | undefined;
  /** Markdown heading level of the title (default 2). */
  readonly heading?: number;
}

const mdText = (s: string): string => s.replace(/[\\|*_`[\]<>]/g, (c) => `\\${c}`).replace(/\r?\n/g, " ");

function cellText(c: RenderedCell, href: TableViewOptions["href"]): string {
  const text = c.note === null ? c.formatted : `${c.formatted}<sup>${c.note}</sup>`;
  const link = c.status === "value" ? href?.(c) : undefined;
  return link === undefined ? text : `[${text}](${link})`;
}

function header(b: BandLayout, col: BandLayout["columns"][number]): string {
  const band = b.label === null ? "" : `${mdText(b.label)}<br>`;
  return `${band}${labelMarkdown(col.header)} (${mdText(col.unit)})`;
}

export function renderTableMarkdown(t: RenderedTableJson, options: TableViewOptions = {}): string {
  const withPaper = t.paperTable !== null;
  const md: string[] = [`${"#".repeat(options.heading ?? 2)} ${labelMarkdown(t.title)}`, "", labelMarkdown(t.caption), ""];
  const panels = tableLayout(t);
  panels.forEach((panel, pi) => {
    if (panels.length > 1) md.push(`*Part ${pi + 1} of ${panels.length}: ${panel.bands.map((b) => mdText(b.label ?? "")).filter((s) => s !== "").join(", ")}*`, "");
    const head = ["System"];
    const align = ["---"];
    for (const b of panel.bands) {
      for (const col of b.columns) {
        head.push(header(b, col));
        align.push("---:");
        if (withPaper) {
          head.push("paper");
          align.push("---:");
        }
      }
      if (b.perRowN !== null) {
        head.push(b.label === null ? "N" : `${mdText(b.label)}<br>N`);
        align.push("---:");
      }
    }
    md.push(`| ${head.join(" | ")} |`, `| ${align.join(" | ")} |`);
    for (const row of t.rows) {
      const line = [labelMarkdown(row.label)];
      for (const b of panel.bands) {
        for (const col of b.columns) {
          const c = row.cells[col.id]!;
          line.push(cellText(c, options.href));
          if (withPaper) line.push(c.paperFormatted);
        }
        if (b.perRowN !== null) line.push(b.perRowN[row.id]!.length === 0 ? "-" : b.perRowN[row.id]!.map(formatCount).join("/"));
      }
      md.push(`| ${line.join(" | ")} |`);
    }
    if (panel.bands.some((b) => b.perRowN === null && b.n !== null)) {
      const line = ["N"];
      for (const b of panel.bands) {
        for (const _col of b.columns) {
          line.push(b.perRowN === null && b.n !== null ? formatCount(b.n) : "");
          if (withPaper) line.push("");
        }
        if (b.perRowN !== null) line.push("");
      }
      md.push(`| ${line.join(" | ")} |`);
    }
    md.push("");
  });
  for (const n of t.notes) md.push(`<sup>${n.mark}</sup> ${labelMarkdown(n.text)}  `);
  for (const l of tableLegend(t)) md.push(`${mdText(l)}  `);
  if (t.paperLabel !== null) md.push(`paper: ${mdText(t.paperLabel)}, as printed ("-": the paper gives no number).  `);
  md.push("");
  return md.join("\n");
}

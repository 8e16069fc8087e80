/**
 * The HTML view of a rendered table, for the report's index.html: per panel
 * (table-layout.ts) one `<table>` with a header of up to three rows (band, metric with its
 * unit, ours | paper), typeset labels, every number a link to its provenance page (`href`),
 * the paper's number in its own column, N per band in the footer (or an N column where it
 * varies by row), "-" with a footnote mark where a metric is undefined, then the notes and
 * the legend. All text is escaped (html.ts).
 */
import { formatCount } from "./format.ts";
import { labelHtml } from "./label.ts";
import { el, raw, type Html } from "./html.ts";
import type { RenderedCell, RenderedTableJson } from "./rendered-table.ts";
import { tableLayout, tableLegend, type Panel } from "./table-layout.ts";

export interface TableHtmlOptions {
  /** Link target of a cell with a number (relative to the page); undefined = no link. */
  readonly href: (cell: RenderedCell) => string | undefined;
}

function numberHtml(c: RenderedCell): Html {
  if (c.status !== "value") return c.note === null ? raw("-") : raw(`-<sup class="note">${c.note}</sup>`);
  const [mean, sd] = c.formatted.split(" ± ");
  return sd === undefined ? raw(mean!) : raw(`${mean}<span class="sd"> ± ${sd}</span>`);
}

function oursCell(c: RenderedCell, o: TableHtmlOptions): Html {
  if (c.status !== "value") return el("td", { class: `num ours ${c.status}`, title: c.status === "none" ? "not computed" : undefined }, numberHtml(c));
  const title = `N = ${formatCount(c.n ?? 0)}${c.seeds > 1 ? `, mean ± sd over ${c.seeds} seeds` : ""}`;
  const href = o.href(c);
  return el("td", { class: "num ours", title: href === undefined ? title : undefined }, href === undefined ? numberHtml(c) : el("a", { href, title: `${title}: provenance` }, numberHtml(c)));
}

function panelTable(t: RenderedTableJson, panel: Panel, o: TableHtmlOptions): Html {
  const withPaper = t.paperTable !== null;
  const hasBands = panel.bands.some((b) => b.label !== null);
  const levels = (hasBands ? 1 : 0) + 1 + (withPaper ? 1 : 0);
  const head: Html[][] = Array.from({ length: levels }, () => []);
  head[0]!.push(el("th", { class: "system", rowspan: levels > 1 ? String(levels) : undefined, scope: "col" }, "System"));
  for (const b of panel.bands) {
    const span = b.columns.length * (withPaper ? 2 : 1) + (b.perRowN === null ? 0 : 1);
    let level = 0;
    if (hasBands) {
      head[0]!.push(el("th", { class: "band", colspan: String(span), scope: "colgroup" }, b.label ?? ""));
      level = 1;
    }
    for (const col of b.columns) {
      head[level]!.push(el("th", { class: "metric", colspan: withPaper ? "2" : undefined, scope: "colgroup" }, raw(labelHtml(col.header)), el("span", { class: "unit" }, col.unit)));
      if (withPaper) head[level + 1]!.push(el("th", { class: "ours" }, "ours"), el("th", { class: "paper" }, "paper"));
    }
    if (b.perRowN !== null) head[level]!.push(el("th", { class: "n", rowspan: withPaper ? "2" : undefined, scope: "col" }, "N"));
  }
  const body = t.rows.map((row) => {
    const cells: Html[] = [el("th", { scope: "row", class: "system" }, raw(labelHtml(row.label)))];
    for (const b of panel.bands) {
      for (const col of b.columns) {
        const c = row.cells[col.id]!;
        cells.push(oursCell(c, o));
        if (withPaper) cells.push(el("td", { class: "num paper" }, c.paperFormatted));
      }
      if (b.perRowN !== null) cells.push(el("td", { class: "num n" }, b.perRowN[row.id]!.length === 0 ? "-" : b.perRowN[row.id]!.map(formatCount).join("/")));
    }
    return el("tr", {}, ...cells);
  });
  const foot: Html[] = [el("th", { scope: "row", class: "system" }, "N")];
  let anyFoot = false;
  for (const b of panel.bands) {
    const span = b.columns.length * (withPaper ? 2 : 1);
    anyFoot ||= b.perRowN === null && b.n !== null;
    foot.push(el("td", { class: "num n", colspan: span > 1 ? String(span) : undefined }, b.perRowN === null && b.n !== null ? formatCount(b.n) : ""));
    if (b.perRowN !== null) foot.push(el("td", { class: "n" }, ""));
  }
  return el(
    "table",
    { class: "results" },
    el("thead", {}, ...head.map((cells) => el("tr", {}, ...cells))),
    el("tbody", {}, ...body),
    anyFoot ? el("tfoot", {}, el("tr", {}, ...foot)) : raw(""),
  );
}

/** The table as an HTML fragment (`<section>`), with an id for in-page links. */
export function renderTableHtml(t: RenderedTableJson, o: TableHtmlOptions, downloads: readonly { label: string; href: string }[] = []): Html {
  const panels = tableLayout(t);
  const parts: Html[] = [];
  panels.forEach((panel, i) => {
    if (panels.length > 1) parts.push(el("p", { class: "panel" }, `Part ${i + 1} of ${panels.length}: ${panel.bands.map((b) => b.label ?? "").filter((s) => s !== "").join(", ")}`));
    parts.push(el("div", { class: "scroll" }, panelTable(t, panel, o)));
  });
  const notes: Html[] = t.notes.map((n) => el("li", {}, raw(`<sup class="note">${n.mark}</sup> `), raw(labelHtml(n.text))));
  for (const l of tableLegend(t)) notes.push(el("li", {}, l));
  if (t.paperLabel !== null) notes.push(el("li", {}, `paper: ${t.paperLabel}, as printed ("-": the paper gives no number).`));
  const links = downloads.map((d, i) => [i > 0 ? raw(" · ") : raw(""), el("a", { href: d.href }, d.label)]).flat();
  return el(
    "section",
    { class: "table", id: t.id },
    el("h3", {}, raw(labelHtml(t.title))),
    el("p", { class: "caption" }, raw(labelHtml(t.caption))),
    ...parts,
    el("ul", { class: "notes" }, ...notes),
    links.length > 0 ? el("p", { class: "downloads" }, "Data: ", ...links) : raw(""),
  );
}

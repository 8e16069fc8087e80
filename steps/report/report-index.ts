/**
 * The report's front page, `index.html` and `index.md`: the statement of which data produced
 * it (mini or real), the findings, every table rendered (ours beside the paper's, units, N,
 * notes; every number a link to its provenance page), every figure (inline SVG whose marks
 * link the same way, with its caption and N), and the stage graph of the pipeline that made
 * it. The HTML is self-contained (inline CSS, no scripts) and escapes all text. Pure.
 */
import { InputError } from "../../pipeline/engine/errors.ts";
import { el, lines, raw, type Html } from "./html.ts";
import { labelHtml, labelMarkdown } from "./label.ts";
import { REPORT_CSS } from "./style.ts";
import type { RenderedTableJson } from "./table.ts";
import { renderTableHtml } from "./table-html.ts";
import { renderTableMarkdown } from "./table-markdown.ts";
import type { FigureJson } from "./figure.ts";
import { renderFigureSvg } from "./svg.ts";
import { findingsHtml, findingsMarkdown, type Findings } from "./findings.ts";

export type ReportFileKind = "markdown" | "csv" | "json" | "svg";

export interface ReportEntry<D> {
  readonly data: D;
  /** Paths relative to the report directory. */
  readonly files: Partial<Record<ReportFileKind, string>>;
}

export interface ReportIndexSpec {
  readonly title: string;
  /** "mini": the synthetic benchmark (numbers not comparable to the paper); "real": the full datasets. */
  readonly dataset: "mini" | "real";
  /** One sentence on the data, e.g. "QReCC test (16,451 turns), TopiOCQA dev". */
  readonly datasetDescription: string;
  readonly notes?: readonly string[];
  readonly tables: readonly ReportEntry<RenderedTableJson>[];
  readonly figures: readonly ReportEntry<FigureJson>[];
  readonly findings?: Findings;
  /** Where the models behind the numbers computed (numerics-record.ts), when they recorded it. */
  readonly numerics?: string;
  /** The stage graph (SVG) and the provenance index page, when the report has provenance pages. */
  readonly provenance?: { readonly stagesSvg: string; readonly index: string };
  /** The page a number with these evaluation keys links to (relative to the report root); undefined = no link. */
  readonly href: (keys: readonly string[]) => string | undefined;
}

export interface RenderedIndex {
  readonly markdown: string;
  readonly html: string;
}

const FILE_ORDER: readonly ReportFileKind[] = ["markdown", "csv", "json", "svg"];
const FILE_LABEL: Record<ReportFileKind, string> = { markdown: "Markdown", csv: "CSV", json: "JSON", svg: "SVG" };

export const DATASET_STATEMENT: Record<ReportIndexSpec["dataset"], string> = {
  mini: "Produced from the MINI benchmark (small synthetic data in the real formats, for checking the pipeline end to end). These numbers are NOT comparable to the paper's.",
  real: "Produced from the REAL datasets. Paper numbers are shown beside ours where the paper reports them.",
};

function checkRelative(path: string, entry: string): void {
  if (path === "" || path.startsWith("/") || /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(path) || path.split(/[\\/]/).includes("..")) {
    throw new InputError(`report entry '${entry}' links to '${path}', which is not a relative path inside the report`, { field: `entries.${entry}.files`, fix: "link files by paths relative to the report directory, without '..'" });
  }
}

function links(id: string, files: Partial<Record<ReportFileKind, string>>): { label: string; href: string }[] {
  const out: { label: string; href: string }[] = [];
  for (const kind of FILE_ORDER) {
    const path = files[kind];
    if (path === undefined) continue;
    checkRelative(path, id);
    out.push({ label: FILE_LABEL[kind], href: encodeURI(path.replace(/\\/g, "/")) });
  }
  return out;
}

/** A title up to its first colon ("Table 2: QReCC test ..." -> "Table 2"), for the contents. */
const shortTitle = (title: string): string => (title.includes(": ") ? title.slice(0, title.indexOf(": ")) : title);

function checkIds(spec: ReportIndexSpec): void {
  const ids = new Set<string>();
  for (const e of [...spec.tables, ...spec.figures]) {
    if (ids.has(e.data.id)) throw new InputError(`report entry '${e.data.id}' appears twice`, { field: "entries", fix: "list each table/figure once" });
    ids.add(e.data.id);
  }
}

function figureHtml(f: ReportEntry<FigureJson>, spec: ReportIndexSpec): Html {
  const svg = renderFigureSvg(f.data, { href: (p) => (p.ours === null ? undefined : spec.href(p.ours.stepKeys)) });
  const ls = links(f.data.id, f.files);
  return el(
    "figure",
    { id: f.data.id },
    raw(svg),
    el(
      "figcaption",
      {},
      el("strong", {}, raw(labelHtml(f.data.title))),
      ". ",
      raw(labelHtml(f.data.caption)),
      f.data.nNote === "" ? raw("") : [" ", f.data.nNote],
      ls.length > 0 ? [" Data: ", ...ls.flatMap((l, i) => [i > 0 ? raw(" · ") : raw(""), el("a", { href: l.href }, l.label)])] : raw(""),
    ),
  );
}

/** The table of contents: the tables, the figures (each by its short title) and the provenance section, where there are any. */
function tocHtml(spec: ReportIndexSpec): Html {
  const toc: Html[] = [];
  if (spec.tables.length > 0) toc.push(el("li", {}, el("a", { href: "#tables" }, "Tables"), el("ul", {}, ...spec.tables.map((t) => el("li", {}, el("a", { href: `#${t.data.id}`, title: t.data.title }, raw(labelHtml(shortTitle(t.data.title)))))))));
  if (spec.figures.length > 0) toc.push(el("li", {}, el("a", { href: "#figures" }, "Figures"), el("ul", {}, ...spec.figures.map((f) => el("li", {}, el("a", { href: `#${f.data.id}`, title: f.data.title }, raw(labelHtml(shortTitle(f.data.title)))))))));
  if (spec.provenance !== undefined) toc.push(el("li", {}, el("a", { href: "#pipeline" }, "How these numbers were made")));
  return el("nav", { class: "toc" }, el("ul", {}, ...toc));
}

/** A number's link: its provenance page (one key) or its seeds' page (several); none without keys. */
const cellHrefOf = (spec: ReportIndexSpec) => (keys: readonly string[]): string | undefined => (keys.length === 0 ? undefined : spec.href(keys));

/** index.html's body: title, data statement, numerics, findings, contents, notes, tables, figures, the stage graph. */
function bodyHtml(spec: ReportIndexSpec): Html[] {
  const notes = spec.notes ?? [];
  const cellHref = cellHrefOf(spec);
  const body: Html[] = [
    el("h1", {}, raw(labelHtml(spec.title))),
    el("p", { class: `dataset ${spec.dataset}` }, el("strong", {}, `Data: ${spec.dataset}.`), ` ${DATASET_STATEMENT[spec.dataset]}`, el("br", {}), spec.datasetDescription),
  ];
  if (spec.numerics !== undefined) body.push(el("p", { class: "numerics" }, el("strong", {}, "Numerics."), ` ${spec.numerics}`));
  if (spec.findings !== undefined) body.push(findingsHtml(spec.findings, (key) => spec.href([key])));
  body.push(tocHtml(spec));
  if (notes.length > 0) body.push(el("ul", { class: "notes" }, ...notes.map((n) => el("li", {}, n))));
  if (spec.tables.length > 0) {
    body.push(el("h2", { id: "tables" }, "Tables"));
    for (const t of spec.tables) body.push(renderTableHtml(t.data, { href: (c) => cellHref(c.stepKeys) }, links(t.data.id, t.files)));
  }
  if (spec.figures.length > 0) {
    body.push(el("h2", { id: "figures" }, "Figures"));
    body.push(el("p", { class: "caption" }, "Bars and points are ours (click one for its provenance); diamonds are the paper's printed numbers where it gives them; error bars are ± sd over training seeds where there are several."));
    for (const f of spec.figures) body.push(figureHtml(f, spec));
  }
  if (spec.provenance !== undefined) {
    body.push(
      el("h2", { id: "pipeline" }, "How these numbers were made"),
      el("p", {}, "The pipeline's steps collapsed by kind (one box per step id, with how many steps of that kind ran). Every number above links to the page of the evaluation that produced it, which leads back through the run, the index, the model and its training curves, the training examples and mined negatives, to the data. ", el("a", { href: spec.provenance.index }, "All provenance pages"), "."),
      el("figure", { class: "stages" }, raw(spec.provenance.stagesSvg)),
    );
  }
  return body;
}

function indexHtml(spec: ReportIndexSpec): string {
  return (
    lines(
      raw("<!DOCTYPE html>"),
      raw('<html lang="en">'),
      el("head", {}, raw('<meta charset="utf-8">'), el("meta", { name: "viewport", content: "width=device-width, initial-scale=1" }), el("title", {}, spec.title), el("style", {}, raw(REPORT_CSS))),
      el("body", {}, ...bodyHtml(spec)),
      raw("</html>"),
    ).html + "\n"
  );
}

/** A "Data: [Markdown](…) · [CSV](…)" line and a blank one, or nothing without files. */
function dataLinksMarkdown(ls: readonly { label: string; href: string }[]): string[] {
  return ls.length > 0 ? [`Data: ${ls.map((l) => `[${l.label}](${l.href})`).join(" · ")}`, ""] : [];
}

/** index.md's figures: each one's title, image, caption with N, and data links. */
function figuresMarkdown(figures: ReportIndexSpec["figures"]): string[] {
  const md = ["## Figures", ""];
  for (const f of figures) {
    md.push(`### ${labelMarkdown(f.data.title)}`, "");
    if (f.files.svg !== undefined) md.push(`![${labelMarkdown(f.data.title)}](${encodeURI(f.files.svg.replace(/\\/g, "/"))})`, "");
    md.push(`${labelMarkdown(f.data.caption)}${f.data.nNote === "" ? "" : ` ${f.data.nNote}`}`, "");
    md.push(...dataLinksMarkdown(links(f.data.id, f.files)));
  }
  return md;
}

function indexMarkdown(spec: ReportIndexSpec): string {
  const notes = spec.notes ?? [];
  const cellHref = cellHrefOf(spec);
  const md: string[] = [`# ${labelMarkdown(spec.title)}`, "", `**Data: ${spec.dataset}.** ${DATASET_STATEMENT[spec.dataset]}`, "", labelMarkdown(spec.datasetDescription), ""];
  if (spec.numerics !== undefined) md.push(`**Numerics.** ${spec.numerics}`, "");
  for (const n of notes) md.push(`- ${labelMarkdown(n)}`);
  if (notes.length > 0) md.push("");
  if (spec.findings !== undefined) md.push(findingsMarkdown(spec.findings, (key) => spec.href([key])));
  if (spec.tables.length > 0) {
    md.push("## Tables", "");
    for (const t of spec.tables) md.push(renderTableMarkdown(t.data, { heading: 3, href: (c) => cellHref(c.stepKeys) }), ...dataLinksMarkdown(links(t.data.id, t.files)));
  }
  if (spec.figures.length > 0) md.push(...figuresMarkdown(spec.figures));
  if (spec.provenance !== undefined) md.push("## How these numbers were made", "", `Every number links to the page of the evaluation that produced it; [all provenance pages](${spec.provenance.index}).`, "");
  return md.join("\n");
}

/** Render both index files. Pure; tables and figures keep the given order. */
export function renderReportIndex(spec: ReportIndexSpec): RenderedIndex {
  checkIds(spec);
  const html = indexHtml(spec);
  return { markdown: indexMarkdown(spec), html };
}

/**
 * The report's front page: `index.md` and `index.html` listing every rendered table and
 * figure, with a statement of which dataset (mini fixtures or the real data) produced
 * them. The HTML is self-contained (inline CSS, no scripts) and escapes all text.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { InputError } from "../../pipeline/engine/errors.ts";
import { escapeMarkdownCell, escapeXml } from "./format.ts";

export type ReportFileKind = "markdown" | "csv" | "json" | "svg";

export interface ReportEntry {
  readonly kind: "table" | "figure";
  readonly id: string;
  readonly title: string;
  readonly caption?: string;
  /** Paths relative to the report directory. */
  readonly files: Partial<Record<ReportFileKind, string>>;
}

export interface ReportIndexSpec {
  readonly title: string;
  /** "mini": tiny fixtures (smoke test, numbers not comparable to the paper); "real": the full datasets. */
  readonly dataset: "mini" | "real";
  /** One sentence on the data, e.g. "QReCC test (16,451 turns), TopiOCQA dev". */
  readonly datasetDescription: string;
  readonly entries: readonly ReportEntry[];
  readonly notes?: readonly string[];
}

export interface RenderedIndex {
  readonly markdown: string;
  readonly html: string;
}

const FILE_ORDER: readonly ReportFileKind[] = ["markdown", "csv", "json", "svg"];
const FILE_LABEL: Record<ReportFileKind, string> = { markdown: "Markdown", csv: "CSV", json: "JSON", svg: "SVG" };

const DATASET_STATEMENT: Record<ReportIndexSpec["dataset"], string> = {
  mini: "Produced from the MINI dataset (tiny fixtures for a smoke test). These numbers are NOT comparable to the paper's.",
  real: "Produced from the REAL datasets. Paper numbers are shown beside ours where the paper reports them.",
};

function checkRelative(path: string, entry: string): void {
  if (path === "" || path.startsWith("/") || /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(path) || path.split(/[\\/]/).includes("..")) {
    throw new InputError(`report entry '${entry}' links to '${path}', which is not a relative path inside the report`, { field: `entries.${entry}.files`, fix: "link files by paths relative to the report directory, without '..'" });
  }
}

function links(entry: ReportEntry): { kind: ReportFileKind; href: string }[] {
  const out: { kind: ReportFileKind; href: string }[] = [];
  for (const kind of FILE_ORDER) {
    const path = entry.files[kind];
    if (path === undefined) continue;
    checkRelative(path, entry.id);
    out.push({ kind, href: encodeURI(path.replace(/\\/g, "/")) });
  }
  return out;
}

/** Render both index files. Pure; entries keep the given order (tables first, then figures). */
export function renderReportIndex(spec: ReportIndexSpec): RenderedIndex {
  const ids = new Set<string>();
  for (const e of spec.entries) {
    if (ids.has(e.id)) throw new InputError(`report entry '${e.id}' appears twice`, { field: "entries", fix: "list each table/figure once" });
    ids.add(e.id);
  }
  const groups: { heading: string; entries: ReportEntry[] }[] = [
    { heading: "Tables", entries: spec.entries.filter((e) => e.kind === "table") },
    { heading: "Figures", entries: spec.entries.filter((e) => e.kind === "figure") },
  ];

  const md: string[] = [`# ${escapeMarkdownCell(spec.title)}`, "", `**Dataset: ${spec.dataset}.** ${DATASET_STATEMENT[spec.dataset]}`, "", escapeMarkdownCell(spec.datasetDescription), ""];
  for (const note of spec.notes ?? []) md.push(`- ${escapeMarkdownCell(note)}`);
  if ((spec.notes ?? []).length > 0) md.push("");
  for (const g of groups) {
    if (g.entries.length === 0) continue;
    md.push(`## ${g.heading}`, "");
    for (const e of g.entries) {
      const ls = links(e).map((l) => `[${FILE_LABEL[l.kind]}](${l.href})`);
      md.push(`- **${escapeMarkdownCell(e.title)}** (${escapeMarkdownCell(e.id)})${ls.length > 0 ? `: ${ls.join(" · ")}` : ""}`);
      if (e.caption !== undefined) md.push(`  ${escapeMarkdownCell(e.caption)}`);
      if (e.kind === "figure" && e.files.svg !== undefined) md.push("", `  ![${escapeMarkdownCell(e.title)}](${encodeURI(e.files.svg.replace(/\\/g, "/"))})`, "");
    }
    md.push("");
  }

  const html: string[] = [
    "<!DOCTYPE html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    `<title>${escapeXml(spec.title)}</title>`,
    "<style>body{font-family:sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;line-height:1.4}" +
      ".dataset{padding:.6rem 1rem;border-left:4px solid #0072B2;background:#f2f7fb}.dataset.mini{border-color:#D55E00;background:#fdf3ec}" +
      "li{margin:.5rem 0}.caption{color:#444;font-size:.9rem}img{max-width:100%;border:1px solid #ddd}</style>",
    "</head>",
    "<body>",
    `<h1>${escapeXml(spec.title)}</h1>`,
    `<p class="dataset ${spec.dataset}"><strong>Dataset: ${escapeXml(spec.dataset)}.</strong> ${escapeXml(DATASET_STATEMENT[spec.dataset])}<br>${escapeXml(spec.datasetDescription)}</p>`,
  ];
  if ((spec.notes ?? []).length > 0) html.push("<ul>", ...(spec.notes ?? []).map((n) => `<li>${escapeXml(n)}</li>`), "</ul>");
  for (const g of groups) {
    if (g.entries.length === 0) continue;
    html.push(`<h2>${g.heading}</h2>`, "<ul>");
    for (const e of g.entries) {
      const ls = links(e).map((l) => `<a href="${escapeXml(l.href)}">${FILE_LABEL[l.kind]}</a>`);
      let item = `<li id="${escapeXml(e.id)}"><strong>${escapeXml(e.title)}</strong> (${escapeXml(e.id)})${ls.length > 0 ? `: ${ls.join(" · ")}` : ""}`;
      if (e.caption !== undefined) item += `<br><span class="caption">${escapeXml(e.caption)}</span>`;
      if (e.kind === "figure" && e.files.svg !== undefined) item += `<br><img src="${escapeXml(encodeURI(e.files.svg.replace(/\\/g, "/")))}" alt="${escapeXml(e.title)}">`;
      html.push(item + "</li>");
    }
    html.push("</ul>");
  }
  html.push("</body>", "</html>");
  return { markdown: md.join("\n"), html: html.join("\n") + "\n" };
}

/** Write `index.md` and `index.html` into `dir` (created if needed); returns their paths. */
export async function writeReportIndex(dir: string, spec: ReportIndexSpec): Promise<{ markdown: string; html: string }> {
  const rendered = renderReportIndex(spec);
  await mkdir(dir, { recursive: true });
  const paths = { markdown: join(dir, "index.md"), html: join(dir, "index.html") };
  await writeFile(paths.markdown, rendered.markdown, "utf8");
  await writeFile(paths.html, rendered.html, "utf8");
  return paths;
}

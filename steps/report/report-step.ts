/**
 * The `write-report` step: the report directory. Copies every rendered table and figure
 * (`tables/`, `figures/`) and the provenance pages (`provenance/`), writes a page for every
 * number averaged over seeds, and writes `index.md` and `index.html` (report-index.ts) with
 * the findings on top when a findings input is wired.
 *
 * Every number's link is checked: it must lead to a page that exists in the report. A key
 * with no page (a table rendered in an earlier run whose evaluation has since been recomputed
 * to identical bytes under another key) gets a page that says so, rather than a broken link.
 */
import { cp, copyFile, mkdir, readFile, readdir, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { extname, join } from "node:path";
import { z } from "zod";
import { defineStep, dir, optional, record } from "../../pipeline/engine/step.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { renderReportIndex, type ReportEntry, type ReportFileKind } from "./report-index.ts";
import type { RenderedTableJson } from "./table.ts";
import type { FigureJson } from "./figure.ts";
import { parseFindings, type Findings } from "./findings.ts";
import { keyPage, numberPage, PROVENANCE_DIR } from "./links.ts";
import type { ProvenanceIndex } from "./provenance-step.ts";
import { numericsSentence, type NumericsRecord } from "./numerics-record.ts";
import { htmlPage, seedsPage, type PageNode } from "./provenance-page.ts";
import { el } from "./html.ts";

const FILE_KINDS: Readonly<Record<string, ReportFileKind>> = { ".md": "markdown", ".csv": "csv", ".json": "json", ".svg": "svg" };
const SUBDIR = { table: "tables", figure: "figures" } as const;
const SCHEMA = { table: "cspipe.table/2", figure: "cspipe.figure/2" } as const;

/** Copy one rendered directory into the report; returns its data and the copied files. */
async function addEntry<D extends { id: string; schema: string }>(kind: "table" | "figure", input: string, from: string, reportDir: string, taken: Set<string>): Promise<ReportEntry<D>> {
  const names = (await readdir(from)).sort();
  const jsons = names.filter((n) => extname(n) === ".json");
  if (jsons.length !== 1) {
    throw new InputError(`${kind} input '${input}' holds ${jsons.length} JSON files (${jsons.join(", ") || "none"})`, { file: from, fix: `wire the output of one render-${kind} step` });
  }
  const file = join(from, jsons[0]!);
  const data = JSON.parse(await readFile(file, "utf8")) as D;
  if (data.schema !== SCHEMA[kind]) throw new InputError(`${kind} JSON has schema '${String(data.schema)}', expected '${SCHEMA[kind]}'`, { file, field: "schema", fix: `rerun the render-${kind} step` });
  const sub = SUBDIR[kind];
  await mkdir(join(reportDir, sub), { recursive: true });
  const files: Partial<Record<ReportFileKind, string>> = {};
  for (const name of names) {
    const fileKind = FILE_KINDS[extname(name)];
    if (fileKind === undefined) continue;
    const rel = `${sub}/${name}`;
    if (taken.has(rel)) throw new InputError(`two inputs provide '${rel}'`, { field: input, fix: "give every table and figure a unique id" });
    taken.add(rel);
    await copyFile(join(from, name), join(reportDir, rel));
    files[fileKind] = rel;
  }
  return { data, files };
}

/** Every set of evaluation keys a number of the report links to. */
function numberKeySets(tables: readonly ReportEntry<RenderedTableJson>[], figures: readonly ReportEntry<FigureJson>[], findings: Findings | undefined): (readonly string[])[] {
  const out: (readonly string[])[] = [];
  for (const t of tables) for (const r of t.data.rows) for (const c of Object.values(r.cells)) if (c.stepKeys.length > 0) out.push(c.stepKeys);
  for (const f of figures) for (const s of f.data.series) for (const p of s.points) if (p.ours !== null && p.ours.stepKeys.length > 0) out.push(p.ours.stepKeys);
  for (const c of findings?.claims ?? []) for (const e of c.evidence) out.push([e.stepKey]);
  return out;
}

const params = z
  .object({
    title: z.string().min(1),
    data: z.enum(["mini", "real"]),
    datasetDescription: z.string(),
    notes: z.array(z.string()).readonly().default([]),
    /** Every table and figure input, in the report's order. */
    order: z.array(z.string()).readonly(),
  })
  .strict();

/**
 * `write-report`: the report over the rendered tables (`tables`) and figures (`figures`), by
 * name, in the order `order` names them, with the provenance pages and the findings when those
 * optional inputs are wired.
 */
export const writeReportStep = defineStep({
  id: "write-report",
  version: 2,
  source: import.meta.url,
  description: "The report directory: every table and figure rendered in index.html and index.md, the findings, and the provenance pages behind every number.",
  params,
  inputs: { tables: record("table"), figures: record("figure"), provenance: optional("provenance"), findings: optional("json:findings") },
  outputs: { report: dir("report", "report") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const p = ctx.params;
      const out = ctx.outputs.report;
      const { tables: tableDirs, figures: figureDirs } = ctx.inputs;
      const named = [...Object.keys(tableDirs), ...Object.keys(figureDirs)];
      const twice = Object.keys(tableDirs).filter((n) => n in figureDirs);
      if (twice.length > 0) throw new InputError(`${twice.join(", ")} named both a table and a figure`, { field: "order", fix: "give every table and figure a unique id" });
      const missing = named.filter((n) => !p.order.includes(n));
      if (missing.length > 0) throw new InputError(`order leaves out ${missing.join(", ")}`, { field: "order", fix: "list every input once" });
      const tables: ReportEntry<RenderedTableJson>[] = [];
      const figures: ReportEntry<FigureJson>[] = [];
      const taken = new Set<string>();
      for (const input of p.order) {
        const table = tableDirs[input];
        const figure = figureDirs[input];
        if (table !== undefined) tables.push(await addEntry<RenderedTableJson>("table", input, table, out, taken));
        else if (figure !== undefined) figures.push(await addEntry<FigureJson>("figure", input, figure, out, taken));
        else throw new InputError(`order names '${input}', which is not a table or figure input`, { field: "order", fix: `use: ${named.join(", ")}` });
      }
      const findingsPath = ctx.inputs.findings;
      const findings = findingsPath === undefined ? undefined : parseFindings(await readFile(findingsPath, "utf8"), findingsPath);
      if (findings !== undefined && findingsPath !== undefined && findings.data !== p.data) {
        throw new InputError(`the findings were computed on '${findings.data}' data, the report is on '${p.data}'`, { file: findingsPath, field: "data", fix: "wire the findings of the same data source" });
      }

      let provenance: { stagesSvg: string; index: string } | undefined;
      let numerics: string | undefined;
      let href: (keys: readonly string[]) => string | undefined = () => undefined;
      const provDir = ctx.inputs.provenance;
      if (provDir !== undefined) {
        await cp(provDir, join(out, PROVENANCE_DIR), { recursive: true });
        const index = JSON.parse(await readFile(join(provDir, "index.json"), "utf8")) as ProvenanceIndex;
        const known = new Map(index.entries.map((e) => [e.key, e]));
        const nodes = new Map<string, PageNode>();
        for (const e of index.entries) nodes.set(e.key, { name: e.names[0]!, names: e.names, stepId: e.stepId, key: e.key, summary: e.summary, inputs: {}, version: 0, description: "", params: {}, kind: "", view: undefined });
        let stale = 0;
        for (const keys of numberKeySets(tables, figures, findings)) {
          for (const k of keys) {
            if (known.has(k) || existsSync(join(out, keyPage(k)))) continue;
            stale++;
            await writeFile(
              join(out, keyPage(k)),
              htmlPage(
                `Entry ${k.slice(0, 12)}`,
                el("p", {}, el("a", { href: "../index.html" }, "← report")),
                el("h1", {}, `Entry ${k.slice(0, 12)}…`),
                el("p", {}, `This number was computed by the store entry ${k} in an earlier run. Since then its step was recomputed under another key and reproduced the same bytes, so the table or figure was not rendered again; its provenance pages describe the current keys. './cspipe show ${k}' prints this entry's chain while it is still in the store.`),
              ),
            );
          }
          if (keys.length > 1 && !existsSync(join(out, numberPage(keys)))) await writeFile(join(out, numberPage(keys)), seedsPage(`${keys.length} seeds`, [...keys].sort(), nodes));
        }
        if (stale > 0) ctx.log(`${stale} numbers come from entries of an earlier run (pages written for them)`);
        href = (keys) => (keys.length === 0 ? undefined : numberPage(keys));
        provenance = { stagesSvg: await readFile(join(provDir, "stages.svg"), "utf8"), index: `${PROVENANCE_DIR}/index.html` };
        const record = join(provDir, "numerics.json");
        if (existsSync(record)) numerics = numericsSentence(JSON.parse(await readFile(record, "utf8")) as NumericsRecord) || undefined;
      }
      const rendered = renderReportIndex({
        title: p.title,
        dataset: p.data,
        datasetDescription: p.datasetDescription,
        notes: p.notes,
        tables,
        figures,
        ...(findings !== undefined ? { findings } : {}),
        ...(provenance !== undefined ? { provenance } : {}),
        ...(numerics !== undefined ? { numerics } : {}),
        href,
      });
      await writeFile(join(out, "index.md"), rendered.markdown);
      await writeFile(join(out, "index.html"), rendered.html);
      ctx.log(`report: ${tables.length} tables, ${figures.length} figures${findings ? `, ${findings.claims.length} findings` : ""} (${p.data} data)`);
    },
  },
});

/**
 * The `write-report` step: copies every rendered table and figure into one directory
 * (`tables/`, `figures/`) and writes `index.md` and `index.html` linking them, with a
 * statement of which data (mini or real) produced them (report-index.ts).
 */
import { copyFile, mkdir, readFile, readdir } from "node:fs/promises";
import { extname, join } from "node:path";
import { z } from "zod";
import { defineStep, dir, type InputKinds } from "../../pipeline/engine/step.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { writeReportIndex, type ReportEntry, type ReportFileKind } from "./report-index.ts";

const FILE_KINDS: Readonly<Record<string, ReportFileKind>> = { ".md": "markdown", ".csv": "csv", ".json": "json", ".svg": "svg" };
const SUBDIR = { table: "tables", figure: "figures" } as const;

/** What the report needs from a rendered table/figure directory: its JSON's id, title and caption. */
interface Described {
  readonly id: string;
  readonly title: string;
  readonly caption?: string;
}

/** Copy one rendered directory into the report and describe it. */
async function addEntry(kind: "table" | "figure", input: string, from: string, reportDir: string, taken: Set<string>): Promise<ReportEntry> {
  const names = (await readdir(from)).sort();
  const jsons = names.filter((n) => extname(n) === ".json");
  if (jsons.length !== 1) {
    throw new InputError(`${kind} input '${input}' holds ${jsons.length} JSON files (${jsons.join(", ") || "none"})`, { file: from, fix: `wire the output of one render-${kind} step` });
  }
  const meta = JSON.parse(await readFile(join(from, jsons[0]!), "utf8")) as Partial<Described>;
  if (typeof meta.id !== "string" || typeof meta.title !== "string") {
    throw new InputError(`${kind} JSON has no id/title`, { file: join(from, jsons[0]!), fix: `wire the output of a render-${kind} step` });
  }
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
  return { kind, id: meta.id, title: meta.title, ...(typeof meta.caption === "string" && meta.caption !== "" ? { caption: meta.caption } : {}), files };
}

const reportDefs = new Map<string, ReturnType<typeof makeWriteReportDef>>();

/**
 * A report step over the given table inputs (kind `table`) and figure inputs (kind
 * `figure`). Entries keep that order; the order is a param (defaulted), so it enters the key.
 * One def object per input lists, so a report built twice in one run merges.
 */
export function writeReportDef(tableInputs: readonly string[], figureInputs: readonly string[]) {
  const memoKey = JSON.stringify([tableInputs, figureInputs]);
  let def = reportDefs.get(memoKey);
  if (def === undefined) reportDefs.set(memoKey, (def = makeWriteReportDef(tableInputs, figureInputs)));
  return def;
}

function makeWriteReportDef(tableInputs: readonly string[], figureInputs: readonly string[]) {
  const inputs: Record<string, "table" | "figure"> = {};
  for (const n of tableInputs) inputs[n] = "table";
  for (const n of figureInputs) {
    if (n in inputs) throw new Error(`report input '${n}' is both a table and a figure`);
    inputs[n] = "figure";
  }
  const order = [...tableInputs, ...figureInputs];
  const params = z
    .object({
      title: z.string().min(1),
      data: z.enum(["mini", "real"]),
      datasetDescription: z.string(),
      notes: z.array(z.string()).default([]),
      order: z.array(z.string()).default(order),
    })
    .strict();
  return defineStep({
    id: "write-report",
    version: 1,
    source: import.meta.url,
    description: "The report directory: every table and figure plus index.md and index.html.",
    params,
    inputs: inputs as InputKinds,
    outputs: { report: dir("report", "report") },
    runtime: {
      type: "in-process",
      async run(ctx) {
        const p = ctx.params;
        const paths = ctx.inputs as Record<string, string>;
        const missing = Object.keys(inputs).filter((n) => !p.order.includes(n));
        if (missing.length > 0) throw new InputError(`order leaves out ${missing.join(", ")}`, { field: "order", fix: "list every input once" });
        const entries: ReportEntry[] = [];
        const taken = new Set<string>();
        for (const input of p.order) {
          const kind = inputs[input];
          const from = paths[input];
          if (kind === undefined || from === undefined) throw new InputError(`order names '${input}', which is not an input`, { field: "order", fix: `use: ${Object.keys(inputs).join(", ")}` });
          entries.push(await addEntry(kind, input, from, ctx.outputs.report, taken));
        }
        await writeReportIndex(ctx.outputs.report, { title: p.title, dataset: p.data, datasetDescription: p.datasetDescription, entries, notes: p.notes });
        ctx.log(`report: ${entries.length} entries (${p.data} data)`);
      },
    },
  });
}

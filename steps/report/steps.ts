/**
 * Rendering a paper table from metric artifacts: each input is one evaluation's
 * metrics.json, mapped to a row; columns pick aggregate metrics, or a metric inside one
 * breakdown group (`group: {by: "questionType", value: "first"}`; the cell's N is then
 * that group's N). Every cell carries the cache key of the evaluation that produced it,
 * and the paper's number sits beside it. A group with no turns renders as "-" (logged).
 *
 * The figure and report steps live in figure-step.ts and report-step.ts (re-exported here).
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, dir, type InputKinds } from "../../pipeline/engine/step.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { renderTable, type Cells, type TableSpec } from "./table.ts";
import { paperTable } from "./paper-numbers.ts";
import type { MetricsFile } from "../eval/steps.ts";
import { groupRefSchema, pickMetric } from "./metric-value.ts";

export { renderFigureDef, type FigureJson } from "./figure-step.ts";
export { writeReportDef } from "./report-step.ts";

const formatSchema = z.union([
  z.object({ kind: z.literal("fixed"), digits: z.number().int() }),
  z.object({ kind: z.literal("percent"), digits: z.number().int() }),
  z.object({ kind: z.literal("integer") }),
]);

const cellMapping = z.object({ row: z.string(), columns: z.array(z.string()), group: groupRefSchema.optional() }).strict();

const params = z
  .object({
    spec: z.object({
      id: z.string(),
      title: z.string(),
      caption: z.string(),
      columns: z.array(
        z.object({ id: z.string(), header: z.string(), metric: z.string(), format: formatSchema, paperColumn: z.string().optional(), group: groupRefSchema.optional() }),
      ),
      rows: z.array(z.object({ id: z.string(), label: z.string(), paperRow: z.string().optional() })),
    }),
    paperTable: z.string().nullable(),
    /**
     * input name -> the row it fills and the columns it provides, or several such rows (e.g.
     * Table 4: one evaluation per model fills a row per question type). A mapping's `group`
     * overrides the columns' group: the cells show that breakdown group of the input.
     */
    cells: z.record(z.string(), z.union([cellMapping, z.array(cellMapping).min(1)])),
  })
  .strict();

const tableDefs = new Map<string, ReturnType<typeof makeRenderTableDef>>();

/**
 * A render step for a table whose cells come from the named inputs (all `json:metrics`).
 * One def object per input-name set, so a table built by two targets in one run merges.
 */
export function renderTableDef(inputNames: readonly string[]) {
  const memoKey = JSON.stringify([...inputNames].sort());
  let def = tableDefs.get(memoKey);
  if (def === undefined) tableDefs.set(memoKey, (def = makeRenderTableDef(inputNames)));
  return def;
}

function makeRenderTableDef(inputNames: readonly string[]) {
  const inputs: Record<string, "json:metrics"> = {};
  for (const n of inputNames) inputs[n] = "json:metrics";
  return defineStep({
    id: "render-table",
    version: 1,
    source: import.meta.url,
    description: "Markdown/CSV/JSON table with the paper's numbers and provenance keys.",
    params,
    inputs: inputs as InputKinds,
    outputs: { table: dir("table", "table") },
    runtime: {
      type: "in-process",
      async run(ctx) {
        const spec = ctx.params.spec as TableSpec;
        const cells: Record<string, Record<string, { value: number; n: number; stepKey: string }>> = {};
        for (const [input, maps] of Object.entries(ctx.params.cells)) {
          const path = (ctx.inputs as Record<string, string>)[input];
          if (path === undefined) throw new InputError(`cell input '${input}' is not wired`, { field: `cells.${input}` });
          const m = JSON.parse(await readFile(path, "utf8")) as MetricsFile;
          for (const map of Array.isArray(maps) ? maps : [maps]) {
            const row = (cells[map.row] ??= {});
            for (const colId of map.columns) {
              const col = spec.columns.find((c) => c.id === colId);
              if (!col) throw new InputError(`unknown column '${colId}'`, { field: `cells.${input}.columns` });
              const group = map.group ?? ctx.params.spec.columns.find((c) => c.id === colId)?.group;
              const picked = pickMetric(m, col.metric, group, path);
              if (picked === undefined) {
                ctx.log(`${input}: no turns of ${group!.by}=${group!.value}; cell ${map.row}/${colId} left empty`);
                continue;
              }
              row[colId] = { value: picked.value, n: picked.n, stepKey: (ctx.inputKeys as Record<string, { key: string }>)[input]!.key };
            }
          }
        }
        const rendered = renderTable(spec, cells as Cells, ctx.params.paperTable ? paperTable(ctx.params.paperTable) : undefined);
        await writeFile(join(ctx.outputs.table, `${spec.id}.md`), rendered.markdown);
        await writeFile(join(ctx.outputs.table, `${spec.id}.csv`), rendered.csv);
        await writeFile(join(ctx.outputs.table, `${spec.id}.json`), rendered.json);
      },
    },
  });
}

/**
 * Rendering a paper table from metric artifacts: each input is one evaluation's
 * metrics.json, mapped to a row; columns pick aggregate metrics. Every cell carries the
 * cache key of the evaluation that produced it, and the paper's number sits beside it.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, dir, type InputKinds } from "../../pipeline/engine/step.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { renderTable, type Cells, type TableSpec } from "./table.ts";
import { paperTable } from "./paper-numbers.ts";
import type { MetricsFile } from "../eval/steps.ts";

const formatSchema = z.union([
  z.object({ kind: z.literal("fixed"), digits: z.number().int() }),
  z.object({ kind: z.literal("percent"), digits: z.number().int() }),
  z.object({ kind: z.literal("integer") }),
]);

const params = z
  .object({
    spec: z.object({
      id: z.string(),
      title: z.string(),
      caption: z.string(),
      columns: z.array(z.object({ id: z.string(), header: z.string(), metric: z.string(), format: formatSchema, paperColumn: z.string().optional() })),
      rows: z.array(z.object({ id: z.string(), label: z.string(), paperRow: z.string().optional() })),
    }),
    paperTable: z.string().nullable(),
    /** input name -> the row it fills and the columns it provides. */
    cells: z.record(z.string(), z.object({ row: z.string(), columns: z.array(z.string()) })),
  })
  .strict();

/** A render step for a table whose cells come from the named inputs (all `json:metrics`). */
export function renderTableDef(inputNames: readonly string[]) {
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
        for (const [input, map] of Object.entries(ctx.params.cells)) {
          const path = (ctx.inputs as Record<string, string>)[input];
          if (path === undefined) throw new InputError(`cell input '${input}' is not wired`, { field: `cells.${input}` });
          const m = JSON.parse(await readFile(path, "utf8")) as MetricsFile;
          const row = (cells[map.row] ??= {});
          for (const colId of map.columns) {
            const col = spec.columns.find((c) => c.id === colId);
            if (!col) throw new InputError(`unknown column '${colId}'`, { field: `cells.${input}.columns` });
            const value = m.aggregate.metrics[col.metric];
            if (value === undefined) throw new InputError(`metric '${col.metric}' missing`, { file: path, fix: "add it to the evaluation's metrics" });
            row[colId] = { value, n: m.aggregate.n, stepKey: (ctx.inputKeys as Record<string, { key: string }>)[input]!.key };
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

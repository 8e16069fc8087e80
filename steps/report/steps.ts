/**
 * Rendering a paper table from metric artifacts: each input is one evaluation's
 * metrics.json, mapped to a row; columns pick aggregate metrics, or a metric inside one
 * breakdown group (`group: {by: "questionType", value: "first"}`; the cell's N is then
 * that group's N). Every cell carries the cache keys of the evaluations that produced it,
 * and the paper's number sits beside it.
 *
 * Several inputs may map to the same (row, column) cell: one evaluation per training seed.
 * The cell is then their mean ± sample sd with the number of seeds, and keeps every key.
 * A mapping may declare groups in which its input has no query at all (`noInput`: X_t \ {q_t}
 * on first turns): those cells render "-" with the reason as a footnote. A group with no
 * turns in the split renders "-" too (footnoted, and logged).
 *
 * The figure, provenance and report steps live in their own modules (re-exported here).
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, dir, record } from "../../pipeline/engine/step.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { renderTable, type CellInput, type TableSpec } from "./table.ts";
import { paperTable } from "./paper-numbers.ts";
import type { MetricsFile } from "../eval/steps.ts";
import { groupRefSchema, pickMetric } from "./metric-value.ts";
import { formatSchema } from "./format.ts";

export { renderFigureStep, type FigureJson } from "./figure-step.ts";
export { writeReportStep } from "./report-step.ts";
export { renderProvenanceStep } from "./provenance-step.ts";

const cellMapping = z
  .object({
    row: z.string(),
    columns: z.array(z.string()).readonly(),
    group: groupRefSchema.optional(),
    /** Breakdown groups (values of the column's or mapping's group) where this input has no query: "-" with `reason`. */
    noInput: z.object({ groups: z.array(z.string()).min(1).readonly(), reason: z.string().min(1) }).strict().optional(),
  })
  .strict();

export type CellMapping = z.input<typeof cellMapping>;

export const tableSpecSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    caption: z.string(),
    columns: z
      .array(
        z
          .object({
            id: z.string(),
            header: z.string(),
            metric: z.string(),
            format: formatSchema,
            paperColumn: z.string().optional(),
            group: groupRefSchema.optional(),
            band: z.string().optional(),
            unit: z.string().optional(),
          })
          .strict(),
      )
      .readonly(),
    rows: z.array(z.object({ id: z.string(), label: z.string(), paperRow: z.string().optional() }).strict()).readonly(),
    counted: z.string().min(1).optional(),
  })
  .strict();

const params = z
  .object({
    spec: tableSpecSchema,
    paperTable: z.string().nullable(),
    /**
     * input name -> the row it fills and the columns it provides, or several such rows (e.g.
     * Table 4: one evaluation per model fills a row per question type). A mapping's `group`
     * overrides the columns' group: the cells show that breakdown group of the input.
     */
    cells: z.record(z.string(), z.union([cellMapping, z.array(cellMapping).min(1).readonly()])),
  })
  .strict();

export type RenderTableParams = z.input<typeof params>;


type Source = CellInput[] | { noInput: string } | { noTurns: string };

/** `render-table`: a table whose cells come from the evaluations wired as `metrics`, by name (`cells` maps each name to its cells). */
export const renderTableStep = defineStep({
  id: "render-table",
  version: 2,
  // Its outputs name the producers' keys (provenance links): they are in its key (step.ts provenanceKeys).
  provenanceKeys: true,
  source: import.meta.url,
  description: "Markdown/CSV/JSON table with the paper's numbers, mean ± sd over seeds and provenance keys.",
  params,
  inputs: { metrics: record("json:metrics") },
  outputs: { table: dir("table", "table") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const spec: TableSpec = ctx.params.spec;
      const cells: Record<string, Record<string, Source>> = {};
      for (const [input, maps] of Object.entries(ctx.params.cells).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        const path = ctx.inputs.metrics[input];
        const key = ctx.inputKeys.metrics[input];
        if (path === undefined || key === undefined) throw new InputError(`cell input '${input}' is not wired`, { field: `cells.${input}`, fix: `wire metrics named '${input}'` });
        const m = JSON.parse(await readFile(path, "utf8")) as MetricsFile;
        for (const map of Array.isArray(maps) ? maps : [maps]) {
          const row = (cells[map.row] ??= {});
          for (const colId of map.columns) {
            const col = spec.columns.find((c) => c.id === colId);
            if (!col) throw new InputError(`unknown column '${colId}'`, { field: `cells.${input}.columns`, fix: `use one of: ${spec.columns.map((c) => c.id).join(", ")}` });
            const group = map.group ?? col.group;
            const where = `cells.${input} (${map.row}/${colId})`;
            const prev = row[colId];
            let next: Source;
            if (map.noInput !== undefined && group !== undefined && map.noInput.groups.includes(group.value)) next = { noInput: map.noInput.reason };
            else {
              const picked = pickMetric(m, col.metric, group, path);
              if (picked === undefined) {
                ctx.log(`${input}: no turns of ${group!.by}=${group!.value}; cell ${map.row}/${colId} left empty`);
                next = { noTurns: `no turns of type '${group!.value}' in this split` };
              } else next = [{ value: picked.value, n: picked.n, stepKey: key.key }];
            }
            if (prev === undefined) row[colId] = next;
            else if (Array.isArray(prev) && Array.isArray(next)) prev.push(...next);
            else if (("noTurns" in next && "noTurns" in prev) || ("noInput" in next && "noInput" in prev && next.noInput === prev.noInput)) continue;
            else throw new InputError(`cell ${map.row}/${colId} mixes numbers with a declared absence of input`, { field: where, fix: "map every seed of a cell the same way" });
          }
        }
      }
      const rendered = renderTable(spec, cells, ctx.params.paperTable ? paperTable(ctx.params.paperTable) : undefined);
      await writeFile(join(ctx.outputs.table, `${spec.id}.md`), rendered.markdown);
      await writeFile(join(ctx.outputs.table, `${spec.id}.csv`), rendered.csv);
      await writeFile(join(ctx.outputs.table, `${spec.id}.json`), rendered.json);
    },
  },
});

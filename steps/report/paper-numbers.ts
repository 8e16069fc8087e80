/**
 * Typed access to `paper-numbers.json`: the numbers printed in the paper (final and early
 * versions), transcribed once as data. The JSON is validated on load (zod), so a typo in
 * the data file fails loudly with the path of the bad field.
 *
 * Values are stored as printed: unit "fraction" (MRR printed 0.xxx), "percent" (recall,
 * EM, F1 printed xx.x), "count", "millions", "hours"; `null` is the paper's "-".
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { InputError } from "../../pipeline/engine/errors.ts";
import { formatPaperNumber, PAPER_UNITS, type PaperUnit } from "./format.ts";

const Unit = z.enum(PAPER_UNITS);
export type { PaperUnit };

const Column = z.object({
  id: z.string().min(1),
  header: z.string().min(1),
  dataset: z.string().optional(),
  split: z.string().optional(),
  metric: z.string().min(1),
  unit: Unit,
  digits: z.number().int().min(0),
  questionType: z.string().optional(),
});

const Row = z
  .object({
    id: z.string().min(1),
    label: z.string().min(1),
    origin: z.enum(["ours", "reevaluated", "cited"]),
    values: z.record(z.string(), z.number().nullable()),
    marks: z.array(z.string()).optional(),
    group: z.string().optional(),
    questionType: z.string().optional(),
    n: z.number().int().optional(),
    dataset: z.string().optional(),
  })
  .loose();

const Table = z.object({
  id: z.string().min(1),
  source: z.enum(["final", "early", "dpr"]),
  label: z.string().min(1),
  title: z.string().min(1),
  caption: z.string().min(1),
  notes: z.array(z.string()),
  columns: z.array(Column).min(1),
  rows: z.array(Row).min(1),
});

const Claim = z.object({
  text: z.string(),
  metric: z.string(),
  value: z.number().nullable(),
  unit: z.string(),
  where: z.string(),
  note: z.string().optional(),
});

const Figure = z.object({
  id: z.string().min(1),
  source: z.enum(["final", "early", "dpr"]),
  label: z.string(),
  title: z.string(),
  caption: z.string(),
  shows: z.record(z.string(), z.unknown()),
  claims: z.array(Claim),
  notes: z.array(z.string()),
});

const PaperNumbersSchema = z.object({
  schema: z.literal(1),
  description: z.string(),
  sources: z.record(z.string(), z.object({ file: z.string(), citation: z.string() })),
  tables: z.array(Table),
  figures: z.array(Figure),
});

export type PaperNumbers = z.infer<typeof PaperNumbersSchema>;
export type PaperTable = z.infer<typeof Table>;
export type PaperColumn = z.infer<typeof Column>;
export type PaperRow = z.infer<typeof Row>;
export type PaperFigure = z.infer<typeof Figure>;

export const PAPER_NUMBERS_PATH = fileURLToPath(new URL("./paper-numbers.json", import.meta.url));

/**
 * Validate parsed paper-numbers data: schema, unique ids, and completeness (every row
 * has exactly the columns of its table, each a number or null).
 */
export function validatePaperNumbers(data: unknown, file = PAPER_NUMBERS_PATH): PaperNumbers {
  const parsed = PaperNumbersSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InputError(issue.message, { file, field: issue.path.join("."), fix: "fix paper-numbers.json to match the schema in paper-numbers.ts" });
  }
  const doc = parsed.data;
  const tableIds = new Set<string>();
  for (const table of doc.tables) {
    if (tableIds.has(table.id)) throw new InputError(`table id '${table.id}' is used twice`, { file, field: table.id, fix: "give each table a unique id" });
    tableIds.add(table.id);
    const columnIds = table.columns.map((c) => c.id);
    if (new Set(columnIds).size !== columnIds.length) throw new InputError(`table '${table.id}' repeats a column id`, { file, field: table.id, fix: "give each column a unique id" });
    const rowIds = new Set<string>();
    for (const row of table.rows) {
      const field = `${table.id}.${row.id}`;
      if (rowIds.has(row.id)) throw new InputError(`row id '${row.id}' is used twice`, { file, field, fix: "give each row a unique id" });
      rowIds.add(row.id);
      const keys = Object.keys(row.values);
      const missing = columnIds.filter((c) => !keys.includes(c));
      const extra = keys.filter((k) => !columnIds.includes(k));
      if (missing.length > 0 || extra.length > 0) {
        throw new InputError(`row '${row.id}' does not match the columns of '${table.id}' (missing: ${missing.join(", ") || "none"}; unknown: ${extra.join(", ") || "none"})`, {
          file,
          field,
          fix: "give every row a value (number, or null for '-') for every column",
        });
      }
    }
  }
  return doc;
}

let cached: PaperNumbers | undefined;

/** The transcribed paper numbers (read and validated once per process). */
export function loadPaperNumbers(): PaperNumbers {
  cached ??= validatePaperNumbers(JSON.parse(readFileSync(PAPER_NUMBERS_PATH, "utf8")));
  return cached;
}

export function paperTable(id: string, doc: PaperNumbers = loadPaperNumbers()): PaperTable {
  const table = doc.tables.find((t) => t.id === id);
  if (table === undefined) throw new InputError(`no paper table '${id}'`, { field: "table", fix: `use one of: ${doc.tables.map((t) => t.id).join(", ")}` });
  return table;
}

/** A printed value (null for '-'). Throws if the row or column does not exist. */
export function paperValue(tableId: string, rowId: string, columnId: string, doc: PaperNumbers = loadPaperNumbers()): number | null {
  const table = paperTable(tableId, doc);
  const row = table.rows.find((r) => r.id === rowId);
  if (row === undefined) throw new InputError(`paper table '${tableId}' has no row '${rowId}'`, { field: "row", fix: `use one of: ${table.rows.map((r) => r.id).join(", ")}` });
  const value = row.values[columnId];
  if (value === undefined) throw new InputError(`paper table '${tableId}' has no column '${columnId}'`, { field: "column", fix: `use one of: ${table.columns.map((c) => c.id).join(", ")}` });
  return value;
}

/** A printed value converted to a fraction in [0, 1] when its unit is "percent" (65.1 -> 0.651). */
export function asFraction(value: number, unit: PaperUnit): number {
  return unit === "percent" ? Math.round(value * 1e6) / 1e8 : value;
}

/** A printed value as the paper prints it (digits and unit of its column). */
export function formatPaperValue(value: number, column: PaperColumn): string {
  return formatPaperNumber(value, column.unit, column.digits);
}

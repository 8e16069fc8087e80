/**
 * Fixed number formats for tables and figures, plus the escaping helpers every renderer
 * shares (Markdown cells, CSV fields, XML/HTML text). Pure and deterministic.
 */
import { z } from "zod";

/** The units the paper prints its numbers in (paper-numbers.json's `unit`). */
export const PAPER_UNITS = ["fraction", "percent", "count", "millions", "hours"] as const;
export type PaperUnit = (typeof PAPER_UNITS)[number];

export type NumberFormat =
  /** value printed with `digits` decimals, e.g. MRR 0.467 */
  | { readonly kind: "fixed"; readonly digits: number }
  /** value (a fraction) x 100 with `digits` decimals, e.g. recall 0.651 -> "65.1" */
  | { readonly kind: "percent"; readonly digits: number }
  | { readonly kind: "integer" };

/** The params schema of a NumberFormat (tables and figures). */
export const formatSchema = z.union([
  z.object({ kind: z.literal("fixed"), digits: z.number().int().min(0).max(10) }).strict(),
  z.object({ kind: z.literal("percent"), digits: z.number().int().min(0).max(10) }).strict(),
  z.object({ kind: z.literal("integer") }).strict(),
]);

/** Shorthands used by most tables: MRR as 0.xxx, recall/EM/F1 as xx.x. */
export const FORMATS = {
  mrr: { kind: "fixed", digits: 3 },
  percent1: { kind: "percent", digits: 1 },
  integer: { kind: "integer" },
} as const satisfies Record<string, NumberFormat>;

const formatters: { [K in NumberFormat["kind"]]: (value: number, f: Extract<NumberFormat, { kind: K }>) => string } = {
  fixed: (v, f) => v.toFixed(f.digits),
  percent: (v, f) => (v * 100).toFixed(f.digits),
  integer: (v) => Math.round(v).toFixed(0),
};

export function formatNumber(value: number, format: NumberFormat): string {
  if (!Number.isFinite(value)) throw new RangeError(`cannot format ${value}`);
  const out = (formatters[format.kind] as (v: number, f: NumberFormat) => string)(value, format);
  return out === "-0" || /^-0\.0*$/.test(out) ? out.slice(1) : out;
}

/** The unit a format prints in, for column headers and axis labels. */
export function formatUnit(format: NumberFormat): string {
  return format.kind === "percent" ? "%" : format.kind === "fixed" ? "fraction" : "count";
}

/** An integer with thousands separators (N = 8,209). */
export function formatCount(n: number): string {
  const s = String(Math.round(Math.abs(n))).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return n < 0 ? `-${s}` : s;
}

/** A number as the paper prints it (values are stored as printed, see paper-numbers.ts). */
export function formatPaperNumber(value: number, unit: PaperUnit, digits: number): string {
  return unit === "count" ? Math.round(value).toLocaleString("en-US") : value.toFixed(digits);
}

/** Escape text for a Markdown table cell: backslash, pipe, emphasis and code markers; newlines become spaces. */
export function escapeMarkdownCell(text: string): string {
  return text.replace(/[\\|*_`]/g, (c) => `\\${c}`).replace(/\r?\n/g, " ");
}

/** RFC 4180: quote when the field holds a comma, quote, CR or LF; double inner quotes. */
export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(fields: readonly string[]): string {
  return fields.map(csvField).join(",");
}

/** Escape text for XML/HTML content and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

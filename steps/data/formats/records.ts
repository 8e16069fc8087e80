/**
 * Shared plumbing for the native-format parsers: loading turn files that are either one
 * JSON array (QReCC, TopiOCQA GitHub release, DPR files) or JSONL (OR-QuAC, TopiOCQA on
 * the HF hub), and typed field access that fails with an InputError naming the file,
 * the line and the field.
 *
 * Turn files are small enough to parse whole (QReCC train is ~70 MB); collections never
 * go through here (they stream, see steps/data/preprocess/collection.ts). For a JSON
 * array the line of element i is found by a lazy scan of the text, done only when an
 * error has to be reported.
 */
import { InputError } from "../../../pipeline/engine/errors.ts";
import { parseJsonLine } from "../../lib/jsonl.ts";
import { readTextFile, wrongFormatError } from "../../lib/text.ts";
import { findJsonError, parseJson, readJsonText } from "../../lib/json-text.ts";

/** Where a record came from, for error messages. */
export interface RecordAt {
  readonly file: string;
  /** 1-based line where the record starts. */
  readonly line: number;
}

export interface LoadedRecord extends RecordAt {
  readonly value: unknown;
}

/** Start offsets of the elements of a top-level JSON array (string-aware scan). */
export function topLevelElementOffsets(text: string): number[] {
  const out: number[] = [];
  let depth = 0;
  let inString = false;
  let expectElement = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
      continue;
    }
    if (c === 32 || c === 10 || c === 13 || c === 9) continue;
    if (expectElement && depth === 1 && c !== 93 /* ] */) {
      out.push(i);
      expectElement = false;
    }
    if (c === 34) inString = true;
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      depth++;
      if (depth === 1 && c === 91) expectElement = true;
    } else if (c === 93 || c === 125) depth--;
    else if (c === 44 /* , */ && depth === 1) expectElement = true;
  }
  return out;
}

const RE_DOWNLOAD = "check the file is complete (re-download it)";

/** A text file without its byte-order mark (strict UTF-8); an unreadable file is an InputError naming it. */
const readText = readTextFile;

/** Reads a whole JSON file (any value). */
export function readJsonFile(file: string): { value: unknown; text: string } {
  return readJsonText(file, RE_DOWNLOAD);
}

const RECORDS_EXPECTED = "a JSON array of records or JSONL (one JSON object per line)";

/** The file's one JSON object when it is a single object written over several lines (not JSONL), else undefined. */
function oneJsonObject(text: string): Record<string, unknown> | undefined {
  const firstLine = text.trimStart().split("\n", 1)[0]!;
  if (findJsonError(firstLine) === undefined) return undefined; // line 1 is a record: JSONL
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Loads a turn file as records with line numbers: `.jsonl` (or `.txt` holding JSONL, as
 * OR-QuAC's `preprocessed/*.txt`) line by line, anything else as one JSON array; a file
 * whose first non-blank character is not `[` is treated as JSONL.
 */
export function loadRecords(file: string): LoadedRecord[] {
  const text = readText(file);
  const firstChar = text.trimStart()[0];
  if (firstChar === "[") {
    const items = parseJson(text, { file, fix: RE_DOWNLOAD }) as unknown[];
    let offsets: number[] | undefined;
    let lines: number[] | undefined;
    // Lines are computed once, lazily, for all elements (a getter keeps the happy path free).
    const lineAt = (i: number): number => {
      if (lines === undefined) {
        offsets = topLevelElementOffsets(text);
        lines = [];
        let line = 1;
        let pos = 0;
        for (const off of offsets) {
          for (let j = text.indexOf("\n", pos); j >= 0 && j < off; j = text.indexOf("\n", j + 1)) {
            line++;
            pos = j + 1;
          }
          lines.push(line);
        }
      }
      return lines[i] ?? 1;
    };
    return items.map((v, i) => ({
      value: v,
      file,
      get line() {
        return lineAt(i);
      },
    }));
  }
  // JSONL records are objects: anything else (TSV, an HTML page, a compressed file) is the wrong file.
  if (firstChar !== undefined && firstChar !== "{") throw wrongFormatError(file, Buffer.from(text.slice(0, 4096)), RECORDS_EXPECTED);
  const object = oneJsonObject(text);
  if (object !== undefined) {
    throw new InputError(`expected ${RECORDS_EXPECTED}, but the file is one JSON object spanning several lines (keys: ${Object.keys(object).slice(0, 8).join(", ")})`, {
      file,
      line: 1,
      fix: "give the records as a JSON array [{...}, {...}] or one object per line; use the dataset's original release file",
    });
  }
  const out: LoadedRecord[] = [];
  const rows = text.split("\n");
  for (let i = 0; i < rows.length; i++) {
    const t = rows[i]!.replace(/\r$/, "");
    if (t.trim() === "") continue;
    out.push({ value: parseJsonLine(t, file, i + 1), file, line: i + 1 });
  }
  return out;
}

function where(at: RecordAt, field: string) {
  return { file: at.file, line: at.line, field };
}

/** The record as an object, or an InputError. */
export function asObject(value: unknown, at: RecordAt, what = "record"): Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new InputError(`expected a JSON object for the ${what}, got ${Array.isArray(value) ? "an array" : typeof value}`, { file: at.file, line: at.line, fix: "use the dataset's original release file" });
  }
  return value as Record<string, unknown>;
}

export function reqString(o: Record<string, unknown>, field: string, at: RecordAt): string {
  const v = o[field];
  if (typeof v === "string") return v;
  if (v === undefined) throw new InputError("missing field", { ...where(at, field), fix: `every record needs '${field}'` });
  throw new InputError(`expected a string, got ${JSON.stringify(v)?.slice(0, 40)}`, { ...where(at, field), fix: "use the dataset's original release file" });
}

/** A string or an integer, returned as a string (ids such as Conversation_no). */
export function reqId(o: Record<string, unknown>, field: string, at: RecordAt): string {
  const v = o[field];
  if (typeof v === "string" && v !== "") return v;
  if (typeof v === "number" && Number.isInteger(v)) return String(v);
  if (v === undefined) throw new InputError("missing field", { ...where(at, field), fix: `every record needs '${field}'` });
  throw new InputError(`expected an id (integer or string), got ${JSON.stringify(v)?.slice(0, 40)}`, { ...where(at, field), fix: "use the dataset's original release file" });
}

export function reqInt(o: Record<string, unknown>, field: string, at: RecordAt): number {
  const v = o[field];
  const n = typeof v === "string" && /^-?\d+$/.test(v) ? Number(v) : v;
  if (typeof n === "number" && Number.isInteger(n)) return n;
  if (v === undefined) throw new InputError("missing field", { ...where(at, field), fix: `every record needs '${field}'` });
  throw new InputError(`expected an integer, got ${JSON.stringify(v)?.slice(0, 40)}`, { ...where(at, field), fix: "use the dataset's original release file" });
}

export function optString(o: Record<string, unknown>, field: string, at: RecordAt): string | null {
  const v = o[field];
  if (v === undefined || v === null) return null;
  if (typeof v === "string") return v;
  throw new InputError(`expected a string or null, got ${JSON.stringify(v)?.slice(0, 40)}`, { ...where(at, field), fix: "use the dataset's original release file" });
}

export function optStringArray(o: Record<string, unknown>, field: string, at: RecordAt): string[] | null {
  const v = o[field];
  if (v === undefined || v === null) return null;
  if (Array.isArray(v) && v.every((x) => typeof x === "string")) return v as string[];
  throw new InputError("expected an array of strings", { ...where(at, field), fix: "use the dataset's original release file" });
}

export function reqArray(o: Record<string, unknown>, field: string, at: RecordAt): unknown[] {
  const v = o[field];
  if (Array.isArray(v)) return v;
  if (v === undefined) throw new InputError("missing field", { ...where(at, field), fix: `every record needs '${field}'` });
  throw new InputError("expected an array", { ...where(at, field), fix: "use the dataset's original release file" });
}

/** Pairs an alternating [q1, a1, q2, a2, ...] context list into history items. */
export function pairContext(context: string[], at: RecordAt, field: string): { question: string; answer: string }[] {
  if (context.length % 2 !== 0) {
    throw new InputError(`expected an even number of entries (question, answer pairs), got ${context.length}`, { ...where(at, field), fix: "use the dataset's original release file" });
  }
  const out: { question: string; answer: string }[] = [];
  for (let i = 0; i < context.length; i += 2) out.push({ question: context[i]!, answer: context[i + 1]! });
  return out;
}

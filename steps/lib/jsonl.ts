/**
 * Streaming line readers for the line-oriented formats the datasets ship: JSONL
 * (one JSON value per line) and TSV (DPR/TopiOCQA style, Python `csv` quoting).
 *
 * - Reads in fixed-size chunks and splits on "\n" by hand, so memory is bounded by the
 *   chunk size plus the longest line, whatever the file size. A trailing "\r" is
 *   stripped (CRLF files), a UTF-8 BOM on line 1 is dropped.
 * - `.gz` files are gunzipped on the fly.
 * - Every line carries its 1-based line number so parse errors name `file:line`.
 * - Lines are yielded in arrays (`readLineChunks`): an async step per line costs more
 *   than parsing it on 50M-line collections; `readLines` is the per-line convenience.
 */
import { createReadStream, statSync } from "node:fs";
import { createGunzip } from "node:zlib";
import { InputError } from "../../pipeline/engine/errors.ts";

export interface Line {
  readonly text: string;
  /** 1-based line number in the (decompressed) file. */
  readonly line: number;
}

export interface LineChunk {
  readonly lines: string[];
  /** Line number of `lines[0]`. */
  readonly firstLine: number;
}

export interface ReadLinesOptions {
  /** Bytes per read (default 1 MiB). */
  readonly chunkBytes?: number;
  /** Skip lines that are empty or only whitespace (default true). Line numbers still count them. */
  readonly skipBlank?: boolean;
  /** Called after each chunk with compressed bytes read so far and the file size. */
  readonly onBytes?: (done: number, total?: number) => void;
}

/** Yields the file's lines in chunks (one chunk per read), with line numbers. */
export async function* readLineChunks(file: string, options: ReadLinesOptions = {}): AsyncGenerator<LineChunk> {
  const chunkBytes = options.chunkBytes ?? 1 << 20;
  const skipBlank = options.skipBlank ?? true;
  let total: number | undefined;
  try {
    total = statSync(file).size;
  } catch (err) {
    throw new InputError(`cannot read file: ${(err as Error).message}`, { file, fix: "check the path (did the download step run?)" });
  }
  const raw = createReadStream(file, { highWaterMark: chunkBytes });
  const source = file.endsWith(".gz") ? raw.pipe(createGunzip()) : raw;
  const decoder = new TextDecoder("utf-8");
  let carry = "";
  let lineNo = 0;
  let first = true;

  const emit = (parts: string[], isFinal: boolean): LineChunk | undefined => {
    const lines: string[] = [];
    let firstLine = -1;
    const n = isFinal ? parts.length : parts.length - 1;
    for (let i = 0; i < n; i++) {
      let text = parts[i]!;
      lineNo++;
      if (text.endsWith("\r")) text = text.slice(0, -1);
      if (first) {
        first = false;
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      }
      if (skipBlank && text.trim() === "") {
        if (lines.length > 0) lines.push(text); // keep numbering contiguous inside a chunk
        continue;
      }
      if (firstLine < 0) firstLine = lineNo;
      lines.push(text);
    }
    while (skipBlank && lines.length > 0 && lines[lines.length - 1]!.trim() === "") lines.pop();
    return lines.length > 0 ? { lines, firstLine } : undefined;
  };

  try {
    for await (const buf of source as AsyncIterable<Buffer>) {
      const text = carry + decoder.decode(buf, { stream: true });
      const parts = text.split("\n");
      carry = parts[parts.length - 1]!;
      const chunk = emit(parts, false);
      options.onBytes?.(raw.bytesRead, total);
      if (chunk !== undefined) yield chunk;
    }
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(`read failed: ${(err as Error).message}`, { file, line: lineNo + 1, fix: "re-download the file; it may be truncated or not gzip" });
  }
  const rest = carry + decoder.decode();
  if (rest.length > 0) {
    const chunk = emit([rest], true);
    if (chunk !== undefined) yield chunk;
  }
}

/**
 * Lines inside a chunk are contiguous (blank lines kept as ""), so `firstLine + i` is
 * the line number of `lines[i]`. Blank lines are skipped here when `skipBlank`.
 */
export async function* readLines(file: string, options: ReadLinesOptions = {}): AsyncGenerator<Line> {
  const skipBlank = options.skipBlank ?? true;
  for await (const chunk of readLineChunks(file, options)) {
    for (let i = 0; i < chunk.lines.length; i++) {
      const text = chunk.lines[i]!;
      if (skipBlank && text.trim() === "") continue;
      yield { text, line: chunk.firstLine + i };
    }
  }
}

/** Parses one JSONL line; a syntax error becomes an InputError naming file and line. */
export function parseJsonLine(text: string, file: string, line: number): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new InputError(`malformed JSON: ${(err as Error).message}`, { file, line, fix: "each line must be one complete JSON value (JSONL)" });
  }
}

export interface JsonRecord {
  readonly value: unknown;
  readonly line: number;
}

/** Streams a JSONL file as parsed values with their line numbers. */
export async function* readJsonl(file: string, options: ReadLinesOptions = {}): AsyncGenerator<JsonRecord> {
  for await (const { text, line } of readLines(file, options)) yield { value: parseJsonLine(text, file, line), line };
}

/**
 * Splits one TSV record with Python `csv` (excel-tab) quoting: a field that starts with
 * `"` is quoted, `""` inside it is a literal quote; other fields are taken verbatim.
 * Returns undefined when a quoted field is still open at the end of the text (the record
 * continues on the next line).
 */
export function splitTsvRecord(text: string): string[] | undefined {
  if (text.indexOf('"') < 0) return text.split("\t");
  const fields: string[] = [];
  let i = 0;
  const n = text.length;
  for (;;) {
    if (text.charCodeAt(i) === 34 /* " */) {
      let value = "";
      let j = i + 1;
      for (;;) {
        const q = text.indexOf('"', j);
        if (q < 0) return undefined;
        value += text.slice(j, q);
        if (text.charCodeAt(q + 1) === 34) {
          value += '"';
          j = q + 2;
          continue;
        }
        // closing quote; csv keeps any junk up to the next tab
        const tab = text.indexOf("\t", q + 1);
        value += tab < 0 ? text.slice(q + 1) : text.slice(q + 1, tab);
        fields.push(value);
        if (tab < 0) return fields;
        i = tab + 1;
        break;
      }
    } else {
      const tab = text.indexOf("\t", i);
      if (tab < 0) {
        fields.push(text.slice(i));
        return fields;
      }
      fields.push(text.slice(i, tab));
      i = tab + 1;
    }
    if (i > n) return fields;
  }
}

export interface TsvRecord {
  readonly fields: string[];
  /** Line where the record starts. */
  readonly line: number;
}

/**
 * Streams TSV records (quoted fields may span lines, as with Python's csv module).
 * A record still open at end of file is an InputError naming the line where it began.
 */
export async function* readTsvChunks(file: string, options: ReadLinesOptions = {}): AsyncGenerator<TsvRecord[]> {
  let pending: string | undefined;
  let pendingLine = 0;
  for await (const chunk of readLineChunks(file, { ...options, skipBlank: false })) {
    const out: TsvRecord[] = [];
    for (let i = 0; i < chunk.lines.length; i++) {
      const lineNo = chunk.firstLine + i;
      const text = chunk.lines[i]!;
      const joined = pending !== undefined ? `${pending}\n${text}` : text;
      const start = pending !== undefined ? pendingLine : lineNo;
      if (pending === undefined && text.trim() === "") continue;
      const fields = splitTsvRecord(joined);
      if (fields === undefined) {
        pending = joined;
        pendingLine = start;
        continue;
      }
      pending = undefined;
      out.push({ fields, line: start });
    }
    if (out.length > 0) yield out;
  }
  if (pending !== undefined) {
    throw new InputError("unterminated quoted field", { file, line: pendingLine, fix: 'close the quote, or escape a literal quote as ""' });
  }
}

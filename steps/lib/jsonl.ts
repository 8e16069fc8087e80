/**
 * Streaming line readers for the line-oriented formats the datasets ship: JSONL
 * (one JSON value per line) and TSV (DPR/TopiOCQA style, Python `csv` quoting).
 *
 * - Reads in fixed-size chunks and splits on "\n" bytes, so memory is bounded by the chunk
 *   size plus the longest line, whatever the file size. A line longer than one chunk is
 *   kept as a list of byte pieces and joined once when its end arrives: time is linear in
 *   the line's length. A line over `maxLineBytes` (default 256 MiB; a JavaScript string
 *   cannot hold much more) is an error saying so.
 * - Strict UTF-8: bytes that are not UTF-8 are an error with the line and byte offset
 *   (steps/lib/text.ts), never U+FFFD.
 * - A trailing "\r" is stripped (CRLF files), a UTF-8 BOM on line 1 is dropped.
 * - `.gz` files are gunzipped on the fly (offsets then count decompressed bytes).
 * - Every line carries its 1-based line number so parse errors name `file:line`.
 * - Lines are yielded in arrays (`readLineChunks`): an async step per line costs more
 *   than parsing it on 50M-line collections; `readLines` is the per-line convenience.
 */
import { createReadStream, statSync } from "node:fs";
import { isUtf8 } from "node:buffer";
import { createGunzip } from "node:zlib";
import { Transform, type Readable } from "node:stream";
import { InputError } from "../../pipeline/engine/errors.ts";
import { describeTextFormat, firstInvalidUtf8, invalidUtf8Error, wrongFormatError } from "./text.ts";
import { parseJson } from "./json-text.ts";

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

/** Longest line the readers accept by default. */
export const DEFAULT_MAX_LINE_BYTES = 256 * 1024 * 1024;

export interface ReadLinesOptions {
  /** Bytes per read (default 1 MiB). */
  readonly chunkBytes?: number;
  /** Skip lines that are empty or only whitespace (default true). Line numbers still count them. */
  readonly skipBlank?: boolean;
  /** Called after each chunk with compressed bytes read so far and the file size. */
  readonly onBytes?: (done: number, total?: number) => void;
  /** Longest line accepted, in bytes (default DEFAULT_MAX_LINE_BYTES). */
  readonly maxLineBytes?: number;
  /** Sees every chunk of the file's raw (still compressed) bytes, in order: e.g. to hash what was read. */
  readonly onRaw?: (chunk: Buffer) => void;
}

function lineTooLong(file: string, line: number, limit: number, seen: number): InputError {
  return new InputError(`line ${line} is longer than ${limit} bytes (at least ${seen} bytes without a line break)`, {
    file,
    line,
    fix: `this is not a line-oriented file (JSONL or TSV), or the line is damaged; if its lines really are this long, raise maxLineBytes (the limit exists because one line is held in memory as a string)`,
  });
}

/** `stream` through a pass-through that shows each chunk to `see` (errors of `stream` travel on). */
function tap(stream: Readable, see: (chunk: Buffer) => void): Readable {
  const t = new Transform({
    transform(chunk: Buffer, _enc, done) {
      see(chunk);
      done(null, chunk);
    },
  });
  stream.on("error", (e) => t.destroy(e));
  return stream.pipe(t);
}

/** The file's bytes as read (`raw`, for its byte count), decompressed when it is .gz (`source`), and its size. */
function openLineSource(file: string, options: ReadLinesOptions, chunkBytes: number): { raw: ReturnType<typeof createReadStream>; source: Readable; total: number } {
  let total: number;
  try {
    total = statSync(file).size;
  } catch (err) {
    throw new InputError(`cannot read file: ${(err as Error).message}`, { file, fix: "check the path (did the download step run?)" });
  }
  const raw = createReadStream(file, { highWaterMark: chunkBytes });
  const tapped = options.onRaw === undefined ? raw : tap(raw, options.onRaw);
  const source = file.endsWith(".gz") ? tapped.pipe(createGunzip({ chunkSize: Math.max(chunkBytes, 64) })) : tapped;
  return { raw, source, total };
}

/**
 * Cuts a stream of byte chunks into numbered lines: `push` each chunk, then `end`. The bytes after
 * the last line break wait (as pieces) for the next chunk; complete lines are decoded as strict
 * UTF-8, lose a trailing "\r" (and line 1 its BOM), and blank ones are skipped at a chunk's ends.
 */
class LineSplitter {
  private pending: Buffer[] = []; // the current unfinished line, in pieces
  private pendingBytes = 0;
  private offset = 0; // (decompressed) offset of the first pending byte
  /** Lines seen so far. */
  lineNo = 0;
  private first = true;

  constructor(
    private readonly file: string,
    private readonly compressed: boolean,
    private readonly skipBlank: boolean,
    private readonly maxLineBytes: number,
  ) {}

  /** The lines `buf` completes ({chunk: undefined} when all are blank), or undefined when it holds no line break. */
  push(buf: Buffer): { chunk: LineChunk | undefined } | undefined {
    const lastBreak = buf.lastIndexOf(0x0a);
    if (lastBreak < 0) {
      this.pending.push(buf);
      this.pendingBytes += buf.length;
      if (this.pendingBytes > this.maxLineBytes) throw lineTooLong(this.file, this.lineNo + 1, this.maxLineBytes, this.pendingBytes);
      return undefined;
    }
    const firstBreak = this.pendingBytes > 0 ? buf.indexOf(0x0a) : -1;
    if (this.pendingBytes > 0 && this.pendingBytes + firstBreak > this.maxLineBytes) throw lineTooLong(this.file, this.lineNo + 1, this.maxLineBytes, this.pendingBytes + firstBreak);
    const complete = this.pendingBytes > 0 ? Buffer.concat([...this.pending, buf.subarray(0, lastBreak)]) : buf.subarray(0, lastBreak);
    const chunk = this.emit(this.decode(complete).split("\n"));
    this.offset += complete.length + 1;
    const rest = buf.subarray(lastBreak + 1);
    this.pending = rest.length > 0 ? [rest] : [];
    this.pendingBytes = rest.length;
    return { chunk };
  }

  /** The last line, when the file does not end with a line break. */
  end(): LineChunk | undefined {
    return this.pendingBytes > 0 ? this.emit([this.decode(Buffer.concat(this.pending))]) : undefined;
  }

  private emit(parts: string[]): LineChunk | undefined {
    const skipBlank = this.skipBlank;
    const lines: string[] = [];
    let firstLine = -1;
    let lineNo = this.lineNo;
    for (let i = 0; i < parts.length; i++) {
      let text = parts[i]!;
      lineNo++;
      if (text.endsWith("\r")) text = text.slice(0, -1);
      if (this.first) {
        this.first = false;
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      }
      if (skipBlank && text.trim() === "") {
        if (lines.length > 0) lines.push(text); // keep numbering contiguous inside a chunk
        continue;
      }
      if (firstLine < 0) firstLine = lineNo;
      lines.push(text);
    }
    this.lineNo = lineNo;
    while (skipBlank && lines.length > 0 && lines[lines.length - 1]!.trim() === "") lines.pop();
    return lines.length > 0 ? { lines, firstLine } : undefined;
  }

  /** Complete lines (without the final line break) as text; strict UTF-8. */
  private decode(bytes: Buffer): string {
    if (isUtf8(bytes)) return bytes.toString("utf8");
    if (this.offset === 0) {
      const kind = describeTextFormat(bytes.subarray(0, 4096)).kind;
      if (kind === "gzip" || kind === "zip" || kind === "bzip2" || kind === "binary") throw wrongFormatError(this.file, bytes.subarray(0, 4096), "a UTF-8 text file with one record per line");
    }
    throw invalidUtf8Error(bytes, Math.max(0, firstInvalidUtf8(bytes)), { file: this.file, offset: this.offset, line: this.lineNo + 1, compressed: this.compressed });
  }
}

/** Yields the file's lines in chunks (one chunk per read), with line numbers. */
export async function* readLineChunks(file: string, options: ReadLinesOptions = {}): AsyncGenerator<LineChunk> {
  const chunkBytes = options.chunkBytes ?? 1 << 20;
  const { raw, source, total } = openLineSource(file, options, chunkBytes);
  const compressed = file.endsWith(".gz");
  const split = new LineSplitter(file, compressed, options.skipBlank ?? true, options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES);
  try {
    for await (const buf of source as AsyncIterable<Buffer>) {
      const done = split.push(buf);
      if (done === undefined) continue;
      options.onBytes?.(raw.bytesRead, total);
      if (done.chunk !== undefined) yield done.chunk;
    }
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(`read failed: ${(err as Error).message}`, { file, line: split.lineNo + 1, fix: compressed ? "re-download the file; it may be truncated or not gzip" : "check the file (a disk or permission problem?)" });
  }
  const last = split.end();
  if (last !== undefined) yield last;
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

/** Parses one JSONL line; a syntax error becomes an InputError naming file, line and column. */
export function parseJsonLine(text: string, file: string, line: number, fix = "each line must be one complete JSON value (JSONL)"): unknown {
  // A line that does not even start like JSON: say what the file looks like instead.
  const start = text.trimStart()[0];
  if (start !== "{" && start !== "[" && start !== '"') {
    const { kind, description } = describeTextFormat(Buffer.from(text.slice(0, 4096)));
    if (kind === "tsv" || kind === "csv" || kind === "html") {
      throw new InputError(`expected JSONL (one JSON value per line), but line ${line} ${description}`, { file, line, fix: "use the dataset's original release file (check the file name and the download)" });
    }
  }
  return parseJson(text, { file, line, fix });
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

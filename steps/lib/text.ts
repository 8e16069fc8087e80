/**
 * Text input without blind spots:
 * - strict UTF-8: a byte sequence that is not UTF-8 (a Latin-1 file, a truncated or binary
 *   file) is an error naming the byte offset and line, never U+FFFD silently;
 * - format sniffing: what a file looks like (TSV, an HTML page, gzip data, a JSON array...)
 *   so a file in the wrong format is told which format was expected and what it got.
 */
import { readFileSync, statSync } from "node:fs";
import { isUtf8 } from "node:buffer";
import { InputError } from "../../pipeline/engine/errors.ts";

/**
 * Offset of the first byte that does not belong to a valid UTF-8 sequence (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF), or -1. A sequence cut off by the
 * end of `buf` counts as invalid at its first byte.
 */
export function firstInvalidUtf8(buf: Uint8Array, start = 0, end = buf.length): number {
  let i = start;
  while (i < end) {
    const b = buf[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let n: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) n = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      n = 2;
      if (b === 0xe0) lo = 0xa0; // overlong
      if (b === 0xed) hi = 0x9f; // surrogates
    } else if (b >= 0xf0 && b <= 0xf4) {
      n = 3;
      if (b === 0xf0) lo = 0x90; // overlong
      if (b === 0xf4) hi = 0x8f; // > U+10FFFF
    } else return i;
    if (i + n >= end) return i; // cut off by the end
    const c1 = buf[i + 1]!;
    if (c1 < lo || c1 > hi) return i;
    for (let k = 2; k <= n; k++) {
      const c = buf[i + k]!;
      if (c < 0x80 || c > 0xbf) return i;
    }
    i += n + 1;
  }
  return -1;
}

export interface Utf8Where {
  readonly file: string;
  /** Offset of `buf[0]` in the (decompressed) file. */
  readonly offset?: number;
  /** 1-based line number of `buf[0]`. */
  readonly line?: number;
  /** The file is compressed: offsets count decompressed bytes. */
  readonly compressed?: boolean;
}

/** The InputError for the first invalid byte at `index` of `buf`. */
export function invalidUtf8Error(buf: Uint8Array, index: number, where: Utf8Where): InputError {
  let line = where.line ?? 1;
  for (let i = 0; i < index; i++) if (buf[i] === 0x0a) line++;
  const offset = (where.offset ?? 0) + index;
  const bytes = Array.from(buf.subarray(index, Math.min(index + 4, buf.length)), (b) => b.toString(16).padStart(2, "0")).join(" ");
  return new InputError(`not valid UTF-8 at byte offset ${offset}${where.compressed ? " (of the decompressed data)" : ""} (bytes ${bytes})`, {
    file: where.file,
    line,
    fix: "the file must be UTF-8: convert it (e.g. iconv -f latin1 -t utf-8), or use the original release file (this one may be truncated or binary)",
  });
}

/** Decode bytes that must be UTF-8; an InputError with the byte offset and line otherwise. */
export function decodeUtf8Strict(buf: Buffer, where: Utf8Where): string {
  if (!isUtf8(buf)) {
    const at = firstInvalidUtf8(buf);
    throw invalidUtf8Error(buf, at < 0 ? 0 : at, where);
  }
  return buf.toString("utf8");
}

/** A whole text file, strictly UTF-8, without its byte-order mark; unreadable or invalid files are InputErrors naming it. */
export function readTextFile(file: string): string {
  let buf: Buffer;
  try {
    buf = readFileSync(file);
  } catch (err) {
    throw new InputError(`cannot read file: ${(err as Error).message}`, { file, fix: "check the path (did the download step run?)" });
  }
  if (!isUtf8(buf)) {
    const kind = describeTextFormat(buf.subarray(0, 4096)).kind;
    if (kind === "gzip" || kind === "zip" || kind === "bzip2" || kind === "binary") throw wrongFormatError(file, buf.subarray(0, 4096), "a UTF-8 text file");
  }
  const text = decodeUtf8Strict(buf, { file });
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

export type TextFormatKind = "empty" | "gzip" | "zip" | "bzip2" | "html" | "json-array" | "jsonl" | "json-object" | "tsv" | "csv" | "text" | "binary";

const DESCRIPTIONS: Record<TextFormatKind, string> = {
  empty: "is empty",
  gzip: "is gzip-compressed data (unpack it, or name it .gz)",
  zip: "is a zip archive (unpack it)",
  bzip2: "is bzip2-compressed data (unpack it)",
  html: "looks like an HTML page (a login or error page saved instead of the file?)",
  "json-array": "looks like a JSON array",
  jsonl: "looks like JSONL (one JSON object per line)",
  "json-object": "looks like one JSON object",
  tsv: "looks like TSV (tab-separated columns)",
  csv: "looks like CSV (comma-separated columns)",
  text: "looks like plain text",
  binary: "looks like binary data",
};

/** What the start of a file looks like (give it the first few KiB). */
export function describeTextFormat(head: Uint8Array): { kind: TextFormatKind; description: string } {
  const kind = sniff(head);
  return { kind, description: DESCRIPTIONS[kind] };
}

function sniff(head: Uint8Array): TextFormatKind {
  const b = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  if (b.length === 0) return "empty";
  if (b[0] === 0x1f && b[1] === 0x8b) return "gzip";
  if (b.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04]))) return "zip";
  if (b.subarray(0, 3).toString("latin1") === "BZh") return "bzip2";
  let text = b.toString("utf8");
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.includes("\u0000")) return "binary";
  const trimmed = text.trimStart();
  if (trimmed.length === 0) return "empty";
  if (/^<(!doctype html|html|head|body|\?xml)/i.test(trimmed)) return "html";
  if (trimmed[0] === "[") return "json-array";
  const firstLine = trimmed.split("\n", 1)[0]!.replace(/\r$/, "");
  if (trimmed[0] === "{") {
    try {
      JSON.parse(firstLine);
      return "jsonl";
    } catch {
      return "json-object";
    }
  }
  if (firstLine.includes("\t")) return "tsv";
  if (firstLine.split(",").length >= 3) return "csv";
  return "text";
}

/** A file in the wrong format: names what was expected and what the file looks like. */
export function wrongFormatError(file: string, head: Uint8Array, expected: string, fix?: string): InputError {
  const { description } = describeTextFormat(head);
  return new InputError(`expected ${expected}, but the file ${description}`, { file, fix: fix ?? "use the dataset's original release file (check the file name and the download)" });
}

/**
 * A file a user named with a command-line option (`--qrels`, `--run`...): an InputError naming
 * the option, the path and the fix when it does not exist, is a directory or cannot be read, so no
 * command prints a bare ENOENT or EISDIR.
 */
export function checkInputFile(path: string, option: string, expected = "a file"): void {
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const problem = code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : (e as Error).message;
    throw new InputError(`${option}: ${problem}.`, { file: path, fix: code === "ENOENT" ? `check the path (relative paths start at ${process.cwd()})` : "check the file's permissions" });
  }
  if (isDir) throw new InputError(`${option}: this is a directory; ${option} takes ${expected}.`, { file: path, fix: `name ${expected} inside it.` });
}

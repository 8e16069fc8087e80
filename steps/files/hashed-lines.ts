/**
 * Lines of a user's text file (gzip when the name ends in .gz), read in chunks with line numbers,
 * while the raw bytes are hashed: at the end the sha256 must equal the digest the step's key was
 * computed from, otherwise the step fails (the file changed after the command looked at it) and no
 * entry is published. CRLF and a UTF-8 BOM are handled like steps/lib/jsonl.ts.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { Transform } from "node:stream";
import { createGunzip } from "node:zlib";
import { InputError } from "../../pipeline/engine/errors.ts";

export interface LineBatch {
  /** Lines without their terminator; blank lines kept (as "") so numbering stays contiguous. */
  readonly lines: string[];
  /** 1-based line number of lines[0]. */
  readonly firstLine: number;
}

export interface HashedReadOptions {
  /** Expected sha256 of the raw (compressed) bytes. */
  readonly sha256: string;
  /** Raw bytes read so far, after every chunk. */
  readonly onBytes?: (bytes: number) => void;
}

export async function* readHashedLines(file: string, options: HashedReadOptions): AsyncGenerator<LineBatch> {
  const hash = createHash("sha256");
  let bytes = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  const raw = createReadStream(file, { highWaterMark: 1 << 20 });
  raw.on("error", (e) => tap.destroy(e));
  let source: NodeJS.ReadableStream = raw.pipe(tap);
  if (file.endsWith(".gz")) {
    const gunzip = createGunzip();
    tap.on("error", (e) => gunzip.destroy(e));
    source = tap.pipe(gunzip);
  }
  const decoder = new TextDecoder("utf-8");
  let carry = "";
  let lineNo = 0;
  const split = (text: string, final: boolean): LineBatch | undefined => {
    const parts = text.split("\n");
    carry = final ? "" : parts.pop()!;
    if (parts.length === 0) return undefined;
    const firstLine = lineNo + 1;
    const lines = parts.map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
    if (lineNo === 0 && lines[0]!.charCodeAt(0) === 0xfeff) lines[0] = lines[0]!.slice(1);
    lineNo += lines.length;
    return { lines, firstLine };
  };
  try {
    for await (const buf of source as AsyncIterable<Buffer>) {
      const batch = split(carry + decoder.decode(buf, { stream: true }), false);
      options.onBytes?.(bytes);
      if (batch !== undefined) yield batch;
    }
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError(`read failed: ${(e as Error).message}`, { file, line: lineNo + 1, fix: file.endsWith(".gz") ? "the file may be truncated or not gzip; re-download it" : "check the file" });
  }
  const rest = carry + decoder.decode();
  if (rest.length > 0) {
    const batch = split(rest, true);
    if (batch !== undefined) yield batch;
  }
  const got = hash.digest("hex");
  if (got !== options.sha256) {
    throw new InputError(`changed after it was hashed (sha256 ${got}, expected ${options.sha256})`, { file, fix: "leave the file unchanged while the command runs, then rerun" });
  }
}

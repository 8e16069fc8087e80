/**
 * Lines of a user's text file (gzip when the name ends in .gz), read in chunks with line numbers,
 * while the raw bytes are hashed: at the end the sha256 must equal the digest the step's key was
 * computed from, otherwise the step fails (the file changed after the command looked at it) and no
 * entry is published. The lines come from the project's one line reader (steps/lib/jsonl.ts):
 * strict UTF-8 (a byte that is not UTF-8 is an error naming its offset and line), CRLF and a BOM
 * handled, blank lines kept so numbering stays contiguous.
 */
import { createHash } from "node:crypto";
import { InputError } from "../../pipeline/engine/errors.ts";
import { readLineChunks } from "../lib/jsonl.ts";

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
  const onRaw = (chunk: Buffer) => {
    hash.update(chunk);
    bytes += chunk.length;
  };
  for await (const batch of readLineChunks(file, { skipBlank: false, onRaw })) {
    options.onBytes?.(bytes);
    yield batch;
  }
  const got = hash.digest("hex");
  if (got !== options.sha256) {
    throw new InputError(`changed after it was hashed (sha256 ${got}, expected ${options.sha256})`, { file, fix: "leave the file unchanged while the command runs, then rerun" });
  }
}

/**
 * A collection's token matrices in two passes with bounded memory: pass 1 (`spillRows`) tokenizes
 * each passage once, spills its variable-length row to a scratch file and writes its id as a line
 * of pids.txt, finding the longest row L; pass 2 (`writeSpilledRows`) reads the rows back and pads
 * them with 0 to L in ids.npy (int32) and type_ids.npy (int8). tokenize-passages and
 * tokenize-dcsr-passages both write their token directory this way.
 */
import { closeSync, openSync, readSync, writeSync } from "node:fs";
import { join } from "node:path";
import { LineWriter } from "./line-writer.ts";
import { NpyRowWriter } from "./npy-row-writer.ts";
import type { EncodedSequence } from "./rows.ts";

/** Appends variable-length rows (int32 ids, int8 type ids) to a scratch file; lengths stay in memory (2 bytes a row). */
export class RowSpill {
  private readonly fd: number;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private lengths = new Uint16Array(1024);
  rows = 0;
  constructor(readonly path: string) {
    this.fd = openSync(path, "w");
  }
  append(seq: EncodedSequence): void {
    const n = seq.ids.length;
    const buf = Buffer.allocUnsafe(n * 5);
    for (let i = 0; i < n; i++) buf.writeInt32LE(seq.ids[i]!, i * 4);
    for (let i = 0; i < n; i++) buf.writeInt8(seq.typeIds[i]!, n * 4 + i);
    this.pending.push(buf);
    this.pendingBytes += buf.length;
    if (this.rows === this.lengths.length) {
      const grown = new Uint16Array(this.lengths.length * 2);
      grown.set(this.lengths);
      this.lengths = grown;
    }
    this.lengths[this.rows++] = n;
    if (this.pendingBytes >= 1 << 22) this.flush();
  }
  private flush(): void {
    if (this.pendingBytes > 0) writeSync(this.fd, Buffer.concat(this.pending, this.pendingBytes));
    this.pending = [];
    this.pendingBytes = 0;
  }
  close(): Uint16Array {
    this.flush();
    closeSync(this.fd);
    return this.lengths.subarray(0, this.rows);
  }
}

/** Reads the spilled rows back in order, one at a time, through a bounded buffer. */
export function* readSpill(path: string, lengths: Uint16Array, bufferBytes = 1 << 22): Generator<{ ids: Int32Array; types: Int8Array }> {
  const fd = openSync(path, "r");
  let buf = Buffer.alloc(bufferBytes);
  let start = 0;
  let end = 0;
  let filePos = 0;
  try {
    for (const n of lengths) {
      const need = n * 5;
      if (end - start < need) {
        if (need > buf.length) buf = Buffer.concat([buf], need);
        buf.copy(buf, 0, start, end);
        end -= start;
        start = 0;
        while (end < need) {
          const got = readSync(fd, buf, end, buf.length - end, filePos);
          if (got === 0) throw new Error(`${path}: spill file ended early`);
          end += got;
          filePos += got;
        }
      }
      const ids = new Int32Array(n);
      for (let i = 0; i < n; i++) ids[i] = buf.readInt32LE(start + i * 4);
      const types = new Int8Array(buf.buffer.slice(buf.byteOffset + start + n * 4, buf.byteOffset + start + need));
      start += need;
      yield { ids, types };
    }
  } finally {
    closeSync(fd);
  }
}

/** The spilled rows of pass 1: the scratch file, each row's length, the longest. */
export interface SpilledRows {
  readonly path: string;
  readonly lengths: Uint16Array;
  readonly longest: number;
}

/**
 * Pass 1: `tokenize` turns each item into its id and row (counting what it likes on the way); the
 * row goes to the spill file `files.spill`, the id to `files.pids`; `progress(rows)` every 1000 rows.
 */
export async function spillRows<T>(
  items: AsyncIterable<T>,
  tokenize: (item: T) => { id: string; seq: EncodedSequence },
  files: { spill: string; pids: string },
  progress: (rows: number) => void,
): Promise<SpilledRows> {
  const spill = new RowSpill(files.spill);
  const pids = new LineWriter(files.pids);
  let longest = 0;
  try {
    for await (const item of items) {
      const { id, seq } = tokenize(item);
      spill.append(seq);
      if (seq.ids.length > longest) longest = seq.ids.length;
      pids.push(id);
      if (spill.rows % 1000 === 0) progress(spill.rows);
    }
    pids.flush();
  } finally {
    pids.close();
  }
  return { path: spill.path, lengths: spill.close(), longest };
}

/** Pass 2: the spilled rows padded with 0 to the longest, as `<dir>/ids.npy` and `<dir>/type_ids.npy`; `progress(rows)` every 10000 rows. */
export function writeSpilledRows(dir: string, rows: SpilledRows, progress?: (rows: number) => void): void {
  const ids = new NpyRowWriter(join(dir, "ids.npy"), "int32", rows.longest);
  const types = new NpyRowWriter(join(dir, "type_ids.npy"), "int8", rows.longest);
  try {
    for (const row of readSpill(rows.path, rows.lengths)) {
      ids.append(row.ids);
      types.append(row.types);
      if (ids.count % 10000 === 0) progress?.(ids.count);
    }
  } finally {
    ids.close();
    types.close();
  }
}

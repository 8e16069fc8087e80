/**
 * Streams a 2-D .npy matrix [N, cols] row by row without knowing N upfront: the header is
 * written with room for a 15-digit N and patched on close (the spare room is spaces before the
 * header's final newline, which the .npy format allows). Rows shorter than `cols` are padded
 * with 0. Uses steps/lib/npy.ts for the header itself.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import { npyHeader } from "../../lib/npy.ts";

export type RowDtype = "int32" | "int8";

const PLACEHOLDER_N = 999_999_999_999_999;

/** npyHeader padded with spaces to exactly `totalLength` bytes (a multiple of 64). */
export function paddedNpyHeader(dtype: RowDtype, shape: readonly number[], totalLength: number): Uint8Array {
  const h = npyHeader(dtype, shape);
  if (h.length > totalLength) throw new Error(`npy header needs ${h.length} bytes, only ${totalLength} reserved`);
  if (h.length === totalLength) return h;
  const out = new Uint8Array(totalLength).fill(0x20);
  out.set(h.subarray(0, h.length - 1), 0);
  out[totalLength - 1] = 0x0a;
  const len = totalLength - 10;
  out[8] = len & 0xff;
  out[9] = (len >> 8) & 0xff;
  return out;
}

export class NpyRowWriter {
  private readonly fd: number;
  private readonly headerLength: number;
  private readonly chunk: Int32Array | Int8Array;
  private readonly chunkRows: number;
  private filled = 0;
  private rows = 0;
  private closed = false;

  constructor(
    readonly path: string,
    readonly dtype: RowDtype,
    readonly cols: number,
    chunkRows = 4096,
  ) {
    if (!Number.isInteger(cols) || cols < 1) throw new RangeError(`cols must be a positive integer, got ${cols}`);
    this.headerLength = npyHeader(dtype, [PLACEHOLDER_N, cols]).length;
    this.chunkRows = chunkRows;
    this.chunk = dtype === "int32" ? new Int32Array(chunkRows * cols) : new Int8Array(chunkRows * cols);
    this.fd = openSync(path, "w");
    writeSync(this.fd, new Uint8Array(this.headerLength).fill(0x20));
  }

  get count(): number {
    return this.rows;
  }

  append(row: ArrayLike<number>): void {
    if (this.closed) throw new Error(`${this.path}: append after close`);
    if (row.length > this.cols) throw new RangeError(`${this.path}: row of ${row.length} values, matrix has ${this.cols} columns`);
    const off = this.filled * this.cols;
    this.chunk.fill(0, off, off + this.cols);
    for (let i = 0; i < row.length; i++) this.chunk[off + i] = row[i]!;
    this.filled++;
    this.rows++;
    if (this.filled === this.chunkRows) this.flush();
  }

  private flush(): void {
    if (this.filled === 0) return;
    const bytes = this.filled * this.cols * this.chunk.BYTES_PER_ELEMENT;
    writeSync(this.fd, new Uint8Array(this.chunk.buffer, 0, bytes));
    this.filled = 0;
  }

  /** Flushes, writes the final header and closes; returns N. */
  close(): number {
    if (this.closed) return this.rows;
    try {
      this.flush();
      writeSync(this.fd, paddedNpyHeader(this.dtype, [this.rows, this.cols], this.headerLength), 0, this.headerLength, 0);
    } finally {
      closeSync(this.fd);
      this.closed = true;
    }
    return this.rows;
  }
}

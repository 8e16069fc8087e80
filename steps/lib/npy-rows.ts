/**
 * Reading selected rows of a 2-D .npy file without loading it: the header is parsed
 * once, then each row is read at its byte offset. For picking a few thousand dev
 * passages out of a collection-sized token matrix.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { InputError } from "../../pipeline/engine/errors.ts";
import type { NpyArray, NpyDtype } from "./npy.ts";

const BYTES: Record<NpyDtype, number> = { float32: 4, float64: 8, int32: 4, int64: 8, int16: 2, uint16: 2, int8: 1, uint8: 1 };
const DESCR: Readonly<Record<string, NpyDtype>> = { f4: "float32", f8: "float64", i4: "int32", i8: "int64", i2: "int16", u2: "uint16", i1: "int8", u1: "uint8" };

export interface NpyMatrixHeader {
  readonly dtype: NpyDtype;
  readonly rows: number;
  readonly cols: number;
  readonly dataStart: number;
}

export function readNpyMatrixHeader(path: string): NpyMatrixHeader {
  const fd = openSync(path, "r");
  try {
    const head = new Uint8Array(4096);
    const n = readSync(fd, head, 0, head.length, 0);
    if (n < 10 || head[0] !== 0x93 || String.fromCharCode(...head.subarray(1, 6)) !== "NUMPY") {
      throw new InputError("not a .npy file (bad magic)", { file: path, fix: "write it with numpy.save or steps/lib/npy.ts" });
    }
    const major = head[6];
    const headerLen = major === 1 ? head[8]! | (head[9]! << 8) : new DataView(head.buffer, 8, 4).getUint32(0, true);
    const dataStart = (major === 1 ? 10 : 12) + headerLen;
    if (n < dataStart) throw new InputError("truncated .npy header", { file: path });
    const text = new TextDecoder("latin1").decode(head.subarray(0, dataStart));
    const descr = /'descr':\s*'[<|]?([a-z]\d)'/.exec(text)?.[1];
    const dtype = descr === undefined ? undefined : DESCR[descr];
    if (dtype === undefined) throw new InputError(`unsupported dtype in header ${JSON.stringify(text.slice(10).trim())}`, { file: path });
    if (/'fortran_order':\s*True/.test(text)) throw new InputError("Fortran-order arrays are not supported", { file: path });
    const shape = /'shape':\s*\(([^)]*)\)/.exec(text)?.[1]?.split(",").map((s) => s.trim()).filter(Boolean).map(Number) ?? [];
    if (shape.length !== 2) throw new InputError(`expected a 2-D array, found shape (${shape.join(", ")})`, { file: path });
    return { dtype, rows: shape[0]!, cols: shape[1]!, dataStart };
  } finally {
    closeSync(fd);
  }
}

/** Rows `rows` (in that order, repeats allowed) of a 2-D .npy matrix, as one row-major buffer of raw bytes. */
export function readNpyRows(path: string, rows: readonly number[]): { header: NpyMatrixHeader; bytes: Uint8Array } {
  const header = readNpyMatrixHeader(path);
  const rowBytes = header.cols * BYTES[header.dtype];
  const out = new Uint8Array(rows.length * rowBytes);
  const fd = openSync(path, "r");
  try {
    rows.forEach((r, i) => {
      if (!Number.isInteger(r) || r < 0 || r >= header.rows) throw new RangeError(`${path}: row ${r} outside 0..${header.rows - 1}`);
      const got = readSync(fd, out, i * rowBytes, rowBytes, header.dataStart + r * rowBytes);
      if (got !== rowBytes) throw new InputError(`truncated at row ${r}`, { file: path });
    });
  } finally {
    closeSync(fd);
  }
  return { header, bytes: out };
}

/**
 * Rows [start, end) of a 2-D int32/int8 token matrix, read without loading the rest, plus
 * the matrix's total row count (`readNpyRowRange(path, 0, 0).totalRows` reads the header only).
 */
export function readNpyRowRange(path: string, start: number, end: number): NpyArray & { totalRows: number } {
  const header = readNpyMatrixHeader(path);
  if (header.dtype !== "int32" && header.dtype !== "int8") {
    throw new InputError(`expected a C-order 2-d int32 or int8 matrix, found ${header.dtype}`, { file: path, fix: "write token matrices with the tokenize steps" });
  }
  if (start < 0 || end > header.rows || start > end) throw new InputError(`rows [${start}, ${end}) outside [0, ${header.rows})`, { file: path });
  const rowBytes = header.cols * BYTES[header.dtype];
  const bytes = new Uint8Array((end - start) * rowBytes);
  const fd = openSync(path, "r");
  try {
    const got = readSync(fd, bytes, 0, bytes.length, header.dataStart + start * rowBytes);
    if (got !== bytes.length) throw new InputError(`truncated: ${got} of ${bytes.length} bytes`, { file: path, fix: "rerun the tokenize step" });
  } finally {
    closeSync(fd);
  }
  const data = header.dtype === "int32" ? new Int32Array(bytes.buffer, 0, bytes.length / 4) : new Int8Array(bytes.buffer, 0, bytes.length);
  return { dtype: header.dtype, shape: [end - start, header.cols], data, totalRows: header.rows };
}

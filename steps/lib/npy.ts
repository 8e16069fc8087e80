/**
 * NumPy .npy (format version 1.0/2.0) reader and writer for the dtypes the pipeline
 * exchanges with Python containers: token ids (int32/int64/int8/uint8) and embeddings
 * (float32/float16 read-only as raw bits). Little-endian, C order only.
 */
import { openSync, writeSync, closeSync, readFileSync } from "node:fs";
import { InputError } from "../../pipeline/engine/errors.ts";

export type NpyDtype = "float32" | "float64" | "int32" | "int64" | "int8" | "uint8" | "int16" | "uint16";
export type NpyData = Float32Array | Float64Array | Int32Array | BigInt64Array | Int8Array | Uint8Array | Int16Array | Uint16Array;

interface DtypeInfo {
  descr: string;
  bytes: number;
  make(buf: ArrayBuffer, offset: number, length: number): NpyData;
}

const DTYPES: Record<NpyDtype, DtypeInfo> = {
  float32: { descr: "<f4", bytes: 4, make: (b, o, n) => new Float32Array(b, o, n) },
  float64: { descr: "<f8", bytes: 8, make: (b, o, n) => new Float64Array(b, o, n) },
  int32: { descr: "<i4", bytes: 4, make: (b, o, n) => new Int32Array(b, o, n) },
  int64: { descr: "<i8", bytes: 8, make: (b, o, n) => new BigInt64Array(b, o, n) },
  int16: { descr: "<i2", bytes: 2, make: (b, o, n) => new Int16Array(b, o, n) },
  uint16: { descr: "<u2", bytes: 2, make: (b, o, n) => new Uint16Array(b, o, n) },
  int8: { descr: "|i1", bytes: 1, make: (b, o, n) => new Int8Array(b, o, n) },
  uint8: { descr: "|u1", bytes: 1, make: (b, o, n) => new Uint8Array(b, o, n) },
};

const DESCR_TO_DTYPE = new Map<string, NpyDtype>(
  (Object.entries(DTYPES) as [NpyDtype, DtypeInfo][]).flatMap(([k, v]) => [
    [v.descr, k],
    [v.descr.replace("|", "<"), k],
    [v.descr.replace("<", "|"), k],
  ]),
);

export function dtypeOf(data: NpyData): NpyDtype {
  if (data instanceof Float32Array) return "float32";
  if (data instanceof Float64Array) return "float64";
  if (data instanceof Int32Array) return "int32";
  if (data instanceof BigInt64Array) return "int64";
  if (data instanceof Int16Array) return "int16";
  if (data instanceof Uint16Array) return "uint16";
  if (data instanceof Int8Array) return "int8";
  return "uint8";
}

export interface NpyArray<T extends NpyData = NpyData> {
  dtype: NpyDtype;
  shape: number[];
  data: T;
}

/** Header bytes for an array of this dtype and shape (padded so data starts 64-aligned). */
export function npyHeader(dtype: NpyDtype, shape: readonly number[]): Uint8Array {
  const shapeStr = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(", ")})`;
  let dict = `{'descr': '${DTYPES[dtype].descr}', 'fortran_order': False, 'shape': ${shapeStr}, }`;
  const pre = 10; // magic(6) + version(2) + header len(2)
  const total = Math.ceil((pre + dict.length + 1) / 64) * 64;
  dict = dict + " ".repeat(total - pre - dict.length - 1) + "\n";
  const out = new Uint8Array(total);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0], 0);
  out[8] = dict.length & 0xff;
  out[9] = (dict.length >> 8) & 0xff;
  for (let i = 0; i < dict.length; i++) out[pre + i] = dict.charCodeAt(i);
  return out;
}

export function encodeNpy(arr: NpyArray): Uint8Array {
  const expected = arr.shape.reduce((a, b) => a * b, 1);
  if (expected !== arr.data.length) throw new Error(`npy: shape [${arr.shape}] needs ${expected} values, got ${arr.data.length}`);
  const header = npyHeader(arr.dtype, arr.shape);
  const body = new Uint8Array(arr.data.buffer, arr.data.byteOffset, arr.data.byteLength);
  const out = new Uint8Array(header.length + body.length);
  out.set(header, 0);
  out.set(body, header.length);
  return out;
}

export function writeNpy(path: string, arr: NpyArray): void {
  const fd = openSync(path, "w");
  try {
    const expected = arr.shape.reduce((a, b) => a * b, 1);
    if (expected !== arr.data.length) throw new Error(`npy: shape [${arr.shape}] needs ${expected} values, got ${arr.data.length}`);
    writeSync(fd, npyHeader(arr.dtype, arr.shape));
    writeSync(fd, new Uint8Array(arr.data.buffer, arr.data.byteOffset, arr.data.byteLength));
  } finally {
    closeSync(fd);
  }
}

export function decodeNpy(bytes: Uint8Array, file = "<buffer>"): NpyArray {
  const magic = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59];
  if (bytes.length < 10 || magic.some((m, i) => bytes[i] !== m)) {
    throw new InputError("not a .npy file (bad magic)", { file, fix: "write it with numpy.save or steps/lib/npy.ts" });
  }
  const major = bytes[6]!;
  const headerLen = major === 1 ? bytes[8]! | (bytes[9]! << 8) : new DataView(bytes.buffer, bytes.byteOffset + 8, 4).getUint32(0, true);
  const start = major === 1 ? 10 : 12;
  const header = new TextDecoder("latin1").decode(bytes.subarray(start, start + headerLen));
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  const fortran = /'fortran_order':\s*(True|False)/.exec(header)?.[1];
  const shapeText = /'shape':\s*\(([^)]*)\)/.exec(header)?.[1];
  if (descr === undefined || fortran === undefined || shapeText === undefined) {
    throw new InputError(`unreadable .npy header ${JSON.stringify(header)}`, { file });
  }
  if (fortran === "True") throw new InputError("Fortran-order arrays are not supported", { file, fix: "save with np.ascontiguousarray" });
  const dtype = DESCR_TO_DTYPE.get(descr);
  if (dtype === undefined) throw new InputError(`unsupported dtype ${descr}`, { file, fix: "use float32, int32, int64, int8 or uint8" });
  const shape = shapeText.split(",").map((s) => s.trim()).filter((s) => s.length > 0).map(Number);
  const n = shape.reduce((a, b) => a * b, 1);
  const dataStart = start + headerLen;
  const info = DTYPES[dtype];
  if (bytes.length - dataStart < n * info.bytes) throw new InputError(`truncated: expected ${n * info.bytes} data bytes, found ${bytes.length - dataStart}`, { file });
  // Copy into an aligned buffer (typed arrays need element-aligned offsets).
  const copy = new ArrayBuffer(n * info.bytes);
  new Uint8Array(copy).set(bytes.subarray(dataStart, dataStart + n * info.bytes));
  return { dtype, shape, data: info.make(copy, 0, n) };
}

export function readNpy(path: string): NpyArray {
  return decodeNpy(readFileSync(path), path);
}

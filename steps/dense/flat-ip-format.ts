/**
 * faiss's on-disk format for an IndexFlatIP (pure), so TypeScript can write index files that
 * faiss reads directly (faiss-node `IndexFlatIP.read`, Python `faiss.read_index`) and read the
 * files faiss writes. This is how vectors reach faiss-node without its slow `add()`, which
 * only takes plain JS arrays.
 *
 * Layout (faiss 1.7.x `write_index` for IndexFlat, little-endian, no padding):
 *   "IxFI"            4 bytes  fourcc of IndexFlatIP
 *   d                 int32
 *   ntotal            int64
 *   dummy, dummy      int64 x2 (1 << 20)
 *   is_trained        uint8 (1)
 *   metric_type       int32 (0 = inner product)
 *   codes size        uint64   number of float32 values (ntotal * d)
 *   codes             float32 x ntotal * d, row-major
 */
import { InputError } from "../../pipeline/engine/errors.ts";

export const FLAT_IP_FOURCC = "IxFI";
export const FLAT_IP_HEADER_BYTES = 45;

export function flatIPHeader(dim: number, ntotal: number): Uint8Array {
  if (!Number.isInteger(dim) || dim <= 0 || dim > 0x7fffffff) throw new InputError(`invalid dimension ${dim}`, { field: "dim" });
  if (!Number.isSafeInteger(ntotal) || ntotal < 0) throw new InputError(`invalid vector count ${ntotal}`, { field: "ntotal" });
  const out = new Uint8Array(FLAT_IP_HEADER_BYTES);
  const v = new DataView(out.buffer);
  for (let i = 0; i < 4; i++) out[i] = FLAT_IP_FOURCC.charCodeAt(i);
  v.setInt32(4, dim, true);
  v.setBigInt64(8, BigInt(ntotal), true);
  v.setBigInt64(16, 1n << 20n, true);
  v.setBigInt64(24, 1n << 20n, true);
  v.setUint8(32, 1);
  v.setInt32(33, 0, true);
  v.setBigUint64(37, BigInt(ntotal) * BigInt(dim), true);
  return out;
}

export interface FlatIPHeader {
  readonly dim: number;
  readonly ntotal: number;
  /** Byte offset of the first float32 value. */
  readonly dataOffset: number;
}

/** Parses the header of an IndexFlatIP file; `bytes` needs only the first 45 bytes. */
export function parseFlatIPHeader(bytes: Uint8Array, file = "<buffer>"): FlatIPHeader {
  if (bytes.length < FLAT_IP_HEADER_BYTES) throw new InputError(`too short for a faiss index (${bytes.length} bytes)`, { file });
  const fourcc = String.fromCharCode(bytes[0]!, bytes[1]!, bytes[2]!, bytes[3]!);
  if (fourcc !== FLAT_IP_FOURCC) {
    throw new InputError(`not a faiss IndexFlatIP file (fourcc ${JSON.stringify(fourcc)}, expected "IxFI")`, {
      file,
      fix: "only flat inner-product indexes are supported; rebuild it with steps/dense/faiss-index.ts",
    });
  }
  const v = new DataView(bytes.buffer, bytes.byteOffset, FLAT_IP_HEADER_BYTES);
  const dim = v.getInt32(4, true);
  const ntotal = Number(v.getBigInt64(8, true));
  const metric = v.getInt32(33, true);
  const codes = v.getBigUint64(37, true);
  if (dim <= 0 || ntotal < 0 || metric !== 0 || codes !== BigInt(ntotal) * BigInt(dim)) {
    throw new InputError(`inconsistent faiss IndexFlatIP header (d=${dim}, ntotal=${ntotal}, metric=${metric}, codes=${codes})`, { file });
  }
  return { dim, ntotal, dataOffset: FLAT_IP_HEADER_BYTES };
}

/** A whole IndexFlatIP file in memory (header + vectors), e.g. for faiss-node `fromBuffer`. */
export function encodeFlatIP(vectors: Float32Array, dim: number): Uint8Array {
  const n = vectors.length / dim;
  const out = new Uint8Array(FLAT_IP_HEADER_BYTES + vectors.byteLength);
  out.set(flatIPHeader(dim, n), 0);
  out.set(new Uint8Array(vectors.buffer, vectors.byteOffset, vectors.byteLength), FLAT_IP_HEADER_BYTES);
  return out;
}

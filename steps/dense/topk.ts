/**
 * The result type shared by the dense-search backends, and input validation that must run
 * before any vector reaches faiss (a C++ exception inside faiss-node aborts the process).
 */
import { InputError } from "../../pipeline/engine/errors.ts";

/**
 * Top-k of `nq` queries against one matrix (one shard), row-major: entry j of query q is at
 * `q * k + j`, best first, ordered by (-score, row). When the matrix has fewer than k rows,
 * the tail of each query's list is padded with row -1 and score -Infinity.
 */
export interface TopK {
  readonly nq: number;
  readonly k: number;
  readonly scores: Float32Array;
  /** Row index inside the searched matrix (0-based), -1 for padding. */
  readonly rows: Int32Array;
}

export function emptyTopK(nq: number, k: number): TopK {
  const scores = new Float32Array(nq * k).fill(-Infinity);
  const rows = new Int32Array(nq * k).fill(-1);
  return { nq, k, scores, rows };
}

/** Where a matrix came from, for error messages. */
export interface MatrixSource {
  readonly file?: string;
  readonly field?: string;
}

/** Checks `dim` and that `data` holds whole rows; returns the number of rows. */
export function rowCount(data: Float32Array, dim: number, where: MatrixSource = {}): number {
  if (!Number.isInteger(dim) || dim <= 0) {
    throw new InputError(`vector dimension must be a positive integer, got ${dim}`, { ...where, fix: "pass the embedding width (e.g. 768)" });
  }
  if (data.length % dim !== 0) {
    throw new InputError(`${data.length} values is not a whole number of ${dim}-d vectors`, {
      ...where,
      fix: "check that the embeddings and the declared dimension match",
    });
  }
  return data.length / dim;
}

/** Throws on the first NaN or infinite value (faiss would silently rank it, or worse). */
export function assertFinite(data: Float32Array, dim: number, where: MatrixSource = {}): void {
  for (let i = 0; i < data.length; i++) {
    const v = data[i]!;
    // v - v is NaN exactly when v is NaN or +-Infinity.
    if (v - v !== 0) {
      throw new InputError(`non-finite value ${v} at row ${Math.floor(i / dim)}, column ${i % dim}`, {
        ...where,
        fix: "re-encode the passages/queries; a NaN usually means a broken model or fp16 overflow",
      });
    }
  }
}

export function assertK(k: number): void {
  if (!Number.isInteger(k) || k <= 0) throw new InputError(`k must be a positive integer, got ${k}`, { field: "k", fix: "use e.g. k = 100" });
}

/** Validates a matrix fully (shape and finiteness) and returns its row count. */
export function validateMatrix(data: Float32Array, dim: number, where: MatrixSource = {}): number {
  const n = rowCount(data, dim, where);
  assertFinite(data, dim, where);
  return n;
}

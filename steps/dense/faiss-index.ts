/**
 * Flat inner-product index over float32 embeddings, backed by faiss-node (IndexFlatIP) or by
 * the TypeScript brute force; thin adapter around `brute-force.ts` and faiss-node.
 *
 * - Vectors reach faiss without faiss-node's `add()` (plain JS arrays only, ~75x slower than
 *   Python): we write faiss's own IndexFlatIP file format (`flat-ip-format.ts`) and let faiss
 *   read it (`read-file`, the default) or parse it from memory (`from-buffer`). `add` (chunked)
 *   is kept for comparison in bench/dense/. Float32Array -> number[] uses a preallocated
 *   array and an index loop (measured 3x faster than Array.from, 10x faster than spread).
 * - Everything is validated in TypeScript first (dimension, whole rows, NaN/Infinity, k):
 *   a C++ exception inside faiss-node aborts the whole process.
 * - Both backends persist the same file (faiss `write_index` format), so an index saved by one
 *   loads in the other and in Python (`faiss.read_index`).
 * - Ties: faiss's order among equal scores is unspecified; both backends return each query's
 *   list sorted by (-score, row). faiss (float32 BLAS) and the brute force (float64 sums
 *   rounded to float32) can differ in the last float32 ulp, so near-ties may swap between them.
 * - faiss uses OpenMP threads; set OMP_NUM_THREADS before the process starts to limit them.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InputError } from "../../pipeline/engine/errors.ts";
import { resolveBackend } from "./backend.ts";
import type { BackendChoice, DenseBackend, FaissIndexHandle, FaissModule } from "./backend.ts";
import { bruteForceSearch } from "./brute-force.ts";
import { FLAT_IP_HEADER_BYTES, encodeFlatIP, flatIPHeader, parseFlatIPHeader } from "./flat-ip-format.ts";
import { assertK, emptyTopK, validateMatrix } from "./topk.ts";
import type { MatrixSource, TopK } from "./topk.ts";

export interface SearchOptions {
  /**
   * Queries per faiss call (default 4096, faiss's own query block: every call scans the whole
   * corpus, so smaller batches rescan it; 512 made 1000 queries cost two scans). Progress is
   * reported per batch.
   */
  readonly batchSize?: number;
  readonly onProgress?: (done: number, total?: number) => void;
}

export interface FlatIPIndex {
  readonly backend: DenseBackend;
  /** Why this backend was chosen (for logs and manifests). */
  readonly reason: string;
  readonly dim: number;
  readonly ntotal: number;
  /** Exact top-k by inner product; each query's list ordered by (-score, row). */
  search(queries: Float32Array, k: number, opts?: SearchOptions): TopK;
  /** Writes faiss's IndexFlatIP file format. */
  save(path: string): void;
}

/** How vectors are handed to faiss-node (see the file comment; measured in bench/dense/). */
export type FaissLoadMethod = "read-file" | "from-buffer" | "add";

export interface BuildOptions {
  readonly backend?: BackendChoice;
  readonly faissMethod?: FaissLoadMethod;
  /** Rows per `add()` call for faissMethod "add" (default 10000). */
  readonly addChunkRows?: number;
  /** Directory for the temporary index file of faissMethod "read-file" (default os.tmpdir()). */
  readonly tmpDir?: string;
  /** Names the data in validation errors. */
  readonly source?: MatrixSource;
}

const IO_CHUNK = 1 << 30;
/** faiss 1.7's distance_compute_blas_query_bs: the query block of its exhaustive search. */
export const FAISS_QUERY_BATCH = 4096;

function writeAll(fd: number, bytes: Uint8Array): void {
  for (let off = 0; off < bytes.length; ) {
    off += writeSync(fd, bytes, off, Math.min(IO_CHUNK, bytes.length - off));
  }
}

function readAll(fd: number, into: Uint8Array, position: number, file: string): void {
  for (let off = 0; off < into.length; ) {
    const got = readSync(fd, into, off, Math.min(IO_CHUNK, into.length - off), position + off);
    if (got === 0) throw new InputError(`truncated faiss index: expected ${into.length} vector bytes, found ${off}`, { file, fix: "rebuild the index" });
    off += got;
  }
}

/** Writes vectors [n, dim] as a faiss IndexFlatIP file (streams; no second in-memory copy). */
export function writeFlatIPFile(path: string, vectors: Float32Array, dim: number): void {
  const n = vectors.length / dim;
  const fd = openSync(path, "w");
  try {
    writeAll(fd, flatIPHeader(dim, n));
    writeAll(fd, new Uint8Array(vectors.buffer, vectors.byteOffset, vectors.byteLength));
  } finally {
    closeSync(fd);
  }
}

/** Reads a faiss IndexFlatIP file into a float32 matrix (written by either backend or by faiss). */
export function readFlatIPFile(path: string): { dim: number; ntotal: number; vectors: Float32Array } {
  const fd = openSync(path, "r");
  try {
    const head = new Uint8Array(FLAT_IP_HEADER_BYTES);
    readAll(fd, head, 0, path);
    const h = parseFlatIPHeader(head, path);
    const vectors = new Float32Array(h.ntotal * h.dim);
    readAll(fd, new Uint8Array(vectors.buffer), h.dataOffset, path);
    return { dim: h.dim, ntotal: h.ntotal, vectors };
  } finally {
    closeSync(fd);
  }
}

/** Sorts each query's hits by (-score, row) and pads to k. */
function fromFaissResult(nq: number, kEff: number, k: number, distances: number[], labels: number[], out: TopK, q0: number): void {
  const order = Array.from({ length: kEff }, (_, j) => j);
  for (let q = 0; q < nq; q++) {
    const b = q * kEff;
    order.sort((x, y) => distances[b + y]! - distances[b + x]! || labels[b + x]! - labels[b + y]!);
    for (let j = 0; j < kEff; j++) {
      out.scores[(q0 + q) * k + j] = distances[b + order[j]!]!;
      out.rows[(q0 + q) * k + j] = labels[b + order[j]!]!;
    }
  }
}

function toPlainArray(x: Float32Array): number[] {
  const a = new Array<number>(x.length);
  for (let i = 0; i < x.length; i++) a[i] = x[i]!;
  return a;
}

class FaissFlatIP implements FlatIPIndex {
  readonly backend = "faiss";
  readonly dim: number;
  readonly ntotal: number;
  constructor(
    private readonly handle: FaissIndexHandle,
    readonly reason: string,
  ) {
    this.dim = handle.getDimension();
    this.ntotal = handle.ntotal();
  }
  search(queries: Float32Array, k: number, opts: SearchOptions = {}): TopK {
    assertK(k);
    const nq = validateMatrix(queries, this.dim, { field: "queries" });
    const out = emptyTopK(nq, k);
    const kEff = Math.min(k, this.ntotal);
    if (kEff === 0) return out;
    const batch = Math.max(1, opts.batchSize ?? FAISS_QUERY_BATCH);
    for (let q0 = 0; q0 < nq; q0 += batch) {
      const q1 = Math.min(nq, q0 + batch);
      const r = this.handle.search(toPlainArray(queries.subarray(q0 * this.dim, q1 * this.dim)), kEff);
      fromFaissResult(q1 - q0, kEff, k, r.distances, r.labels, out, q0);
      opts.onProgress?.(q1, nq);
    }
    return out;
  }
  save(path: string): void {
    this.handle.write(path);
  }
}

class BruteForceFlatIP implements FlatIPIndex {
  readonly backend = "brute-force";
  readonly ntotal: number;
  constructor(
    private readonly vectors: Float32Array,
    readonly dim: number,
    readonly reason: string,
  ) {
    this.ntotal = vectors.length / dim;
  }
  search(queries: Float32Array, k: number, opts: SearchOptions = {}): TopK {
    validateMatrix(queries, this.dim, { field: "queries" });
    return bruteForceSearch(this.vectors, queries, this.dim, k, {
      trusted: true,
      ...(opts.onProgress !== undefined ? { onProgress: opts.onProgress } : {}),
    });
  }
  save(path: string): void {
    writeFlatIPFile(path, this.vectors, this.dim);
  }
}

function faissFromVectors(faiss: FaissModule, vectors: Float32Array, dim: number, opts: BuildOptions): FaissIndexHandle {
  const method = opts.faissMethod ?? "read-file";
  switch (method) {
    case "read-file": {
      const dir = mkdtempSync(join(opts.tmpDir ?? tmpdir(), "cspipe-faiss-"));
      try {
        const file = join(dir, "index.faiss");
        writeFlatIPFile(file, vectors, dim);
        return faiss.IndexFlatIP.read(file);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    case "from-buffer": {
      const bytes = encodeFlatIP(vectors, dim);
      return faiss.IndexFlatIP.fromBuffer(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    }
    case "add": {
      const handle = new faiss.IndexFlatIP(dim);
      const rows = Math.max(1, opts.addChunkRows ?? 10000);
      for (let r0 = 0; r0 < vectors.length / dim; r0 += rows) {
        handle.add(toPlainArray(vectors.subarray(r0 * dim, (r0 + rows) * dim)));
      }
      return handle;
    }
    default:
      throw new Error(`unknown faissMethod ${JSON.stringify(method)}; use read-file, from-buffer or add`);
  }
}

/**
 * Builds an exact inner-product index over `vectors` [n, dim]. The brute-force backend keeps a
 * reference to `vectors` (do not mutate it afterwards); faiss copies them.
 */
export function buildFlatIP(vectors: Float32Array, dim: number, opts: BuildOptions = {}): FlatIPIndex {
  validateMatrix(vectors, dim, opts.source ?? { field: "vectors" });
  const resolved = resolveBackend(opts.backend ?? "auto");
  if (resolved.faiss !== undefined) return new FaissFlatIP(faissFromVectors(resolved.faiss, vectors, dim, opts), resolved.reason);
  return new BruteForceFlatIP(vectors, dim, resolved.reason);
}

/** Loads an index file written by `save` / `writeFlatIPFile` / faiss (IndexFlatIP only). */
export function loadFlatIP(path: string, opts: { readonly backend?: BackendChoice } = {}): FlatIPIndex {
  const resolved = resolveBackend(opts.backend ?? "auto");
  if (resolved.faiss !== undefined) {
    // Check the header in TypeScript first: faiss would accept other index types.
    const fd = openSync(path, "r");
    try {
      const head = new Uint8Array(FLAT_IP_HEADER_BYTES);
      readAll(fd, head, 0, path);
      parseFlatIPHeader(head, path);
    } finally {
      closeSync(fd);
    }
    return new FaissFlatIP(resolved.faiss.IndexFlatIP.read(path), resolved.reason);
  }
  const { dim, vectors } = readFlatIPFile(path);
  return new BruteForceFlatIP(vectors, dim, resolved.reason);
}

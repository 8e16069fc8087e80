/**
 * Exact rescoring of flat inner-product candidates: the step that keeps the search backend out
 * of search-dense's cache key (see steps.ts). Each query's candidate rows are scored with the
 * brute force's own dot product (float64 sums of float32 products in four lanes, rounded to
 * float32: `dotF32` below is that loop, and a test holds the two bit-identical) and ordered by
 * (-score, row), so the result is the brute force's over the same candidates.
 *
 * Candidates are visited by row, not by query: every distinct row is read from the index file
 * once, whichever queries ask for it, and rows close together in the file are read in one call
 * (1000 queries x 116 candidates used to cost 116,000 reads of one row each; bench/dense).
 */
import { closeSync, openSync, readSync } from "node:fs";
import { InputError } from "../../pipeline/engine/errors.ts";
import { FLAT_IP_HEADER_BYTES, parseFlatIPHeader } from "./flat-ip-format.ts";
import { emptyTopK, type TopK } from "./topk.ts";
import { dotF32 } from "./brute-force.ts";

/** The brute force's dot product (one definition, so rescoring equals it bit for bit). */
export { dotF32 };

/**
 * Reads the vectors of `rows` (ascending, distinct) and calls `visit(i, data, offset)` for each
 * rows[i] in order, its vector at data[offset .. offset + dim).
 */
export type RowReader = (rows: Int32Array, visit: (i: number, data: Float32Array, offset: number) => void) => void;

/** Pure core: rescored candidates of `topk` (same depth; padding stays padding). */
export function rescoreCandidates(topk: TopK, queries: Float32Array, dim: number, read: RowReader): TopK {
  const { nq, k } = topk;
  const out = emptyTopK(nq, k);
  // the distinct candidate rows, ascending, and for each the candidate slots (q * k + j) that name it
  const valid: number[] = [];
  for (let p = 0; p < nq * k; p++) if (topk.rows[p]! >= 0) valid.push(p);
  if (valid.length === 0) return out;
  const all = Int32Array.from(valid, (p) => topk.rows[p]!).sort();
  let nu = 0;
  for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[i - 1]) all[nu++] = all[i]!;
  const uniq = all.subarray(0, nu);
  const indexOf = (row: number): number => {
    let lo = 0;
    let hi = nu - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (uniq[mid]! < row) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const start = new Int32Array(nu + 1);
  const slotRow = new Int32Array(valid.length);
  valid.forEach((p, i) => {
    slotRow[i] = indexOf(topk.rows[p]!);
    start[slotRow[i]! + 1]!++;
  });
  for (let u = 0; u < nu; u++) start[u + 1]! += start[u]!;
  const fill = start.slice(0, nu);
  const slots = new Int32Array(valid.length);
  valid.forEach((p, i) => (slots[fill[slotRow[i]!]!++] = p));

  const scores = new Float32Array(nq * k);
  read(uniq, (u, data, offset) => {
    for (let s = start[u]!; s < start[u + 1]!; s++) {
      const p = slots[s]!;
      scores[p] = dotF32(data, offset, queries, Math.floor(p / k) * dim, dim);
    }
  });

  const order: number[] = [];
  for (let q = 0; q < nq; q++) {
    order.length = 0;
    for (let j = 0; j < k; j++) if (topk.rows[q * k + j]! >= 0) order.push(q * k + j);
    order.sort((x, y) => scores[y]! - scores[x]! || topk.rows[x]! - topk.rows[y]!);
    order.forEach((p, j) => {
      out.rows[q * k + j] = topk.rows[p]!;
      out.scores[q * k + j] = scores[p]!;
    });
  }
  return out;
}

export interface FileReadOptions {
  /** Rows at most this far apart are read in one call (default 8). */
  readonly gapRows?: number;
  /** Bytes per read at most (default 8 MiB; at least one row). */
  readonly chunkBytes?: number;
}

/** Reads candidate rows from a faiss IndexFlatIP file (written by either backend or by faiss). */
export function indexFileRowReader(indexFile: string, dim: number, opts: FileReadOptions = {}): RowReader {
  return (rows, visit) => {
    const fd = openSync(indexFile, "r");
    try {
      const head = new Uint8Array(FLAT_IP_HEADER_BYTES);
      readSync(fd, head, 0, FLAT_IP_HEADER_BYTES, 0);
      const h = parseFlatIPHeader(head, indexFile);
      if (h.dim !== dim) throw new InputError(`index dimension ${h.dim}, queries ${dim}`, { file: indexFile, fix: "encode queries and passages with the same model" });
      const rowBytes = dim * 4;
      const gap = Math.max(1, opts.gapRows ?? 8);
      const maxRows = Math.max(1, Math.floor((opts.chunkBytes ?? 8 << 20) / rowBytes));
      const buf = new Float32Array(Math.min(maxRows, rows[rows.length - 1]! - rows[0]! + 1) * dim);
      const bytes = new Uint8Array(buf.buffer);
      for (let i = 0; i < rows.length; ) {
        const first = rows[i]!;
        let j = i + 1;
        while (j < rows.length && rows[j]! - rows[j - 1]! <= gap && rows[j]! - first < maxRows) j++;
        const last = rows[j - 1]!;
        if (last >= h.ntotal) throw new InputError(`candidate row ${last} is past the end of the index (${h.ntotal} vectors)`, { file: indexFile, fix: "rebuild the index" });
        const want = (last - first + 1) * rowBytes;
        for (let off = 0; off < want; ) {
          const got = readSync(fd, bytes, off, want - off, h.dataOffset + first * rowBytes + off);
          if (got === 0) throw new InputError(`truncated index: rows ${first}..${last} end past the file`, { file: indexFile, fix: "rebuild the index" });
          off += got;
        }
        for (; i < j; i++) visit(i, buf, (rows[i]! - first) * dim);
      }
    } finally {
      closeSync(fd);
    }
  };
}

/** search-dense's rescoring of one shard's candidates, rows read from its index file. */
export function rescoreFromIndexFile(topk: TopK, queries: Float32Array, dim: number, indexFile: string, opts: FileReadOptions = {}): TopK {
  return rescoreCandidates(topk, queries, dim, indexFileRowReader(indexFile, dim, opts));
}

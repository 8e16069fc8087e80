/**
 * Splitting N rows into S contiguous shards of near-equal size (pure), so each shard can be
 * one cached encoding step: the first N % S shards get one row more than the rest.
 */
import { InputError } from "../../../pipeline/engine/errors.ts";

export interface RowRange {
  /** First row (inclusive). */
  readonly start: number;
  /** One past the last row (exclusive). */
  readonly end: number;
}

export function splitRows(n: number, shards: number): RowRange[] {
  if (!Number.isSafeInteger(n) || n < 0) throw new InputError(`row count must be a non-negative integer, got ${n}`, { field: "rows" });
  if (!Number.isSafeInteger(shards) || shards <= 0) throw new InputError(`shard count must be a positive integer, got ${shards}`, { field: "shards", fix: "use e.g. shards = 4" });
  const base = Math.floor(n / shards);
  const extra = n % shards;
  const out: RowRange[] = [];
  let start = 0;
  for (let s = 0; s < shards; s++) {
    const end = start + base + (s < extra ? 1 : 0);
    out.push({ start, end });
    start = end;
  }
  return out;
}

/** Splits [start, end) into consecutive batches of at most `size` rows. */
export function batchRanges(range: RowRange, size: number): RowRange[] {
  if (!Number.isSafeInteger(size) || size <= 0) throw new InputError(`batch size must be a positive integer, got ${size}`, { field: "batchSize" });
  const out: RowRange[] = [];
  for (let s = range.start; s < range.end; s += size) out.push({ start: s, end: Math.min(range.end, s + size) });
  return out;
}

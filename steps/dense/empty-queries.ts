/**
 * Queries with nothing to search for. X_t \ q_t of a first turn has no history, so its
 * token row is only `[CLS] [SEP]`: BM25 returns no hits for an empty query, and dense
 * search does the same instead of ranking the collection by the embedding of two special
 * tokens. Pure: rows of token ids in, row indexes out.
 */
import type { TokenMatrix } from "../encoding/onnx/batch.ts";

/** Indexes (ascending) of the rows whose every token is one of `special` (pad, [CLS], [SEP], ...). */
export function emptyQueryRows(m: Pick<TokenMatrix, "rows" | "seq" | "ids">, special: ReadonlySet<number>): number[] {
  const out: number[] = [];
  for (let r = 0; r < m.rows; r++) {
    let empty = true;
    for (let c = r * m.seq, end = c + m.seq; c < end; c++) {
      if (!special.has(m.ids[c]!)) {
        empty = false;
        break;
      }
    }
    if (empty) out.push(r);
  }
  return out;
}

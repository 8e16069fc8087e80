/**
 * The block-max MaxScore scorer's (./block-max.ts) query clause and its pruning counters, apart
 * so that the scorer's file holds the algorithm only.
 */
/** A query clause: term index and weight (fround(boost * idf)). */
export interface WeightedClause {
  readonly term: number;
  readonly weight: number;
}

/** Counters for benchmarks and tests (cumulative over queries). */
export interface PruningStats {
  /** Documents matched by an essential clause (candidates). */
  candidates: number;
  /** Single-document lookups of a candidate in a clause's postings. */
  lookups: number;
  /** Documents fully scored and offered to the heap. */
  scored: number;
  /** Postings blocks decoded whole (lookups read single postings). */
  blocksDecoded: number;
  /** Candidate lookups answered "absent" by a term's document bitset (./term-bitsets.ts), not counted in `lookups`. */
  bitsetMisses: number;
  /** Bytes of term bitsets in the searcher's pool (shared with the other threads of a parallel search). */
  bitsetBytes: number;
  /** Blocks of essential clauses not decoded: no new candidate could reach θ there. */
  blocksSkipped: number;
  /** Outer windows skipped whole (every clause non-essential there). */
  windowsSkipped: number;
  /** Outer windows scored. */
  windowsScored: number;
  /** Queries scored exhaustively because their sums depend on the order (./sum-order.ts). */
  orderFallbacks: number;
  /** Postings of essential clauses not made candidates because the clauses' bitsets rule their document out (./window-mask.ts). */
  masked: number;
  /** Postings of essential clauses that made no new candidate: the document could not reach θ with them (see "New candidates" in ./block-max.ts). */
  cut: number;
  /** Postings of essential clauses that made no new candidate because the later clauses' bitsets bound their document below θ (./bitset-cut.ts). */
  bitsetCut: number;
}

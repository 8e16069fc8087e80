/**
 * Exact top-k by block-max MaxScore over windows of document numbers (pure): the per-query driver.
 * Its parts: the outer windows and their partition of the clauses (./window-partition.ts), the
 * essential clauses' scan of an inner window (./window-scan.ts), the completion of its candidates
 * (./candidate-completion.ts), per-clause cursors and lookups (./cursors.ts), the heap (./topk.ts).
 *
 * Outer windows: every clause's largest possible score inside the window is the largest impact
 * score of its blocks that overlap it (./blocks.ts). Once the heap holds k hits with threshold θ
 * (the k-th score), the clauses whose window maxima sum below θ are *non-essential* there: a
 * document only they match cannot enter the top k. A window where every clause is non-essential is
 * skipped without decoding anything. Windows end where an essential clause's block ends, so the
 * maxima stay tight (the partitioning of Lucene 9's MaxScoreBulkScorer).
 *
 * Inner windows (at most 4096 documents): the essential clauses are scored term at a time into a
 * window buffer (a bitset of candidates plus each candidate's partial score), rarest clause first,
 * skipping documents that the clauses' document bitsets rule out (./window-mask.ts).
 * A block of a more frequent essential clause whose maximum plus the maxima of the clauses still to
 * come is below θ cannot make a new candidate: it is not decoded, and its range is remembered (a
 * gap) so that the candidates the other clauses find there look the clause up. Likewise a single
 * posting that is not yet a candidate's, and whose score plus the maxima of the clauses still to
 * come is below θ, makes no candidate; nor does one whose score plus the maxima of those of them
 * its document holds, told by their document bitsets, is below θ (./bitset-cut.ts; see "New
 * candidates" below). Then the candidates are completed one lookup clause at a time (non-essential
 * clauses and essential ones with gaps, largest window maximum first): a candidate is dropped as
 * soon as its partial score plus the clause's block maximum at it plus the window maxima of the
 * clauses after it cannot reach θ, else the clause is looked up. Each clause's lookup pointer only
 * moves forward and remembers the next posting after its last lookup, so a candidate it already
 * passed over costs no search.
 *
 * Exactness: every clause score is computed exactly as the exhaustive scorer does (float32), and
 * the partial sums in double are exact, so the order in which a document meets its clauses does not
 * change its total (./sum-order.ts checks that per query; `run` refuses a query where it could and
 * the caller scores it exhaustively); the total is rounded to float as there. A document is only
 * dropped when an upper bound of its score is strictly below θ: a tie with θ is never dropped,
 * because it may still win on the passage id. Bounds are sums of float32 maxima in double, inflated
 * by a relative 2^-32 (far above the double rounding of a few hundred terms, far below anything
 * that changes what is pruned). fround is monotone: fround(bound) < θ => fround(score) < θ.
 *
 * New candidates: call a document's first clause the first essential clause, in scan order, that
 * holds it. If that posting is scanned, the document becomes a candidate and each later posting of
 * it adds to its partial score. If it is not, the document's score is below θ whatever follows: it
 * was masked (./window-mask.ts), or it lies in a skipped block, or the posting was cut, and in the
 * last two cases the block maximum or the posting's score plus the maxima of the clauses after it
 * (all the document can still hold; with bitsets, of those it holds) is below θ. So a posting that
 * is not a candidate's and fails its clause's test may be left out. If a later clause then makes
 * the document a candidate, its sum lacks that score, but the true score is below θ already and θ
 * only rises: the heap turns it away. The test reads the window's candidate bit, set iff an earlier
 * clause scanned the document.
 */
import { Cursors, END } from "./cursors.ts";
import type { Bm25Index } from "./index.ts";
import type { BitsetPool } from "./term-bitsets.ts";
import type { TopK } from "./topk.ts";
import { maxNormByte, sumsAreOrderFree } from "./sum-order.ts";
import { WindowPartition } from "./window-partition.ts";
import { WINDOW, WindowScan } from "./window-scan.ts";
import { CandidateCompletion } from "./candidate-completion.ts";
import type { PruningStats, WeightedClause } from "./block-max-types.ts";

export type { PruningStats, WeightedClause } from "./block-max-types.ts";

/** Per-thread scratch for block-max MaxScore over one index (reused across queries). */
export class BlockMaxScorer {
  private readonly counters = { orderFallbacks: 0, candidates: 0, scored: 0, blocksSkipped: 0, windowsSkipped: 0, windowsScored: 0, masked: 0, cut: 0, bitsetCut: 0 };
  private readonly c: Cursors;
  private cap = 0;
  /** The outer window's clauses: window maxima, essential or not, scan order (./window-partition.ts). */
  private readonly part = new WindowPartition();
  /** The inner window's scan of the essential clauses (./window-scan.ts). */
  private readonly scan: WindowScan;
  /** The inner window's candidates completed by lookups (./candidate-completion.ts). */
  private readonly completion: CandidateCompletion;
  /** This query's outer windows scored and candidates found (they widen the windows). */
  private windows = 0;
  private candidates = 0;

  /** The smallest norm factor of any matching document (cache at the largest norm byte). */
  private readonly minNormInverse: number;

  constructor(index: Bm25Index, normCache: Float32Array, bitsets?: BitsetPool | number) {
    this.c = new Cursors(index, normCache, bitsets);
    this.scan = new WindowScan(this.c, this.counters);
    this.completion = new CandidateCompletion(this.c, this.counters);
    this.minNormInverse = normCache[maxNormByte(index.norms)]!;
  }

  get stats(): PruningStats {
    const c = this.c;
    return { ...this.counters, lookups: c.lookups, blocksDecoded: c.blocksDecoded, bitsetMisses: c.bitsetMisses, bitsetBytes: c.bitsetBytes };
  }

  private ensure(m: number): void {
    if (m <= this.cap) return;
    const n = Math.max(m, this.cap * 2, 8);
    this.part.ensure(n);
    this.scan.ensure(n);
    this.completion.ensure(n);
    this.cap = n;
  }

  /**
   * Offers the exact top k of the clauses to `heap`; false (nothing offered) when the clause scores
   * of a document could sum differently in another order (./sum-order.ts): the caller scores
   * exhaustively then.
   */
  run(clauses: readonly WeightedClause[], heap: TopK): boolean {
    const m = clauses.length;
    if (m === 0) return true;
    this.ensure(m);
    const c = this.c;
    c.reset(clauses);
    if (!sumsAreOrderFree(c.weight, m, this.minNormInverse)) {
      this.counters.orderFallbacks++;
      return false;
    }
    const part = this.part;
    this.scan.startQuery(m);
    part.reset(m);
    let lo = END;
    for (let i = 0; i < m; i++) {
      c.advance(i, 0);
      if (c.cur[i]! < lo) lo = c.cur[i]!;
    }
    this.windows = 0;
    this.candidates = 0;
    let minWindow = 1;
    while ((lo = part.nextPossible(c, lo, m)) < END) {
      // Few candidates per window: the block maxima cost more than they save; widen (as Lucene does).
      minWindow = this.candidates < this.windows * 32 * m ? Math.min(minWindow * 2, WINDOW) : 1;
      const hi = part.window(c, lo, m, minWindow, heap.threshold);
      if (part.ne === m) {
        this.counters.windowsSkipped++;
        lo = hi;
        continue;
      }
      this.counters.windowsScored++;
      this.windows++;
      lo = this.scoreWindow(lo, hi, m, heap);
    }
    return true;
  }

  /** Scores the outer window [lo, hi) inner window by inner window; where the next window starts. */
  private scoreWindow(lo: number, hi: number, m: number, heap: TopK): number {
    const c = this.c;
    const { ord, ne } = this.part;
    for (let j = ne; j < m; j++) c.advance(ord[j]!, lo);
    for (;;) {
      let innerLo = END;
      for (let j = ne; j < m; j++) innerLo = Math.min(innerLo, c.cur[ord[j]!]!);
      if (innerLo >= hi) return hi;
      const innerHi = Math.min(hi, innerLo + WINDOW);
      this.candidates += this.scoreInnerWindow(innerLo, innerHi, m, heap);
      if (innerHi >= hi || heap.threshold >= this.part.nextTheta) return innerHi; // a better partition is possible
    }
  }

  /** Scores the essential clauses over [lo, hi) into the window buffers, then completes the candidates; their number. */
  private scoreInnerWindow(lo: number, hi: number, m: number, heap: TopK): number {
    const { scan, counters } = this;
    scan.scan(this.part, lo, hi, m, heap.threshold); // θ fixed while the essential clauses are scanned (offers come after)
    counters.masked += scan.nMasked;
    counters.cut += scan.nCut;
    counters.bitsetCut += scan.nBitsetCut;
    const found = this.completion.complete(this.part, scan, lo, m, heap);
    scan.countUses(found + scan.nMasked + scan.nCut + scan.nBitsetCut);
    return found;
  }
}

/**
 * Exact top-k by block-max MaxScore over windows of document numbers (pure).
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
import { Cursors, END, INFLATE, TABLE_TF } from "./cursors.ts";
import type { Bm25Index } from "./index.ts";
import type { BitsetPool } from "./term-bitsets.ts";
import type { TopK } from "./topk.ts";
import { maxNormByte, sumsAreOrderFree } from "./sum-order.ts";
import { BitsetCut } from "./bitset-cut.ts";
import { WindowMask } from "./window-mask.ts";
import type { PruningStats, WeightedClause } from "./block-max-types.ts";

export type { PruningStats, WeightedClause } from "./block-max-types.ts";

const f = Math.fround;
/** Documents per inner window (bitset + per-clause score buffer). */
const WINDOW = 1 << 12;
const WORDS = WINDOW >>> 5;

/** Per-thread scratch for block-max MaxScore over one index (reused across queries). */
export class BlockMaxScorer {
  private readonly counters = { orderFallbacks: 0, candidates: 0, scored: 0, blocksSkipped: 0, windowsSkipped: 0, windowsScored: 0, masked: 0, cut: 0, bitsetCut: 0 };
  private readonly c: Cursors;
  private cap = 0;
  private wmax = new Float64Array(0);
  private essential = new Uint8Array(0);
  /** Clauses by ascending window max (non-essential first), and the essential ones by ascending df. */
  private ord = new Int32Array(0);
  private eOrd = new Int32Array(0);
  /** Per essential rank q: the window maxima of the essential clauses after it plus all non-essential ones. */
  private rest = new Float64Array(0);
  private blockAtStart = new Float64Array(0);
  /** Per clause, document ranges of the inner window whose postings were not all read (pairs). */
  private gaps: Int32Array[] = [];
  private gapCount = new Int32Array(0);
  /** Lookup clauses of the window (by descending window max) and the sum of the maxima after each. */
  private lk = new Int32Array(0);
  private restAfter = new Float64Array(0);
  /** The window's live candidates: offset in the window and partial score. */
  private readonly candO = new Int32Array(WINDOW);
  private readonly candP = new Float64Array(WINDOW);
  private readonly windowAcc = new Float64Array(WINDOW);
  private readonly windowBits = new Int32Array(WORDS);
  /** Documents of the inner window that can still reach θ, by the clauses' bitsets (./window-mask.ts). */
  private readonly mask = new WindowMask(WORDS);
  /** Cuts new candidates by the later clauses' bitsets (./bitset-cut.ts). */
  private readonly bitsetCut = new BitsetCut();
  private nextTheta = Infinity;
  private ne = 0;

  /** The smallest norm factor of any matching document (cache at the largest norm byte). */
  private readonly minNormInverse: number;

  constructor(index: Bm25Index, normCache: Float32Array, bitsets?: BitsetPool | number) {
    this.c = new Cursors(index, normCache, bitsets);
    this.minNormInverse = normCache[maxNormByte(index.norms)]!;
  }

  get stats(): PruningStats {
    const c = this.c;
    return { ...this.counters, lookups: c.lookups, blocksDecoded: c.blocksDecoded, bitsetMisses: c.bitsetMisses, bitsetBytes: c.bitsetBytes };
  }

  private ensure(m: number): void {
    if (m <= this.cap) return;
    const n = Math.max(m, this.cap * 2, 8);
    this.wmax = new Float64Array(n);
    this.essential = new Uint8Array(n);
    this.ord = new Int32Array(n);
    this.eOrd = new Int32Array(n);
    this.rest = new Float64Array(n);
    this.blockAtStart = new Float64Array(n);
    this.gapCount = new Int32Array(n);
    this.lk = new Int32Array(n);
    this.restAfter = new Float64Array(n);
    this.mask.ensure(n);
    this.bitsetCut.ensure(n);
    while (this.gaps.length < n) this.gaps.push(new Int32Array(64));
    this.cap = n;
  }

  /** The first document >= lo that any clause may still hold (a lower bound), END when all are exhausted. */
  private nextPossible(lo: number, m: number): number {
    const c = this.c;
    const last = c.index.blockLastDoc;
    let next = END;
    for (let i = 0; i < m; i++) {
      const d = c.cur[i]!;
      if (d >= lo) {
        next = Math.min(next, d);
        continue;
      }
      const b = c.shallow(i, lo);
      if (b < c.blkEnd[i]!) next = Math.min(next, b > c.firstBlk[i]! ? Math.max(lo, last[b - 1]! + 1) : lo);
    }
    return next;
  }

  /** Window end: where the first block of an essential clause ends (at least lo + minWindow). */
  private windowEnd(lo: number, m: number, minWindow: number): number {
    const c = this.c;
    const last = c.index.blockLastDoc;
    let hi = END;
    for (let j = this.ne; j < m; j++) {
      const i = this.ord[j]!;
      const b = c.shallow(i, Math.max(c.cur[i]!, lo));
      if (b < c.blkEnd[i]!) hi = Math.min(hi, last[b]! + 1);
    }
    return Math.max(hi, Math.min(END, lo + minWindow));
  }

  /**
   * Orders the clauses by window max (frequent terms first on ties), marks the non-essential prefix
   * for threshold theta and orders the essential ones rarest first; false when every clause is
   * non-essential (the window can be skipped).
   */
  private partition(m: number, theta: number): boolean {
    const { ord, eOrd, wmax, essential, rest } = this;
    const df = this.c.df;
    for (let a = 0; a < m; a++) ord[a] = a;
    for (let a = 1; a < m; a++) {
      const v = ord[a]!;
      let b = a - 1;
      while (b >= 0 && (wmax[ord[b]!]! > wmax[v]! || (wmax[ord[b]!] === wmax[v] && df[ord[b]!]! < df[v]!))) {
        ord[b + 1] = ord[b]!;
        b--;
      }
      ord[b + 1] = v;
    }
    let sum = 0;
    let ne = 0;
    this.nextTheta = Infinity;
    for (let j = 0; j < m; j++) {
      const i = ord[j]!;
      const s = sum + wmax[i]!;
      const bound = f(s * INFLATE);
      if (ne === j && bound < theta) {
        sum = s;
        essential[i] = 0;
        ne++;
      } else {
        essential[i] = 1;
        if (bound < this.nextTheta) this.nextTheta = bound;
      }
    }
    this.ne = ne;
    const ess = m - ne;
    for (let q = 0; q < ess; q++) eOrd[q] = ord[ne + q]!;
    for (let a = 1; a < ess; a++) {
      const v = eOrd[a]!;
      let b = a - 1;
      while (b >= 0 && (df[eOrd[b]!]! > df[v]! || (df[eOrd[b]!] === df[v] && eOrd[b]! > v))) {
        eOrd[b + 1] = eOrd[b]!;
        b--;
      }
      eOrd[b + 1] = v;
    }
    let after = sum; // the non-essential maxima
    for (let q = ess - 1; q >= 0; q--) {
      rest[q] = after;
      after += wmax[eOrd[q]!]!;
    }
    return ne < m;
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
    const { wmax, ord, essential } = this;
    this.mask.startQuery(c, m);
    for (let i = 0; i < m; i++) {
      ord[i] = i;
      essential[i] = 1;
    }
    this.ne = 0;
    let lo = END;
    for (let i = 0; i < m; i++) {
      c.advance(i, 0);
      if (c.cur[i]! < lo) lo = c.cur[i]!;
    }
    let windows = 0;
    let candidates = 0;
    let minWindow = 1;
    outer: while ((lo = this.nextPossible(lo, m)) < END) {
      // Few candidates per window: the block maxima cost more than they save; widen (as Lucene does).
      minWindow = candidates < windows * 32 * m ? Math.min(minWindow * 2, WINDOW) : 1;
      let hi = this.windowEnd(lo, m, minWindow);
      for (;;) {
        const theta = heap.threshold;
        for (let i = 0; i < m; i++) wmax[i] = c.windowMax(i, lo, hi);
        if (!this.partition(m, theta)) {
          this.counters.windowsSkipped++;
          lo = hi;
          continue outer;
        }
        const narrower = this.windowEnd(lo, m, minWindow);
        if (narrower >= hi) break;
        hi = narrower;
      }
      this.counters.windowsScored++;
      windows++;
      for (let j = this.ne; j < m; j++) c.advance(ord[j]!, lo);
      let next = lo;
      for (;;) {
        let innerLo = END;
        for (let j = this.ne; j < m; j++) innerLo = Math.min(innerLo, c.cur[ord[j]!]!);
        if (innerLo >= hi) {
          next = hi;
          break;
        }
        const innerHi = Math.min(hi, innerLo + WINDOW);
        candidates += this.scoreInnerWindow(innerLo, innerHi, m, heap);
        next = innerHi;
        if (innerHi >= hi || heap.threshold >= this.nextTheta) break; // a better partition is possible
      }
      lo = next;
    }
    return true;
  }

  private addGap(i: number, start: number, end: number): void {
    let g = this.gaps[i]!;
    const n = this.gapCount[i]!;
    if (n > 0 && g[2 * n - 1]! + 1 >= start) {
      g[2 * n - 1] = end;
      return;
    }
    if (2 * n + 2 > g.length) {
      const bigger = new Int32Array(g.length * 2);
      bigger.set(g);
      this.gaps[i] = g = bigger;
    }
    g[2 * n] = start;
    g[2 * n + 1] = end;
    this.gapCount[i] = n + 1;
  }

  /** Scores the essential clauses over [lo, hi) into the window buffers, then completes the candidates. */
  private scoreInnerWindow(lo: number, hi: number, m: number, heap: TopK): number {
    const c = this.c;
    const x = c.index;
    const last = x.blockLastDoc;
    const norms = x.norms;
    const cache = c.normCache;
    const table = c.scoreTable;
    const { cur, weight } = c;
    const { windowAcc, windowBits, eOrd, rest, gapCount, blockAtStart } = this;
    const ess = m - this.ne;
    for (let i = 0; i < m; i++) gapCount[i] = 0;
    const theta = heap.threshold; // fixed while the essential clauses are scanned (offers come after)
    const masked = this.mask.build(c, this.wmax, this.ord, this.ne, m, lo, hi, theta);
    const mask = this.mask.words;
    const maskBase = this.mask.base;
    let dropped = 0;
    let cut = 0;
    let bitsetCut = 0;
    const bc = this.bitsetCut;
    const withSets = bc.window(c, this.wmax, this.ord, eOrd, this.ne, m);
    for (let q = 0; q < ess; q++) {
      const i = eOrd[q]!;
      const w = weight[i]!;
      const tableBase = (i * TABLE_TF - 1) * 256;
      // A posting that would make a new candidate whose score here plus the maxima of the clauses
      // still to come is below θ makes none (see "New candidates" above).
      const bound = rest[q]!;
      const cuts = f(bound * INFLATE) < theta;
      const setsCut = withSets && bc.rank(q, theta);
      blockAtStart[i] = c.blk[i]!;
      c.startLookups(i, c.blk[i]!);
      while (cur[i]! < hi) {
        const b = c.blk[i]!;
        const rangeEnd = Math.min(hi - 1, last[b]!);
        if (f((c.blockMax(i, b) + bound) * INFLATE) < theta) {
          // No new candidate can come from this block: the candidates the other clauses find in its
          // range look the clause up when they are completed (the range is remembered as a gap).
          this.counters.blocksSkipped++;
          this.addGap(i, cur[i]!, rangeEnd);
          c.advance(i, rangeEnd + 1); // past the range, by the block headers only
          continue;
        }
        if (c.opened[i] !== b) c.open(i, b);
        if (c.decoded[i] !== b) {
          const p = c.pos[i]!;
          c.decode(i);
          c.pos[i] = p;
        }
        const docs = c.docs[i]!;
        const tfs = c.tfs[i]!;
        const n = c.cnt[i]!;
        let p = c.pos[i]!;
        let d = cur[i]!;
        while (p < n) {
          d = docs[p]!;
          if (d >= hi) break;
          if (masked && (mask[(d >>> 5) - maskBase]! & (1 << (d & 31))) === 0) {
            p++;
            dropped++;
            continue;
          }
          const tf = tfs[p]!;
          const norm = norms[d]!;
          const s = tf <= TABLE_TF ? table[tableBase + (tf << 8) + norm]! : f(w - f(w / f(1 + f(tf * cache[norm]!))));
          const o = d - lo;
          const bit = 1 << (o & 31);
          const word = windowBits[o >>> 5]!;
          if ((word & bit) === 0) {
            if (cuts && f((s + bound) * INFLATE) < theta) {
              p++;
              cut++;
              continue;
            }
            if (setsCut && !bc.mayReach(d, s, theta)) {
              p++;
              bitsetCut++;
              continue;
            }
          }
          windowAcc[o]! += s;
          windowBits[o >>> 5] = word | bit;
          p++;
        }
        if (p < n) {
          c.pos[i] = p;
          cur[i] = d;
          break;
        }
        // block exhausted: on to the next one
        c.blk[i] = b + 1;
        if (b + 1 === c.blkEnd[i]) {
          cur[i] = END;
          break;
        }
        c.open(i, b + 1);
        c.decode(i);
        cur[i] = c.docs[i]![0]!;
      }
    }
    this.counters.masked += dropped;
    this.counters.cut += cut;
    this.counters.bitsetCut += bitsetCut;
    const found = this.completeCandidates(lo, m, heap);
    this.mask.countUses(c, found + dropped + cut + bitsetCut);
    return found;
  }

  /**
   * Completes the window's candidates clause by clause. The *lookup clauses* are the non-essential
   * ones and the essential ones with skipped ranges (gaps), by descending window max. A candidate is
   * first dropped when its partial score plus every lookup clause's window max cannot reach θ; then
   * each lookup clause in turn, for the candidates still alive, bounds the candidate by its partial
   * score, the clause's block max at d (0 when the clause's last lookup already passed over d, or
   * when d lies outside the gaps of an essential clause: its score is already in the partial) and
   * the window maxima of the clauses after it, drops it below θ, else looks the clause up. The
   * survivors are offered with their partial scores, which are then complete. One clause at a time
   * keeps each lookup pointer moving forward through the clause's blocks, with no per-candidate
   * loop over the clauses.
   */
  private completeCandidates(lo: number, m: number, heap: TopK): number {
    const c = this.c;
    const { essential, windowAcc, windowBits, eOrd, ord, wmax, gaps, gapCount, blockAtStart, lk, restAfter, candO, candP } = this;
    const ne = this.ne;
    const ess = m - ne;
    let nl = 0;
    for (let j = 0; j < ne; j++) lk[nl++] = ord[j]!;
    for (let q = 0; q < ess; q++) {
      const i = eOrd[q]!;
      if (gapCount[i]! === 0) continue;
      lk[nl++] = i;
      c.startLookups(i, blockAtStart[i]!);
    }
    // descending window max (ties by clause index: any order is exact, this one is deterministic)
    for (let a = 1; a < nl; a++) {
      const v = lk[a]!;
      let b = a - 1;
      while (b >= 0 && (wmax[lk[b]!]! < wmax[v]! || (wmax[lk[b]!] === wmax[v] && lk[b]! > v))) {
        lk[b + 1] = lk[b]!;
        b--;
      }
      lk[b + 1] = v;
    }
    let rest = 0;
    for (let t = nl - 1; t >= 0; t--) {
      restAfter[t] = rest;
      rest += wmax[lk[t]!]!;
    }
    const theta = heap.threshold;
    // pass 1: the candidates, dropping those that cannot reach θ even with every lookup clause's window max
    let n = 0;
    let found = 0;
    for (let wd = 0; wd < WORDS; wd++) {
      let bits = windowBits[wd]!;
      if (bits === 0) continue;
      windowBits[wd] = 0;
      while (bits !== 0) {
        const low = bits & -bits;
        bits ^= low;
        const o = (wd << 5) + 31 - Math.clz32(low);
        found++;
        const partial = windowAcc[o]!;
        windowAcc[o] = 0;
        if (f((partial + rest) * INFLATE) < theta) continue;
        candO[n] = o;
        candP[n++] = partial;
      }
    }
    // one pass per lookup clause over the candidates still alive
    for (let t = 0; t < nl && n > 0; t++) {
      const i = lk[t]!;
      n = c.completeClause(i, lo, candO, candP, n, restAfter[t]!, theta, essential[i] === 1 ? gaps[i] : undefined, gapCount[i]!);
    }
    // the survivors: exact scores (the sums are order-free, see ./sum-order.ts)
    for (let r = 0; r < n; r++) heap.offer(lo + candO[r]!, f(candP[r]!));
    this.counters.scored += n;
    this.counters.candidates += found;
    return found;
  }
}

/**
 * Exact top-k by block-max MaxScore over windows of document numbers (pure).
 *
 * The documents are visited in windows. For each window, every clause's largest possible score
 * inside it is the largest impact score of its blocks that overlap the window (./blocks.ts). Once
 * the heap holds k hits with threshold θ (the k-th score), the clauses whose window maxima sum
 * below θ are *non-essential* there: a document only they match cannot enter the top k. A window
 * where every clause is non-essential is skipped without decoding anything; otherwise the essential
 * clauses' postings in the window are scored term at a time into a window buffer (a bitset of
 * candidates plus each clause's score per candidate), and the non-essential clauses are looked up
 * only for candidates whose partial score plus the non-essential maxima can still reach θ. Windows
 * end where an essential clause's block ends, so the maxima stay tight (the MaxScore partitioning
 * per window of Lucene 9's MaxScoreBulkScorer, here over exact float32 Lucene 8 scores).
 *
 * Exactness: every score is computed exactly as the exhaustive scorer does (float32 clause scores,
 * summed in double in clause order, rounded to float), and a document is only dropped when an upper
 * bound of that score is strictly below θ: a tie with θ is never dropped, because it may still win
 * on the passage id. Bounds are sums of float32 maxima in another order than the final sum, so they
 * are inflated by a relative 2^-32 (far above the double rounding of a few hundred terms, far below
 * anything that changes what is pruned). fround is monotone: fround(bound) < θ => fround(score) < θ.
 */
import type { Bm25Index } from "./index.ts";
import { maxImpactDenominator } from "./blocks.ts";
import { BlockReader, MAX_BLOCK_SIZE } from "./postings.ts";
import type { TopK } from "./topk.ts";

const f = Math.fround;
const END = 0x7fffffff;
const INFLATE = 1 + 2 ** -32;
/** Documents per inner window (bitset + per-clause score buffer). */
const WINDOW = 1 << 12;
const WORDS = WINDOW >>> 5;

/** A query clause: term index and weight (fround(boost * idf)). */
export interface WeightedClause {
  readonly term: number;
  readonly weight: number;
}

/** Counters for benchmarks and tests (cumulative over queries). */
export interface PruningStats {
  /** Documents fully scored and offered to the heap. */
  scored: number;
  /** Postings blocks decoded whole (lookups in a block read single postings). */
  blocksDecoded: number;
  /** Outer windows skipped whole (every clause non-essential there). */
  windowsSkipped: number;
  /** Outer windows scored. */
  windowsScored: number;
}

/** Per-thread scratch for block-max MaxScore over one index (reused across queries). */
export class BlockMaxScorer {
  readonly stats: PruningStats = { scored: 0, blocksDecoded: 0, windowsSkipped: 0, windowsScored: 0 };
  private readonly blockCap = MAX_BLOCK_SIZE;
  /** Per block, the largest score denominator (./blocks.ts), 0 until first needed. */
  private readonly denominators: Float32Array;
  private cap = 0;
  private docs: Int32Array[] = [];
  private tfs: Int32Array[] = [];
  private weight = new Float64Array(0);
  private df = new Float64Array(0);
  private blk = new Float64Array(0);
  private blkEnd = new Float64Array(0);
  private firstBlk = new Float64Array(0);
  /** Block whose header readers[i] holds, and block whose postings docs[i]/tfs[i] hold (-1: none). */
  private opened = new Float64Array(0);
  private decoded = new Float64Array(0);
  private readers: BlockReader[] = [];
  private pos = new Int32Array(0);
  private cnt = new Int32Array(0);
  private cur = new Int32Array(0);
  private wmax = new Float64Array(0);
  private essential = new Uint8Array(0);
  private probe = new Float64Array(0);
  private ord = new Int32Array(0);
  private sums = new Float64Array(0);
  private windowScores = new Float32Array(0);
  private readonly windowAcc = new Float64Array(WINDOW);
  private readonly windowBits = new Int32Array(WORDS);
  private nextTheta = Infinity;
  private ne = 0;

  constructor(
    private readonly index: Bm25Index,
    private readonly normCache: Float32Array,
  ) {
    this.denominators = new Float32Array(index.blockLastDoc.length);
  }

  private ensure(m: number): void {
    if (m <= this.cap) return;
    const n = Math.max(m, this.cap * 2, 8);
    this.weight = new Float64Array(n);
    this.df = new Float64Array(n);
    this.blk = new Float64Array(n);
    this.blkEnd = new Float64Array(n);
    this.firstBlk = new Float64Array(n);
    this.opened = new Float64Array(n);
    this.decoded = new Float64Array(n);
    this.pos = new Int32Array(n);
    this.cnt = new Int32Array(n);
    this.cur = new Int32Array(n);
    this.wmax = new Float64Array(n);
    this.essential = new Uint8Array(n);
    this.probe = new Float64Array(n);
    this.ord = new Int32Array(n);
    this.sums = new Float64Array(n);
    this.windowScores = new Float32Array(n * WINDOW);
    for (let i = this.docs.length; i < n; i++) {
      this.docs.push(new Int32Array(this.blockCap));
      this.tfs.push(new Int32Array(this.blockCap));
      this.readers.push(new BlockReader());
    }
    this.cap = n;
  }

  /** Parses the header of block b for clause i and puts its position on the block's first posting. */
  private open(i: number, b: number): void {
    const x = this.index;
    const r = this.readers[i]!.open(x.postings, x.blockStart[b]!, b === this.firstBlk[i] ? -1 : x.blockLastDoc[b - 1]!);
    this.cnt[i] = r.n;
    this.opened[i] = b;
    this.pos[i] = 0;
  }

  /** Decodes clause i's open block into its buffers (for iterating it posting by posting). */
  private decode(i: number): void {
    this.readers[i]!.decode(this.index.postings, this.docs[i]!, this.tfs[i]!);
    this.decoded[i] = this.opened[i]!;
    this.stats.blocksDecoded++;
  }

  /** Max score of block b of clause i (its score denominator is computed once per searcher). */
  private blockMax(i: number, b: number): number {
    let y = this.denominators[b]!;
    if (y === 0) y = this.denominators[b] = maxImpactDenominator(this.index.impacts, this.index.blockImpactOffsets[b]!, this.normCache);
    const w = this.weight[i]!;
    return f(w - f(w / y));
  }

  /** Moves clause i's block pointer to the first block that can hold target (without decoding). */
  private shallow(i: number, target: number): number {
    const last = this.index.blockLastDoc;
    let b = this.blk[i]!;
    const end = this.blkEnd[i]!;
    while (b < end && last[b]! < target) b++;
    this.blk[i] = b;
    return b;
  }

  /** Positions clause i on its first document >= target (END when none). */
  private advance(i: number, target: number): void {
    if (this.cur[i]! >= target) return;
    const b = this.shallow(i, target);
    if (b === this.blkEnd[i]) {
      this.cur[i] = END;
      return;
    }
    if (this.opened[i] !== b) this.open(i, b);
    const postings = this.index.postings;
    if (this.decoded[i] === b) {
      const docs = this.docs[i]!;
      let p = this.pos[i]!;
      while (docs[p]! < target) p++;
      this.pos[i] = p;
      this.cur[i] = docs[p]!;
      return;
    }
    // Binary search on the packed block: the block's last doc is >= target.
    const r = this.readers[i]!;
    let lo = this.pos[i]!;
    let hi = r.n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (r.doc(postings, mid) < target) lo = mid + 1;
      else hi = mid;
    }
    this.pos[i] = lo;
    this.cur[i] = r.doc(postings, lo);
  }

  /** The tf of clause i's current posting. */
  private tf(i: number): number {
    return this.decoded[i] === this.opened[i] ? this.tfs[i]![this.pos[i]!]! : this.readers[i]!.tf(this.index.postings, this.pos[i]!);
  }

  /** Largest score clause i can give a document in [lo, hi); 0 when it has none there. */
  private windowMax(i: number, lo: number, hi: number): number {
    if (this.cur[i]! >= hi) return 0;
    const last = this.index.blockLastDoc;
    const end = this.blkEnd[i]!;
    let b = this.shallow(i, lo);
    let best = 0;
    for (; b < end; b++) {
      const s = this.blockMax(i, b);
      if (s > best) best = s;
      if (last[b]! >= hi - 1) break;
    }
    return best;
  }

  /** The first document >= lo that any clause may still hold (a lower bound), END when all are exhausted. */
  private nextPossible(lo: number, m: number): number {
    const last = this.index.blockLastDoc;
    let next = END;
    for (let i = 0; i < m; i++) {
      const c = this.cur[i]!;
      if (c >= lo) {
        next = Math.min(next, c);
        continue;
      }
      const b = this.shallow(i, lo);
      if (b < this.blkEnd[i]!) next = Math.min(next, b > this.firstBlk[i]! ? Math.max(lo, last[b - 1]! + 1) : lo);
    }
    return next;
  }

  /** Window end: where the first block of an essential clause ends (at least lo + minWindow). */
  private windowEnd(lo: number, m: number, minWindow: number): number {
    const last = this.index.blockLastDoc;
    let hi = END;
    for (let j = this.ne; j < m; j++) {
      const i = this.ord[j]!;
      const b = this.shallow(i, Math.max(this.cur[i]!, lo));
      if (b < this.blkEnd[i]!) hi = Math.min(hi, last[b]! + 1);
    }
    return Math.max(hi, Math.min(END, lo + minWindow));
  }

  /**
   * Orders the clauses by window max (frequent terms first on ties) and marks the non-essential
   * prefix for threshold theta; false when every clause is non-essential (the window can be skipped).
   */
  private partition(m: number, theta: number): boolean {
    const { ord, wmax, df, sums, essential } = this;
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
        sums[j] = s;
        essential[i] = 0;
        ne++;
      } else {
        essential[i] = 1;
        if (bound < this.nextTheta) this.nextTheta = bound;
      }
    }
    this.ne = ne;
    return ne < m;
  }

  /** Offers the exact top k of the clauses (given in the order their scores are summed) to `heap`. */
  run(clauses: readonly WeightedClause[], heap: TopK): void {
    const m = clauses.length;
    if (m === 0) return;
    this.ensure(m);
    const x = this.index;
    const { weight, df, blk, blkEnd, firstBlk, opened, decoded, cur, wmax, ord, essential } = this;
    for (let i = 0; i < m; i++) {
      const c = clauses[i]!;
      weight[i] = c.weight;
      df[i] = x.df[c.term]!;
      firstBlk[i] = blk[i] = x.termBlockOffsets[c.term]!;
      blkEnd[i] = x.termBlockOffsets[c.term + 1]!;
      opened[i] = -1;
      decoded[i] = -1;
      cur[i] = -1;
      ord[i] = i;
      essential[i] = 1;
    }
    this.ne = 0;
    let lo = END;
    for (let i = 0; i < m; i++) {
      this.advance(i, 0);
      if (cur[i]! < lo) lo = cur[i]!;
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
        for (let i = 0; i < m; i++) wmax[i] = this.windowMax(i, lo, hi);
        if (!this.partition(m, theta)) {
          this.stats.windowsSkipped++;
          lo = hi;
          continue outer;
        }
        const narrower = this.windowEnd(lo, m, minWindow);
        if (narrower >= hi) break;
        hi = narrower;
      }
      this.stats.windowsScored++;
      windows++;
      for (let j = this.ne; j < m; j++) this.advance(ord[j]!, lo);
      let next = lo;
      for (;;) {
        let innerLo = END;
        for (let j = this.ne; j < m; j++) innerLo = Math.min(innerLo, cur[ord[j]!]!);
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
  }

  /** Scores the essential clauses over [lo, hi) into the window buffers, then completes the candidates. */
  private scoreInnerWindow(lo: number, hi: number, m: number, heap: TopK): number {
    const x = this.index;
    const norms = x.norms;
    const cache = this.normCache;
    const { cur, essential, windowScores, windowAcc, windowBits, weight, ord, sums, probe } = this;
    for (let i = 0; i < m; i++) {
      if (essential[i] === 0) continue;
      const w = weight[i]!;
      const base = i * WINDOW;
      let d = cur[i]!;
      if (d < hi && this.decoded[i] !== this.opened[i]) this.decode(i);
      while (d < hi) {
        const docs = this.docs[i]!;
        const tfs = this.tfs[i]!;
        const n = this.cnt[i]!;
        let p = this.pos[i]!;
        while (p < n) {
          d = docs[p]!;
          if (d >= hi) break;
          const s = f(w - f(w / f(1 + f(tfs[p]! * cache[norms[d]!]!))));
          const o = d - lo;
          windowScores[base + o] = s;
          windowAcc[o]! += s;
          windowBits[o >>> 5]! |= 1 << (o & 31);
          p++;
        }
        if (p < n) {
          this.pos[i] = p;
          cur[i] = d;
          break;
        }
        // block exhausted: next block
        const b = this.blk[i]! + 1;
        this.blk[i] = b;
        if (b === this.blkEnd[i]) {
          d = END;
          cur[i] = END;
          break;
        }
        this.open(i, b);
        this.decode(i);
        d = this.docs[i]![0]!;
        cur[i] = d;
      }
    }
    const ne = this.ne;
    let theta = heap.threshold;
    let found = 0;
    for (let wd = 0; wd < WORDS; wd++) {
      let bits = windowBits[wd]!;
      if (bits === 0) continue;
      windowBits[wd] = 0;
      while (bits !== 0) {
        const low = bits & -bits;
        bits ^= low;
        const o = (wd << 5) + 31 - Math.clz32(low);
        const d = lo + o;
        found++;
        let partial = windowAcc[o]!;
        windowAcc[o] = 0;
        let alive = true;
        for (let j = ne - 1; j >= 0; j--) {
          if (f((partial + sums[j]!) * INFLATE) < theta) {
            alive = false;
            break;
          }
          const i = ord[j]!;
          this.advance(i, d);
          let s = 0;
          if (cur[i] === d) {
            const w = weight[i]!;
            s = f(w - f(w / f(1 + f(this.tf(i) * cache[norms[d]!]!))));
          }
          probe[i] = s;
          partial += s;
        }
        if (alive) {
          let total = 0;
          for (let i = 0; i < m; i++) total += essential[i] === 1 ? windowScores[i * WINDOW + o]! : probe[i]!;
          this.stats.scored++;
          heap.offer(d, f(total));
          theta = heap.threshold;
        }
        for (let i = 0; i < m; i++) windowScores[i * WINDOW + o] = 0;
      }
    }
    return found;
  }
}
